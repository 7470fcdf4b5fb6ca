package detectortest

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/neardup/neardup"
)

// ScaleDetector is a detector Scale measures: it counts the kept pages it
// compares pages with.
type ScaleDetector interface {
	MatchOrAdd(d *neardup.Document) ([]neardup.Match, bool, error)
	Comparisons() int64
	Len() int
}

// Scale streams the first n pages of the generated crawl (internal/synth,
// seed 1) through MatchOrAdd of the detector newDet returns, as a crawler
// would, and reports:
//
//   - cmp/page, cmp-p99/page: kept pages compared per MatchOrAdd (mean, 99th
//     percentile), what the candidate index leaves
//   - us/page: MatchOrAdd alone, mean wall time (preprocessing not counted);
//     cpu-us/page the same in CPU time of the calling thread, which a busy
//     machine does not inflate (the background GC's work is not in it)
//   - B/page: heap per kept page, after GC
//   - F1 (and precision, recall): a page is flagged when it matches a kept
//     page; a flagged near-duplicate matched to another group counts
//     against both precision and recall
func Scale(b *testing.B, n int, newDet func() (ScaleDetector, error)) {
	runtime.LockOSThread() // so that the thread's CPU time is this goroutine's
	defer runtime.UnlockOSThread()
	det, err := newDet()
	if err != nil {
		b.Fatal(err)
	}
	cmps := make([]int32, 0, n)
	var spent, cpu time.Duration
	var tally Tally
	for p, d := range Crawl(b, 1, n) {
		before := det.Comparisons()
		c0, t0 := ThreadCPU(), time.Now()
		ms, added, err := det.MatchOrAdd(d)
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

	sum := 0
	for _, c := range cmps {
		sum += int(c)
	}
	slices.Sort(cmps)
	b.ReportMetric(float64(sum)/float64(len(cmps)), "cmp/page")
	b.ReportMetric(float64(cmps[len(cmps)*99/100]), "cmp-p99/page")
	b.ReportMetric(float64(spent.Microseconds())/float64(len(cmps)), "us/page")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(cmps)), "cpu-us/page")
	b.ReportMetric(float64(int64(withDet.HeapAlloc)-int64(without.HeapAlloc))/float64(kept), "B/page")
	tally.Report(b, true)
	b.ReportMetric(0, "ns/op")
}
