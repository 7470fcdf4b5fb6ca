package main

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"mime"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup"
)

// emitter writes the near-duplicates to standard output: one line per
// near-duplicate as soon as it is judged (flushed, so a reader of the
// stream sees it at once), or with grouped set one line per group at the
// end.
type emitter struct {
	w       *bufio.Writer
	csv     *csv.Writer // nil for JSONL
	grouped bool
	order   []string // kept ids in the order they first got a near-duplicate
	groups  map[string][]dupEntry
	err     error
}

type dupEntry struct {
	ID       string  `json:"id"`
	Distance float64 `json:"distance"`
	Measure  string  `json:"measure"`
}

// dupLine is a streamed JSONL line.
type dupLine struct {
	Kept      string  `json:"kept"`
	Duplicate string  `json:"duplicate"`
	Distance  float64 `json:"distance"`
	Measure   string  `json:"measure"`
}

// groupLine is a JSONL line of -groups.
type groupLine struct {
	Kept       string     `json:"kept"`
	Duplicates []dupEntry `json:"duplicates"`
}

func newEmitter(w io.Writer, format string, grouped bool) *emitter {
	e := &emitter{w: bufio.NewWriter(w), grouped: grouped, groups: make(map[string][]dupEntry)}
	if format == "csv" {
		e.csv = csv.NewWriter(e.w)
		e.csv.Write([]string{"kept", "duplicate", "distance", "measure"})
	}
	return e
}

// dup records that id nearly duplicates the kept page kept.
func (e *emitter) dup(kept, id string, dist float64, measure string) error {
	dist = round(dist)
	if _, ok := e.groups[kept]; !ok {
		e.order = append(e.order, kept)
		e.groups[kept] = nil
	}
	if e.grouped {
		e.groups[kept] = append(e.groups[kept], dupEntry{id, dist, measure})
		return nil
	}
	e.line(kept, id, dist, measure)
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.err
}

func (e *emitter) line(kept, id string, dist float64, measure string) {
	if e.err != nil {
		return
	}
	if e.csv != nil {
		e.csv.Write([]string{kept, id, strconv.FormatFloat(dist, 'f', -1, 64), measure})
		e.csv.Flush()
		e.err = e.csv.Error()
		return
	}
	e.err = encode(e.w, dupLine{kept, id, dist, measure})
}

func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (e *emitter) groupCount() int { return len(e.order) }

// close writes the groups (with -groups) and flushes.
func (e *emitter) close() error {
	if e.grouped {
		for _, k := range e.order {
			if e.csv != nil {
				for _, d := range e.groups[k] {
					e.line(k, d.ID, d.Distance, d.Measure)
				}
			} else if e.err == nil {
				e.err = encode(e.w, groupLine{k, e.groups[k]})
			}
		}
	}
	if e.csv != nil && e.err == nil {
		e.csv.Flush()
		e.err = e.csv.Error()
	}
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.err
}

// pageWriter writes the deduplicated pages to a temporary file beside name,
// renamed to name by commit: a run that fails leaves no -out file.
type pageWriter struct {
	name string
	f    *os.File
	buf  *bufio.Writer
	warc bool
	gz   bool
	now  time.Time
}

func createPageWriter(name string) (*pageWriter, error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, "."+base+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("-out %s: %w", name, err)
	}
	// As os.Create does, a file that exists keeps its permissions.
	if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, fmt.Errorf("-out %s: %w", name, err)
		}
	}
	lower := strings.ToLower(name)
	return &pageWriter{name: name, f: f, buf: bufio.NewWriterSize(f, 1<<16),
		warc: strings.HasSuffix(strings.TrimSuffix(lower, ".gz"), ".warc"),
		gz:   strings.HasSuffix(lower, ".gz"), now: time.Now()}, nil
}

// write writes one page: a WARC record (the record it was read from, or a
// resource record), each its own gzip member in a .warc.gz file; or a JSON
// line (the line it was read from, or an object with "id", "url" and
// "html" or "text", or "content" and "content_type"; a page whose bytes are
// not UTF-8 is written as the text the preprocessor extracted from it).
func (p *pageWriter) write(it item, doc *neardup.Document) error {
	var w io.Writer = p.buf
	var z *gzip.Writer
	if p.gz {
		z = gzip.NewWriter(p.buf)
		w = z
	}
	var err error
	if p.warc {
		err = writeWARCRecord(w, it, p.now)
	} else {
		err = encode(w, jsonOut(it, doc))
	}
	if z != nil {
		if cerr := z.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("-out %s: %w", p.name, err)
	}
	return nil
}

// jsonOut is the JSON object written for a kept page.
func jsonOut(it item, doc *neardup.Document) any {
	if it.Record == nil && it.jsonLine != nil {
		return json.RawMessage(it.jsonLine)
	}
	o := map[string]string{"id": it.ID}
	if it.URL != "" {
		o["url"] = it.URL
	}
	mt, _, _ := mime.ParseMediaType(it.ContentType)
	switch {
	case !utf8.Valid(it.Body) && doc != nil && doc.Page != nil:
		o["text"] = doc.Page.Text
	case mt == "text/html" || mt == "application/xhtml+xml":
		o["html"] = string(it.Body)
	case mt == "text/plain":
		o["text"] = string(it.Body)
	default:
		o["content"] = string(it.Body)
		if it.ContentType != "" {
			o["content_type"] = it.ContentType
		}
	}
	return o
}

// commit writes the file under its name.
func (p *pageWriter) commit() error {
	err := p.buf.Flush()
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.f.Name(), p.name)
	}
	if err != nil {
		os.Remove(p.f.Name())
		return fmt.Errorf("-out %s: %w", p.name, err)
	}
	p.f = nil
	return nil
}

// abort removes the temporary file, unless commit renamed it.
func (p *pageWriter) abort() {
	if p.f != nil {
		p.f.Close()
		os.Remove(p.f.Name())
		p.f = nil
	}
}

// createTemp creates a new file in dir whose name starts with prefix, with
// mode 0666 less the umask as os.Create gives (os.CreateTemp gives 0600),
// so that a file the command writes is readable as other files are, by
// another user too (an indexer) when the umask allows it.
func createTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("creating a temporary file in %s: %w", dir, fs.ErrExist)
}

// saveState saves p to the file name with neardup.SaveFile, which keeps
// the permissions of a file it replaces; a new file gets mode 0666 less
// the umask, as os.Create gives and as -out gets (SaveFile creates it 0644
// less the umask).
func saveState(name string, p io.WriterTo) error {
	_, statErr := os.Stat(name)
	if err := neardup.SaveFile(name, p); err != nil {
		return err
	}
	if !errors.Is(statErr, fs.ErrNotExist) {
		return nil
	}
	// The mode a new file gets here: a probe file made as os.Create makes one.
	probe, err := createTemp(filepath.Dir(name), ".neardup-mode-")
	if err != nil {
		return err
	}
	fi, err := probe.Stat()
	probe.Close()
	os.Remove(probe.Name())
	if err != nil {
		return err
	}
	return os.Chmod(name, fi.Mode().Perm())
}
