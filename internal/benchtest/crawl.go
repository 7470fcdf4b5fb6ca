package benchtest

import (
	"iter"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/synth"
	"github.com/neardup/neardup/preprocess"
)

// Crawl yields the first n pages of the generated crawl of seed
// (internal/synth), each with its document, preprocessed by the default
// Pipeline as it is yielded. A crawl or a page that cannot be made fails
// tb.
func Crawl(tb testing.TB, seed int64, n int) iter.Seq2[synth.Page, *neardup.Document] {
	return CrawlOf(tb, synth.Options{Seed: seed, Pages: n})
}

// CrawlOf is Crawl of the generated crawl of opts.
func CrawlOf(tb testing.TB, opts synth.Options) iter.Seq2[synth.Page, *neardup.Document] {
	crawl, err := synth.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	pipe, _ := preprocess.New(preprocess.Options{})
	return func(yield func(synth.Page, *neardup.Document) bool) {
		for p := range crawl.All() {
			d, err := neardup.NewDocument(pipe, p.ID, p.URL, "", p.HTML)
			if err != nil {
				tb.Fatal(err)
			}
			if !yield(p, d) {
				return
			}
		}
	}
}
