package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// BenchmarkKeptBytes measures the heap each method keeps per kept page: the
// pages of both sample corpora (405 real documentation pages of 2-150 KB)
// are preprocessed and added to a fresh detector three times over, under new
// IDs; the growth of the heap in use from the first pass to the third,
// divided by the pages added in between, is the B/page metric: what one
// more page costs, without the detector's fixed costs (an index sized for
// 65,536 pages, say). The documents are unreachable when the heap is read.
//
//	go test -run='^$' -bench=KeptBytes ./examples/evaluate/
func BenchmarkKeptBytes(b *testing.B) {
	var raws []page
	for _, c := range []string{"en-sample", "zh-sample"} {
		ps, err := readCorpus(filepath.Join("testdata", c), 0)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, ps...)
	}
	all := newMethodSet(flag.NewFlagSet("bench", flag.ContinueOnError))
	for _, m := range all {
		if m.fleet != nil {
			continue // its repository is in a server, not in this heap
		}
		b.Run(m.name, func(b *testing.B) {
			var perPage float64
			for b.Loop() {
				perPage = keptBytes(b, m, raws)
			}
			b.ReportMetric(perPage, "B/page")
		})
	}
}

func keptBytes(b *testing.B, m method, raws []page) float64 {
	var pipe preprocess.Pipeline
	det, err := m.build(pagesSource("samples", raws))
	if err != nil {
		b.Fatal(err)
	}
	kept := 0
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC() // the second one also empties sync.Pools' victim caches
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var h1 uint64
	var n1 int
	for pass := range 3 {
		for i, p := range raws {
			d, err := neardup.NewDocument(&pipe, fmt.Sprint(pass, "-", i), p.url, "", p.raw)
			if err == nil && det.Add(b.Context(), d) == nil {
				kept++
			}
		}
		if pass == 0 {
			h1, n1 = heap(), kept
		}
	}
	h3 := heap()
	runtime.KeepAlive(det)
	runtime.KeepAlive(&pipe) // its tables were live at h1 too
	return float64(int64(h3)-int64(h1)) / float64(kept-n1)
}
