package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// generates from seed (its defaults otherwise).
func syntheticSource(n int, seed int64) (source, error) {
	opts := synth.Options{Seed: seed, Pages: n}
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
	return source{name: fmt.Sprintf("synthetic-%d-seed%d", n, seed), n: n, all: all}, nil
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

// readCorpus reads DIR/manifest.tsv and the pages it names, in order.
func readCorpus(dir string, limit int) ([]page, error) {
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var pages []page
	seen := map[string]bool{}
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			if h := strings.Split(sc.Text(), "\t"); len(h) < 4 || h[0] != "id" || h[2] != "group" || h[3] != "file" {
				return nil, fmt.Errorf("manifest.tsv: header %q, want id<TAB>url<TAB>group<TAB>file", sc.Text())
			}
			continue
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 4 {
			return nil, fmt.Errorf("manifest.tsv:%d: %d columns, want 4", line, len(cols))
		}
		raw, err := readPage(filepath.Join(dir, filepath.FromSlash(cols[3])))
		if err != nil {
			return nil, fmt.Errorf("manifest.tsv:%d: %w", line, err)
		}
		p := page{id: cols[0], url: cols[1], group: cols[2], raw: raw, dup: seen[cols[2]]}
		seen[cols[2]] = true
		pages = append(pages, p)
		if limit > 0 && len(pages) == limit {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("%s: manifest lists no pages", dir)
	}
	return pages, nil
}

// readPage reads a page file; a name ending in ".gz" is gunzipped (the sample
// corpora in testdata are stored compressed).
func readPage(name string) ([]byte, error) {
	raw, err := os.ReadFile(name)
	if err != nil || !strings.HasSuffix(name, ".gz") {
		return raw, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
