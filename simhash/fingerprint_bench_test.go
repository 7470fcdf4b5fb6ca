package simhash

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/neardup/neardup/preprocess"
)

func loadText(b *testing.B) string {
	data, err := os.ReadFile("testdata/en-10k.txt")
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// BenchmarkSimhashText10KB measures FromText on 10 KB of English prose:
// the text's terms (tokens, stop words, stems, counts) and Sum.
func BenchmarkSimhashText10KB(b *testing.B) {
	text := loadText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromText(text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSimhashTerms measures Sum over the terms of the same text (what a
// Detector computes from preprocess.Page.Terms).
func BenchmarkSimhashTerms(b *testing.B) {
	var p preprocess.Pipeline
	page, err := p.ProcessContent([]byte(loadText(b)), "text/plain")
	if err != nil {
		b.Fatal(err)
	}
	terms := page.Terms
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Sum(terms); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(terms)), "terms")
}

// BenchmarkSimhashDistance measures the Hamming distance of two fingerprints.
func BenchmarkSimhashDistance(b *testing.B) {
	fs := [4]Fingerprint{0x0123456789abcdef, 0xfedcba9876543210, 0xdeadbeefcafebabe, 7}
	var sink int
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink += Distance(fs[i&3], fs[(i+1)&3])
	}
	_ = sink
}

// BenchmarkDetectorMatch measures Match against kept random fingerprints,
// through the Index (T_B ≤ 16) and by scanning (T_B = 20).
func BenchmarkDetectorMatch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, tb := range []int{3, 8, 20} {
			b.Run(fmt.Sprintf("kept=%d/T_B=%d", n, tb), func(b *testing.B) {
				det, err := New(Options{MaxDistance: tb, ExpectedSize: n})
				if err != nil {
					b.Fatal(err)
				}
				r := rand.New(rand.NewPCG(1, 2))
				for i := range n {
					if err := det.AddFingerprint(fmt.Sprint(i), Fingerprint(r.Uint64())); err != nil {
						b.Fatal(err)
					}
				}
				queries := make([]Fingerprint, 1024)
				for i := range queries {
					queries[i] = Fingerprint(r.Uint64())
				}
				core := det.c()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					core.MatchFeature(queries[i%len(queries)])
					i++
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "matches/s")
			})
		}
	}
}
