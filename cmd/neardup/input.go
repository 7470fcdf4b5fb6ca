package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
)

// item is one page read from an input, before preprocessing.
type item struct {
	ID          string // file path, JSONL id or url, WARC-Target-URI
	URL         string // may be empty; its host scopes the template model
	ContentType string // HTTP Content-Type (charset, media type); may be empty
	Body        []byte
	Err         error // the page could not be read; Body is nil
	Skip        string
}

// errTooLarge is an input page above -maxbytes, reported before it is read
// whole.
var errTooLarge = errors.New("page larger than -maxbytes")

// readLimited reads r up to limit bytes; more is errTooLarge.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

// inputs yields the pages of every path in order: a directory is walked in
// lexical order (files ending .html, .htm, .xhtml, .txt, each optionally
// .gz); a file ending .jsonl or .jsonl.gz is read line by line; a file ending
// .warc or .warc.gz is read record by record; any other file is one page.
func inputs(paths []string, o readOptions) iter.Seq[item] {
	return func(yield func(item) bool) {
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				if !yield(item{ID: p, Err: err}) {
					return
				}
				continue
			}
			var seq iter.Seq[item]
			switch name := strings.TrimSuffix(strings.ToLower(p), ".gz"); {
			case fi.IsDir():
				seq = folder(p, o)
			case strings.HasSuffix(name, ".jsonl"):
				seq = fromFile(p, o, readJSONL)
			case strings.HasSuffix(name, ".warc"):
				seq = fromFile(p, o, readWARC)
			default:
				seq = oneFile(p, p, "", o)
			}
			for it := range seq {
				if !yield(it) {
					return
				}
			}
		}
	}
}

// readOptions are what every input reader needs.
type readOptions struct {
	MaxBytes int64             // largest page (decompressed)
	URLs     map[string]string // absolute file path → URL, from -manifest
}

// pageFile reports whether a folder's file is read as a page.
func pageFile(name string) bool {
	switch filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")) {
	case ".html", ".htm", ".xhtml", ".txt":
		return true
	}
	return false
}

// contentTypeOf is the media type a file's name implies.
func contentTypeOf(name string) string {
	if filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")) == ".txt" {
		return "text/plain"
	}
	return "text/html"
}

// open opens a file, decompressing it when its name ends in .gz.
func open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".gz") || strings.HasSuffix(strings.ToLower(path), ".warc.gz") {
		return f, nil
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

func oneFile(path, id, url string, o readOptions) iter.Seq[item] {
	return func(yield func(item) bool) {
		it := item{ID: id, URL: url, ContentType: contentTypeOf(path)}
		f, err := open(path)
		if err == nil {
			it.Body, err = readLimited(f, o.MaxBytes)
			f.Close()
		}
		it.Err = err
		yield(it)
	}
}

func folder(root string, o readOptions) iter.Seq[item] {
	return func(yield func(item) bool) {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if !yield(item{ID: path, Err: err}) {
					return fs.SkipAll
				}
				return nil
			}
			if d.IsDir() || !d.Type().IsRegular() || !pageFile(d.Name()) {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				rel = path
			}
			rel = filepath.ToSlash(rel)
			abs, _ := filepath.Abs(path)
			stop := false
			for it := range oneFile(path, rel, o.URLs[abs], o) {
				stop = !yield(it)
			}
			if stop {
				return fs.SkipAll
			}
			return nil
		})
		if err != nil {
			yield(item{ID: root, Err: err})
		}
	}
}

// jsonPage is one line of a JSONL input. id falls back to url, then to the
// line number; html is read as HTML, text as plain text, content by its
// content_type.
type jsonPage struct {
	ID          json.RawMessage `json:"id"`
	URL         string          `json:"url"`
	HTML        *string         `json:"html"`
	Text        *string         `json:"text"`
	Content     *string         `json:"content"`
	ContentType string          `json:"content_type"`
}

