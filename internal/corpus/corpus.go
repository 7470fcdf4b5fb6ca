// Package corpus reads the labelled corpora of the evaluation (the format of
// DESIGN.md: DIR/manifest.tsv with the columns id, url, group and file, and
// the pages it names; a file ending in .gz is gunzipped), for the commands
// and for tests that measure on them.
package corpus

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

// Page is one manifest row with its bytes and its label.
type Page struct {
	ID, URL, Group string
	Raw            []byte
	// Dup: an earlier page of the manifest has the same group.
	Dup bool
}

// Read reads DIR/manifest.tsv and the pages it names, in order: all of them,
// or the first limit when limit > 0.
func Read(dir string, limit int) ([]Page, error) {
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var pages []Page
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
		pages = append(pages, Page{ID: cols[0], URL: cols[1], Group: cols[2], Raw: raw, Dup: seen[cols[2]]})
		seen[cols[2]] = true
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

// readPage reads a page file; a name ending in ".gz" is gunzipped.
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

// Dir returns the folder of the labelled corpus in language lang ("en",
// "zh") that a package's tests and benchmarks read: lang-dev under root
// (the labelled corpora beside the repository, named by their -corpus
// flag) when root is set, else lang-sample, which the repository holds,
// under examples/evaluate/testdata of up (the path from the package's
// folder to the repository's root).
func Dir(root, up, lang string) string {
	if root != "" {
		return filepath.Join(root, lang+"-dev")
	}
	return filepath.Join(up, "examples", "evaluate", "testdata", lang+"-sample")
}
