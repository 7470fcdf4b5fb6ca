package judge_test

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/minhash/internal/judge"
)

// BenchmarkExtract makes the records (the page and content sketches, the
// blocks and the index keys) of the first 1,000 pages of the generated
// crawl (internal/synth, seed 1), preprocessed beforehand, one page per
// operation in turn, and reports cpu-ns/op (startCPU): the client's work
// for each page a Detector or a repository is offered, beside its lookups.
//
//	go test ./minhash/internal/judge -run '^$' -bench Extract -count 6
func BenchmarkExtract(b *testing.B) {
	j, _ := judge.NewJudge(judge.Options{})
	var docs []*neardup.Document
	for _, d := range benchtest.Crawl(b, 1, 1_000) {
		docs = append(docs, d)
	}
	cpu := startCPU(b)
	i := 0
	for b.Loop() {
		d := docs[i]
		// A fresh Document: a Document keeps its feature once computed.
		if _, err := j.Record(&neardup.Document{ID: d.ID, Host: d.Host, Page: d.Page}); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % len(docs)
	}
	cpu()
}