// fromFile opens path (decompressing a .gz file but a .warc.gz) and yields
// the items read reads from it.
func fromFile(path string, o readOptions, read func(string, io.Reader, readOptions) iter.Seq[item]) iter.Seq[item] {
	return func(yield func(item) bool) {
		f, err := open(path)
		if err != nil {
			yield(item{ID: path, Err: err})
			return
		}
		defer f.Close()
		for it := range read(path, f, o) {
			if !yield(it) {
				return
			}
		}
	}
}

// readJSONL yields the pages of the JSONL stream f named path.
func readJSONL(path string, f io.Reader, o readOptions) iter.Seq[item] {
	return func(yield func(item) bool) {
		r := bufio.NewReaderSize(f, 1<<16)
		for line := 1; ; line++ {
			b, err := readLine(r, o.MaxBytes+1<<10)
			if err == io.EOF {
				return
			}
			it := item{ID: fmt.Sprintf("%s:%d", path, line)}
			if err != nil {
				it.Err = err
				if errors.Is(err, errTooLarge) {
					if !yield(it) {
						return
					}
					continue
				}
				yield(it)
				return
			}
			if len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			if !yield(jsonItem(it, b, o)) {
				return
			}
		}
	}
}

// readLine reads one line of at most limit bytes; a longer line is consumed
// and reported as errTooLarge.
func readLine(r *bufio.Reader, limit int64) ([]byte, error) {
	var b []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if int64(len(b)+len(chunk)) <= limit {
			b = append(b, chunk...)
		} else {
			b = b[:0]
			for err == bufio.ErrBufferFull {
				_, err = r.ReadSlice('\n')
			}
			if err == nil || err == io.EOF {
				return nil, errTooLarge
			}
			return nil, err
		}
		switch err {
		case nil:
			return b, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(b) == 0 {
				return nil, io.EOF
			}
			return b, nil
		default:
			return nil, err
		}
	}
}

func jsonItem(it item, line []byte, o readOptions) item {
	var p jsonPage
	if err := json.Unmarshal(line, &p); err != nil {
		it.Err = fmt.Errorf("JSON: %w", err)
		return it
	}
	switch id := bytes.TrimSpace(p.ID); {
	case len(id) == 0 || string(id) == "null":
		if p.URL != "" {
			it.ID = p.URL
		}
	case id[0] == '"':
		var s string
		if json.Unmarshal(id, &s) == nil && s != "" {
			it.ID = s
		}
	default:
		it.ID = string(id) // a number
	}
	it.URL = p.URL
	switch {
	case p.HTML != nil:
		it.Body, it.ContentType = []byte(*p.HTML), "text/html; charset=utf-8"
	case p.Text != nil:
		it.Body, it.ContentType = []byte(*p.Text), "text/plain; charset=utf-8"
	case p.Content != nil:
		it.Body, it.ContentType = []byte(*p.Content), p.ContentType
	default:
		it.Err = errors.New(`JSON line has no "html", "text" or "content" field`)
		return it
	}
	if int64(len(it.Body)) > o.MaxBytes {
		it.Body, it.Err = nil, errTooLarge
	}
	return it
}

// readManifest reads a TSV file whose header names a "file" column and a
// "url" column (the labelled corpora's manifest.tsv) into file → URL, each
// file's path made absolute from the manifest's folder.
func readManifest(path string) (map[string]string, error) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	fileCol, urlCol := -1, -1
	for i, h := range head {
		switch strings.TrimSpace(h) {
		case "file":
			fileCol = i
		case "url":
			urlCol = i
		}
	}
	if fileCol < 0 || urlCol < 0 {
		return nil, fmt.Errorf("manifest %s: the header needs \"file\" and \"url\" columns", path)
	}
	urls := make(map[string]string)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return urls, nil
		}
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", path, err)
		}
		if fileCol < len(rec) && urlCol < len(rec) {
			urls[filepath.Join(dir, filepath.FromSlash(rec[fileCol]))] = rec[urlCol]
		}
	}
}
