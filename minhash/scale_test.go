package minhash_test

import (
	"testing"

	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/minhash"
)

// BenchmarkScale streams the first n pages of a generated crawl (internal/synth:
// Zipf-sized hosts with a long tail, each with its own heavy template,
// boilerplate shared across hosts, English and Chinese, 15 % near-duplicates)
// through a Detector's MatchOrAdd, as a crawler would, and reports:
//
//   - cmp/page, cmp-p99/page: kept pages compared per MatchOrAdd (mean, 99th percentile)
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
// It runs on two crawls (benchtest.Crawls): crawl=words, the default,
// and crawl=bigram, whose text walks the sample corpora's bigram model so
// that 4-token phrases recur across unrelated pages.
//
//	go test ./minhash -run '^$' -bench 'Scale/crawl=bigram/n=(10k|100k)$' -benchtime 1x -cpu 1 -timeout 60m
func BenchmarkScale(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"n=10k", 10_000}, {"n=30k", 30_000}, {"n=100k", 100_000}, {"n=1M", 1_000_000}} {
		for _, cr := range benchtest.Crawls(c.n) {
			b.Run("crawl="+cr.Name+"/"+c.name, func(b *testing.B) {
				if testing.Short() && c.n > 10_000 {
					b.Skip("-short: only n=10k")
				}
				for b.Loop() {
					benchtest.ScaleOn(b, cr.Opts, func() (benchtest.ScaleDetector, error) { return minhash.New(minhash.Options{}) })
				}
			})
		}
	}
}
