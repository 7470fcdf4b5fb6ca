package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

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
