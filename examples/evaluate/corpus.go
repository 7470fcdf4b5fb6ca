package main

import (
	"fmt"
	"iter"
	"slices"

	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/internal/synth"
)

// source is the pages of an evaluation, n of them in order: all yields them
// afresh on each call, from a manifest read into memory or from a generated
// crawl generated again, which is never held in memory.
type source struct {
	name string // for plot titles
	n    int
	all  iter.Seq[page]
}

// pagesSource is a source over pages in memory.
func pagesSource(name string, pages []page) source {
	return source{name: name, n: len(pages), all: slices.Values(pages)}
}

// syntheticSource is the first n pages of the crawl internal/synth
// generates from seed with text (its defaults otherwise; "bigram": text
// from the bigram model over 20,000 hosts, as minhash's BenchmarkScale).
func syntheticSource(n int, seed int64, text string) (source, error) {
	opts := synth.Options{Seed: seed, Pages: n}
	switch text {
	case "", "words":
	case "bigram":
		opts.Text, opts.Hosts = synth.Bigram, 20_000
	default:
		return source{}, fmt.Errorf("-synthtext %q: want words or bigram", text)
	}
	if _, err := synth.New(opts); err != nil {
		return source{}, err
	}
	all := func(yield func(page) bool) {
		c, err := synth.New(opts)
		if err != nil {
			return // validated above
		}
		for p, ok := c.Next(); ok; p, ok = c.Next() {
			if !yield(page{id: p.ID, url: p.URL, group: p.GroupLabel(), raw: p.HTML, dup: p.Duplicate()}) {
				return
			}
		}
	}
	name := fmt.Sprintf("synthetic-%d-seed%d", n, seed)
	if opts.Text == synth.Bigram {
		name += "-bigram"
	}
	return source{name: name, n: n, all: all}, nil
}

// prefix is the first n pages of s.
func (s source) prefix(n int) source {
	n = min(n, s.n)
	all := func(yield func(page) bool) {
		i := 0
		for p := range s.all {
			if i == n || !yield(p) {
				return
			}
			i++
		}
	}
	return source{name: s.name, n: n, all: all}
}

// head collects the first n pages of s.
func (s source) head(n int) []page {
	return slices.Collect(s.prefix(n).all)
}

// page is one manifest row with its bytes and its label.
type page struct {
	id, url, group string
	raw            []byte
	dup            bool // an earlier page has the same group
}

// readCorpus reads DIR/manifest.tsv and the pages it names, in order (all,
// or the first limit when limit > 0), with internal/corpus.Read.
func readCorpus(dir string, limit int) ([]page, error) {
	rows, err := corpus.Read(dir, limit)
	if err != nil {
		return nil, err
	}
	pages := make([]page, len(rows))
	for i, r := range rows {
		pages[i] = page{id: r.ID, url: r.URL, group: r.Group, raw: r.Raw, dup: r.Dup}
	}
	return pages, nil
}
