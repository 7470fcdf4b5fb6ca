package minhash_test

import (
	"slices"
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

// BenchmarkKeys makes the index keys (Judge.Keys, with no template) of the
// generated crawl's first 20,000 pages and reports how densely they fill
// the 32-bit values, beside the content hashes they stand for (a page's
// smallest, small numbers; the in-process Detector's keys): keys/value and
// hashes/value are the values per value between their lower and upper
// quartiles. In a repository of n such pages a key shares its value with
// about keys/value × n/20,000 keys of other pages, related or not.
//
//	go test ./minhash -run '^$' -bench Keys -benchtime 1x
func BenchmarkKeys(b *testing.B) {
	const pages = 20_000
	j, err := minhash.NewJudge(minhash.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var keys, hashes []uint32
	for b.Loop() {
		keys, hashes = keys[:0], hashes[:0]
		for _, r := range crawlRecords(b, j, pages) {
			keys = append(keys, j.Keys(r, nil)...)
			c, _ := r.Content()
			hashes = append(hashes, c[:min(len(c), j.Options().Keys)]...)
		}
	}
	density := func(v []uint32) float64 {
		slices.Sort(v)
		return float64(len(v)/2) / float64(v[len(v)*3/4]-v[len(v)/4])
	}
	b.ReportMetric(density(keys), "keys/value")
	b.ReportMetric(density(hashes), "hashes/value")
	b.ReportMetric(0, "ns/op")
}
