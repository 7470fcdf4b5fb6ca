package shingle_test

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/synth"
	"github.com/neardup/neardup/preprocess"
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
	runtime.LockOSThread() // so that the thread's CPU time is this goroutine's
	defer runtime.UnlockOSThread()
	crawl, err := synth.New(synth.Options{Seed: 1, Pages: n})
	if err != nil {
		b.Fatal(err)
	}
	pipe, _ := preprocess.New(preprocess.Options{})
	det, err := shingle.New(o)
	if err != nil {
		b.Fatal(err)
	}
	group := make(map[string]int, n)
	cmps := make([]int32, 0, n)
	var spent, cpu time.Duration
	var tp, fp, fn, wrong int
	for p := range crawl.All() {
		d, err := neardup.NewDocument(pipe, p.ID, p.URL, p.HTML)
		if err != nil {
			b.Fatal(err)
		}
		before := det.Comparisons()
		c0, t0 := threadCPU(), time.Now()
		ms, added, err := det.MatchOrAdd(d)
		spent += time.Since(t0)
		cpu += threadCPU() - c0
		if err != nil {
			b.Fatal(err)
		}
		cmps = append(cmps, int32(det.Comparisons()-before))
		if added {
			group[p.ID] = p.Group
		}
		switch {
		case !added && p.Duplicate() && group[ms[0].ID] == p.Group:
			tp++
		case !added && p.Duplicate():
			wrong++
		case !added:
			fp++
		case p.Duplicate():
			fn++
		}
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
	precision := float64(tp) / float64(tp+fp+wrong)
	recall := float64(tp) / float64(tp+fn+wrong)
	b.ReportMetric(float64(sum)/float64(len(cmps)), "cmp/page")
	b.ReportMetric(float64(cmps[len(cmps)*99/100]), "cmp-p99/page")
	b.ReportMetric(float64(spent.Microseconds())/float64(len(cmps)), "us/page")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(cmps)), "cpu-us/page")
	b.ReportMetric(float64(int64(withDet.HeapAlloc)-int64(without.HeapAlloc))/float64(kept), "B/page")
	b.ReportMetric(2*precision*recall/(precision+recall), "F1")
	b.ReportMetric(precision, "precision")
	b.ReportMetric(recall, "recall")
	b.ReportMetric(0, "ns/op")
}
