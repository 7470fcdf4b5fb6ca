package shingle_test

import (
	"testing"

	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/shingle"
)

// BenchmarkScale streams the first n pages of a generated crawl (internal/synth:
// Zipf-sized hosts with a long tail, each with its own heavy template,
// boilerplate shared across hosts, English and Chinese, 15 % near-duplicates)
// through a Detector's MatchOrAdd with the default Options, as a crawler
// would, and reports:
//
//   - cmp/page, cmp-p99/page: kept pages compared per MatchOrAdd (mean, 99th
//     percentile), what the candidate index leaves
//   - us/page: MatchOrAdd alone, mean wall time (preprocessing not counted);
//     cpu-us/page the same in CPU time of the calling thread, which a busy
//     machine does not inflate (the background GC's work is not in it)
//   - B/page: heap per kept page, after GC
//   - F1: a page is flagged when it matches a kept page; a flagged
//     near-duplicate matched to another group counts against both precision
//     and recall
//
// One iteration is the whole crawl; run it once, on one core:
//
//	go test ./shingle -run '^$' -bench Scale -benchtime 1x -cpu 1 -timeout 60m
func BenchmarkScale(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"n=10k", 10_000}, {"n=100k", 100_000}} {
		n := c.n
		b.Run(c.name, func(b *testing.B) {
			if testing.Short() && n > 10_000 {
				b.Skip("-short: only n=10k")
			}
			for b.Loop() {
				scale(b, n, shingle.Options{})
			}
		})
	}
}

func scale(b *testing.B, n int, o shingle.Options) {
	benchtest.Scale(b, n, func() (benchtest.ScaleDetector, error) { return shingle.New(o) })
}
