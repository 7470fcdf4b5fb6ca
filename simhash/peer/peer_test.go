package peer

import (
	"os"
	"testing"

	mfonda "github.com/mfonda/simhash"

	"github.com/neardup/neardup/simhash"
)

// text is the 10 KB of English prose that simhash's own benchmarks use.
func text(b *testing.B) string {
	data, err := os.ReadFile("../testdata/en-10k.txt")
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// BenchmarkSimhashText10KB is simhash.FromText: the preprocess terms of the
// text (tokens, stop words, stems, term counts) and Sum.
func BenchmarkSimhashText10KB(b *testing.B) {
	t := text(b)
	b.SetBytes(int64(len(t)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := simhash.FromText(t); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMfondaText10KB is the peer's word fingerprint of the same text:
// Simhash(NewWordFeatureSet(text)) (lower-cased words by regular
// expression, each occurrence weighted 1, FNV-64 hashes).
func BenchmarkMfondaText10KB(b *testing.B) {
	t := []byte(text(b))
	b.SetBytes(int64(len(t)))
	b.ReportAllocs()
	for b.Loop() {
		_ = mfonda.Simhash(mfonda.NewWordFeatureSet(t))
	}
}
