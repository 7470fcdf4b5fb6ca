package minhash_test

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/synth"
	"github.com/neardup/neardup/minhash"
)

// lshRecords is an LSH of the records' word sets (128-value signatures).
type lshRecords struct {
	x   *minhash.LSH
	sig minhash.Signature
	out []uint32
}

func newLSHRecords(tb testing.TB, threshold float64) *lshRecords {
	x, err := minhash.NewLSH(minhash.LSHOptions{Threshold: threshold})
	if err != nil {
		tb.Fatal(err)
	}
	return &lshRecords{x: x}
}

func (l *lshRecords) Add(i int, text string) {
	l.sig = minhash.NewSignature(l.x.Options().K, synth.WordSet(text), l.sig)
	if err := l.x.Insert(uint32(i), l.sig); err != nil {
		panic(err)
	}
}

func (l *lshRecords) Build() {}

func (l *lshRecords) Probability(j float64) float64 { return l.x.Probability(j) }

func (l *lshRecords) Query(text string, dst []int) []int {
	l.sig = minhash.NewSignature(l.x.Options().K, synth.WordSet(text), l.sig)
	l.out = l.x.Query(l.sig, l.out[:0])
	for _, id := range l.out {
		dst = append(dst, int(id))
	}
	return dst
}

// BenchmarkRecords files short records (internal/synth's NewRecords:
// product titles and log lines, 10 % planted copies at Jaccard 0.5–1.0) in
// an LSH of their word sets at thresholds 0.5, 0.7 and 0.9 and queries
// 10,000 of them (benchtest.Records has the metrics). minhash/peer's
// BenchmarkRecords runs the same with github.com/ekzhu/minhash-lsh beside.
//
//	go test ./minhash -run '^$' -bench Records -benchtime 1x
func BenchmarkRecords(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		for _, t := range []float64{0.5, 0.7, 0.9} {
			b.Run(fmt.Sprintf("n=%s/t=%v", count(n), t), func(b *testing.B) {
				if testing.Short() && n > 10_000 {
					b.Skip("-short: only n=10k")
				}
				for b.Loop() {
					benchtest.Records(b, n, t, func(t float64) benchtest.RecordIndex { return newLSHRecords(b, t) })
				}
			})
		}
	}
}

func count(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
