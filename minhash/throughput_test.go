package minhash_test

import (
	"flag"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// corpusRoot is the folder of the labelled corpora BenchmarkThroughput
// reads; empty, it reads the repository's sample.
var corpusRoot = flag.String("corpus", "", "folder of the labelled corpora (en-dev); empty: the repository's en-sample")

// BenchmarkThroughput streams a labelled corpus through preprocessing and
// MatchOrAdd, as a crawler does, and reports pages per CPU-second (run with
// -cpu 1 so that no other goroutine's work is counted) and the share of it
// that is the detector. The corpus is the English sample that ships in the
// repository, or en-dev under the folder of labelled corpora -corpus names:
//
//	go test ./minhash -run '^$' -bench Throughput -cpu 1 -corpus ../../shared/corpus
func BenchmarkThroughput(b *testing.B) {
	dir := corpus.Dir(*corpusRoot, "..", "en")
	pages, err := corpus.Read(dir, 0)
	if err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for _, p := range pages {
		bytes += int64(len(p.Raw))
	}
	b.SetBytes(bytes)
	var cpu, det time.Duration
	for b.Loop() {
		var pipe preprocess.Pipeline
		d, _ := minhash.New(minhash.Options{})
		c0 := benchtest.CPUTime()
		for _, p := range pages {
			doc, err := neardup.NewDocument(&pipe, p.ID, p.URL, "", p.Raw)
			if err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			if _, _, err := d.MatchOrAdd(b.Context(), doc); err != nil {
				b.Fatal(err)
			}
			det += time.Since(t0)
		}
		cpu += benchtest.CPUTime() - c0
	}
	n := float64(b.N * len(pages))
	b.ReportMetric(n/cpu.Seconds(), "pages/cpu-s")
	b.ReportMetric(float64(det.Microseconds())/n, "detector-us/page")
}
