package benchtest

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/detectortest"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/synth"
)

// ScaleDetector is a detector Scale measures: it counts the kept pages it
// compares pages with.
type ScaleDetector interface {
	MatchOrAdd(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error)
	Comparisons() int64
	Len() int
}

// Scale streams the first n pages of the generated crawl (internal/synth,
// seed 1) through MatchOrAdd of the detector newDet returns, as a crawler
// would, and reports:
//
//   - cmp/page, cmp-p99/page: kept pages compared per MatchOrAdd (mean, 99th
//     percentile), what the candidate index leaves; cmp-tail/page the mean
//     over the last 5 % of the pages, against the repository at its largest
//   - us/page: MatchOrAdd alone, mean wall time (preprocessing not counted);
//     cpu-us/page the same in CPU time of the calling thread, which a busy
//     machine does not inflate (the background GC's work is not in it)
//   - B/page: heap per kept page, after GC
//   - F1 (and precision, recall): a page is flagged when it matches a kept
//     page; a flagged near-duplicate matched to another group counts
//     against both precision and recall
func Scale(b *testing.B, n int, newDet func() (ScaleDetector, error)) {
	ScaleOn(b, synth.Options{Seed: 1, Pages: n}, newDet)
}

// Crawls are the generated crawls Scale's callers measure on, by name:
// "words", the default crawl (seed 1), and "bigram", text from the sample
// corpora's bigram model (synth.Bigram: 4-token phrases recur across
// unrelated pages) over 20,000 hosts (seed 2).
func Crawls(n int) []NamedCrawl {
	return []NamedCrawl{
		{"words", synth.Options{Seed: 1, Pages: n}},
		{"bigram", synth.Options{Seed: 2, Pages: n, Text: synth.Bigram, Hosts: 20_000}},
	}
}

// NamedCrawl is a generated crawl's options with a name for a sub-benchmark.
type NamedCrawl struct {
	Name string
	Opts synth.Options
}

// ScaleOn is Scale on the generated crawl of opts (its first opts.Pages
// pages).
func ScaleOn(b *testing.B, opts synth.Options, newDet func() (ScaleDetector, error)) {
	n := opts.Pages
	runtime.LockOSThread() // so that the thread's CPU time is this goroutine's
	defer runtime.UnlockOSThread()
	det, err := newDet()
	if err != nil {
		b.Fatal(err)
	}
	cmps := make([]int32, 0, n)
	var spent, cpu time.Duration
	var tally detectortest.Tally
	for p, d := range CrawlOf(b, opts) {
		before := det.Comparisons()
		c0, t0 := ThreadCPU(), time.Now()
		ms, added, err := det.MatchOrAdd(b.Context(), d)
		spent += time.Since(t0)
		cpu += ThreadCPU() - c0
		if err != nil {
			b.Fatal(err)
		}
		cmps = append(cmps, int32(det.Comparisons()-before))
		tally.Count(p, ms, added)
	}
	runtime.GC()
	runtime.GC()
	var withDet runtime.MemStats
	runtime.ReadMemStats(&withDet)
	kept := det.Len()
	runtime.KeepAlive(det)
	det = nil
	runtime.GC()
	runtime.GC()
	var without runtime.MemStats
	runtime.ReadMemStats(&without)

	sum, tail := 0, 0
	for _, c := range cmps {
		sum += int(c)
	}
	for _, c := range cmps[len(cmps)-max(len(cmps)/20, 1):] {
		tail += int(c)
	}
	b.ReportMetric(float64(tail)/float64(max(len(cmps)/20, 1)), "cmp-tail/page")
	slices.Sort(cmps)
	b.ReportMetric(float64(sum)/float64(len(cmps)), "cmp/page")
	b.ReportMetric(float64(cmps[len(cmps)*99/100]), "cmp-p99/page")
	b.ReportMetric(float64(spent.Microseconds())/float64(len(cmps)), "us/page")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(cmps)), "cpu-us/page")
	b.ReportMetric(float64(int64(withDet.HeapAlloc)-int64(without.HeapAlloc))/float64(kept), "B/page")
	tally.Report(b, true)
	b.ReportMetric(0, "ns/op")
}
