//go:build extractors

package main

import (
	"errors"
	"net/url"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/preprocess"
)

// samplePages reads the English sample corpus, by id.
func samplePages(tb testing.TB) ([]corpus.Page, map[string]corpus.Page) {
	tb.Helper()
	pages, err := corpus.Read("testdata/en-sample", 0)
	if err != nil {
		tb.Fatal(err)
	}
	byID := make(map[string]corpus.Page, len(pages))
	for _, p := range pages {
		byID[p.ID] = p
	}
	return pages, byID
}

// TestExtracted offers each extraction method a PostgreSQL manual page
// (p00062), its copy on another site with another template (p00116, same
// group) and a different manual page (p00007): the copy must be matched to
// the page, the different page kept. It also checks that the detector saw
// the extracted text (shorter than the whole page's, not none). It catches a
// wrapper that ignores the extraction (the text check) and one that matches
// everything or nothing.
func TestExtracted(t *testing.T) {
	_, byID := samplePages(t)
	var pipe preprocess.Pipeline
	doc := func(id string) *neardup.Document {
		p, ok := byID[id]
		if !ok {
			t.Fatalf("%s is not in the sample corpus", id)
		}
		d, err := neardup.NewDocument(&pipe, p.URL, p.URL, "", p.Raw)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, e := range extractors() {
		t.Run(e.name, func(t *testing.T) {
			x, err := newExtracted(e.extract)
			if err != nil {
				t.Fatal(err)
			}
			orig, cp, other := doc("p00062"), doc("p00116"), doc("p00007")

			c := x.content(orig)
			if c == orig {
				t.Fatalf("%s extracted nothing from %s", e.name, orig.ID)
			}
			if got, whole := len(c.Page.Tokens), len(orig.Page.Tokens); got == 0 || got >= whole {
				t.Errorf("extracted content has %d tokens, the whole page %d: want fewer, not none", got, whole)
			}

			if ms, added, err := x.MatchOrAdd(t.Context(), orig); err != nil || !added || len(ms) != 0 {
				t.Fatalf("first page: matches %v, added %t, %v", ms, added, err)
			}
			ms, err := x.Match(t.Context(), cp)
			if err != nil || len(ms) == 0 || ms[0].ID != orig.ID {
				t.Errorf("copy %s: matches %v, %v; want %s", cp.ID, ms, err, orig.ID)
			}
			if ms, added, err := x.MatchOrAdd(t.Context(), other); err != nil || !added || len(ms) != 0 {
				t.Errorf("different page %s: matches %v, added %t, %v; want kept", other.ID, ms, added, err)
			}
			if err := x.Add(t.Context(), cp); err != nil {
				t.Errorf("Add(copy): %v", err)
			}
		})
	}
}

// TestExtractedFallback checks that a page the extractor finds nothing in,
// fails on, or finds text in that preprocesses to nothing is handed to the
// inner detector as it is, and still matched: it catches a wrapper that
// drops such pages or hands over an empty document.
func TestExtractedFallback(t *testing.T) {
	_, byID := samplePages(t)
	var pipe preprocess.Pipeline
	p := byID["p00062"]
	for name, text := range map[string]string{"nothing": "", "blank": " \n\t ", "punctuation": "... --- !!!", "error": "error"} {
		t.Run(name, func(t *testing.T) {
			x, err := newExtracted(func([]byte, *url.URL) (string, error) {
				if text == "error" {
					return "", errors.New("extractor failed")
				}
				return text, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			d, err := neardup.NewDocument(&pipe, "a", p.URL, "", p.Raw)
			if err != nil {
				t.Fatal(err)
			}
			if x.content(d) != d {
				t.Fatalf("content replaced the page although the extractor gave %q", text)
			}
			if err := x.Add(t.Context(), d); err != nil {
				t.Fatal(err)
			}
			again, err := neardup.NewDocument(&pipe, "b", p.URL, "", p.Raw)
			if err != nil {
				t.Fatal(err)
			}
			if ms, err := x.Match(t.Context(), again); err != nil || len(ms) == 0 || ms[0].ID != "a" {
				t.Errorf("a second copy of the page: matches %v, %v; want a", ms, err)
			}
		})
	}
}

// TestExtractedConcurrent offers sample pages to one detector per library
// from several goroutines at once (run with -race): each offer must succeed,
// and afterwards each page must match a kept page (itself or its near-
// duplicate), which catches a lost Add.
func TestExtractedConcurrent(t *testing.T) {
	pages, _ := samplePages(t)
	pages = pages[:16]
	var pipe preprocess.Pipeline
	docs := make([]*neardup.Document, len(pages))
	for i, p := range pages {
		d, err := neardup.NewDocument(&pipe, p.ID, p.URL, "", p.Raw)
		if err != nil {
			t.Fatal(err)
		}
		docs[i] = d
	}
	for _, e := range extractors() {
		t.Run(e.name, func(t *testing.T) {
			x, err := newExtracted(e.extract)
			if err != nil {
				t.Fatal(err)
			}
			const workers = 4
			var wg sync.WaitGroup
			errs := make(chan error, len(docs))
			for w := range workers {
				wg.Go(func() {
					for i := w; i < len(docs); i += workers {
						if _, _, err := x.MatchOrAdd(t.Context(), docs[i]); err != nil {
							errs <- err
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			for _, d := range docs {
				if ms, err := x.Match(t.Context(), d); err != nil || len(ms) == 0 {
					t.Errorf("%s after the offers: matches %v, %v; want a kept page", d.ID, ms, err)
				}
			}
		})
	}
}
