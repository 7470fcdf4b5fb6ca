//go:build extractors && unix

package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkExtract times, per page of the English sample corpus, each
// extraction library alone (its text, not preprocessed) and the
// preprocessing pipeline alone on the whole page (what every method does
// first), in pages per CPU-second of the process (run with -cpu 1 on a
// shared machine: CPU time is less noisy than wall time); empty/page is
// the share of pages the library extracts nothing from (the wrapper falls
// back to the whole page for them). Then each method end to end, as
// evaluate runs it (preprocessing and MatchOrAdd; empty/page counts errors).
//
//	go test -tags extractors -run '^$' -bench Extract -benchtime 3x -cpu 1 ./examples/evaluate
func BenchmarkExtract(b *testing.B) {
	pages, _ := samplePages(b)
	run := func(b *testing.B, one func(p corpus.Page) bool) {
		empty := 0
		start := cpuTime(b)
		for b.Loop() {
			for _, p := range pages {
				if !one(p) {
					empty++
				}
			}
		}
		n := float64(b.N * len(pages))
		b.ReportMetric(n/(cpuTime(b)-start).Seconds(), "pages/cpu-s")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/page")
		b.ReportMetric(float64(empty)/n, "empty/page")
	}
	b.Run("preprocess", func(b *testing.B) {
		var pipe preprocess.Pipeline
		run(b, func(p corpus.Page) bool {
			_, err := pipe.Process(p.Raw)
			return err == nil
		})
	})
	for _, e := range extractors() {
		b.Run(e.name, func(b *testing.B) {
			run(b, func(p corpus.Page) bool {
				d := &neardup.Document{ID: p.URL, Raw: p.Raw}
				text, err := e.extract(p.Raw, pageURL(d))
				return err == nil && strings.TrimSpace(text) != ""
			})
		})
	}
	// The methods end to end, as evaluate runs them: each page preprocessed,
	// then offered to a fresh detector's MatchOrAdd, a new detector each pass.
	methods := []struct {
		name string
		new  func() (neardup.MatchAdder, error)
	}{{"minhash", func() (neardup.MatchAdder, error) { return minhash.New(minhash.Options{}) }}}
	for _, e := range extractors() {
		methods = append(methods, struct {
			name string
			new  func() (neardup.MatchAdder, error)
		}{"minhash-" + e.name, func() (neardup.MatchAdder, error) { return newExtracted(e.extract) }})
	}
	for _, m := range methods {
		b.Run(m.name, func(b *testing.B) {
			var pipe preprocess.Pipeline
			var det neardup.MatchAdder
			i := 0
			run(b, func(p corpus.Page) bool {
				if i%len(pages) == 0 {
					var err error
					if det, err = m.new(); err != nil {
						b.Fatal(err)
					}
				}
				i++
				d, err := neardup.NewDocument(&pipe, p.ID, p.URL, "", p.Raw)
				if err != nil {
					b.Fatal(err)
				}
				_, _, err = det.MatchOrAdd(b.Context(), d)
				return err == nil
			})
		})
	}
}
