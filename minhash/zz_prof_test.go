package minhash_test

import (
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

func BenchmarkZZEnDev(b *testing.B) {
	pages, err := corpus.Read("/work/shared/corpus/en-dev", 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var pipe preprocess.Pipeline
		det, _ := minhash.New(minhash.Options{})
		var pre, match time.Duration
		for _, p := range pages {
			t0 := time.Now()
			d, err := neardup.NewDocument(&pipe, p.ID, p.URL, p.Raw)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			det.MatchOrAdd(d)
			t2 := time.Now()
			pre += t1.Sub(t0)
			match += t2.Sub(t1)
		}
		b.ReportMetric(float64(len(pages))/(pre+match).Seconds(), "pages/s")
		b.ReportMetric(float64(pre.Microseconds())/float64(len(pages)), "pre-us/page")
		b.ReportMetric(float64(match.Microseconds())/float64(len(pages)), "det-us/page")
	}
}
