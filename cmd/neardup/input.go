package main

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// item is one page read from an input, before preprocessing.
type item struct {
	ID          string // folder-relative path, JSONL id or url, WARC-Target-URI, ...
	URL         string // may be empty; its host scopes the template model
	ContentType string // HTTP Content-Type (charset, media type); empty: sniffed
	Body        []byte
	Where       string // where the page starts: FILE, FILE:LINE or FILE@OFFSET
	// Path, Offset and Line locate the page in its file for an error
	// about it (an id used twice): the byte its record or line starts at
	// (uncompressed when Gz), -1 for a file that is one page; its line
	// in a JSONL file, or 0.
	Path   string
	Offset int64
	Gz     bool
	Line   int
	// Err is why the page cannot be judged. An *inputError means the input
	// itself is broken (the run fails); any other error refuses this page
	// only.
	Err  error
	Skip string // why this record is not a page (a WARC request, an image, ...)
	// Record is the WARC record the page came from, copied to a WARC -out
	// file as it was read.
	Record *warcRecord
	// jsonLine is the JSON line the page was read from, copied to a JSONL
	// -out file as it was read.
	jsonLine []byte
}

var (
	// errTruncated is an input that ends inside a record, a JSON line or
	// compressed data.
	errTruncated = errors.New("truncated")
	// errMalformed is an input that is not what its first bytes say.
	errMalformed = errors.New("malformed")
	// errTooLarge is a page above -maxbytes, refused before it is read whole.
	errTooLarge = errors.New("page larger than -maxbytes")
	// errReusedID is a page id that an earlier page of the run already has.
	errReusedID = errors.New("id already used")
	// errNoMatch is a path that neither exists nor matches a file as a glob.
	errNoMatch = errors.New("no such file, and no file matches it as a pattern")
)

// inputError is an input that could not be read: a missing or unreadable
// file, an I/O error, truncated or corrupt data. Offset is the byte of the
// file (as stored, before decompression) where the problem was found, or
// -1 when the problem is the file itself (missing, unreadable).
type inputError struct {
	Path   string
	Offset int64
	// Uncompressed is set when Offset counts the decompressed bytes of a
	// gzip file (the start of a record or line in it).
	Uncompressed bool
	Err          error
}

func (e *inputError) Error() string {
	switch {
	case e.Offset < 0:
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	case e.Uncompressed:
		return fmt.Sprintf("%s: uncompressed byte %d: %v", e.Path, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: byte %d: %v", e.Path, e.Offset, e.Err)
}

// pathError is an *inputError about the file path itself, at no offset.
func pathError(path string, err error) *inputError {
	return &inputError{Path: path, Offset: -1, Err: unwrapPath(err)}
}

func (e *inputError) Unwrap() error { return e.Err }

// failed reports whether err means the input is broken (the run fails).
func failed(err error) bool {
	var ie *inputError
	return errors.As(err, &ie)
}

// source is one input: a file, a file of a folder, or standard input.
type source struct {
	Path string // as named, or found in a folder; "-" is standard input
	ID   string // the page's id when the file is one page
	Size int64  // bytes as stored; -1 when unknown (standard input, a pipe)
	Skip string // why a file of a folder is not read (not a page by its name)
}

// readOptions are what every input reader needs.
type readOptions struct {
	MaxBytes int64             // largest page (decompressed)
	URLs     map[string]string // absolute file path → URL, from -manifest
	Stdin    io.Reader
	// Read counts the bytes read from the inputs as stored, for progress.
	Read *atomic.Int64
}

// hasMeta reports whether path holds a glob metacharacter.
func hasMeta(path string) bool { return strings.ContainsAny(path, "*?[") }

// expand turns the command's arguments into sources, in order: "-" is
// standard input; a folder is walked in lexical order (every regular file
// whose name does not start with a dot, but the files in skip; a file whose
// name says it is not a page is a source with Skip set); a path that does
// not exist but is a pattern is expanded as filepath.Glob does. A file's
// id is its path as given or found (filepath.Clean, with forward
// slashes), so that same-named files of two folders have distinct ids.
// Every path that is missing or cannot be opened is an error, all of them
// joined.
func expand(args []string, skip map[string]bool) ([]source, error) {
	var out []source
	var errs []error
	for _, a := range args {
		if a == "-" {
			out = append(out, source{Path: "-", ID: "-", Size: -1})
			continue
		}
		paths := []string{a}
		if _, err := os.Lstat(a); err != nil && hasMeta(a) {
			m, gerr := filepath.Glob(a)
			switch {
			case gerr != nil:
				errs = append(errs, pathError(a, gerr))
				continue
			case len(m) == 0:
				errs = append(errs, pathError(a, errNoMatch))
				continue
			}
			// As a shell does, a pattern matches hidden files only when it
			// says so.
			if !strings.HasPrefix(filepath.Base(a), ".") {
				m = slices.DeleteFunc(m, func(p string) bool { return strings.HasPrefix(filepath.Base(p), ".") })
			}
			if len(m) == 0 {
				errs = append(errs, pathError(a, errNoMatch))
				continue
			}
			paths = m
		}
		for _, p := range paths {
			srcs, err := expandPath(p, skip)
			out = append(out, srcs...)
			errs = append(errs, err...)
		}
	}
	return out, errors.Join(errs...)
}

func expandPath(p string, skip map[string]bool) ([]source, []error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, []error{pathError(p, err)}
	}
	if !fi.IsDir() {
		// Opened now, so that an unreadable file fails the run before any
		// page is judged.
		f, err := os.Open(p)
		if err != nil {
			return nil, []error{pathError(p, err)}
		}
		f.Close()
		size := int64(-1)
		if fi.Mode().IsRegular() {
			size = fi.Size()
		}
		return []source{{Path: p, ID: filepath.ToSlash(filepath.Clean(p)), Size: size}}, nil
	}
	var out []source
	var errs []error
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, pathError(path, err))
			return nil
		}
		if path != p && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if abs, err := filepath.Abs(path); err == nil && skip[abs] {
			return nil
		}
		id := filepath.ToSlash(filepath.Clean(path))
		if !pageName(d.Name()) {
			out = append(out, source{Path: path, ID: id, Skip: "not a page by its name (" + pageNames + ")"})
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			errs = append(errs, pathError(path, err))
			return nil
		}
		out = append(out, source{Path: path, ID: id, Size: fi.Size()})
		return nil
	})
	if err != nil {
		errs = append(errs, pathError(p, err))
	}
	return out, errs
}

// pageNames says which files of a folder are read: pageName's rule.
const pageNames = "a folder's files are read when named *.html, *.htm, *.xhtml, *.shtml, *.php, *.asp, *.aspx, *.jsp, *.txt, *.text, *.json, *.jsonl, *.ndjson or *.warc, each maybe .gz, or with no extension; name a file or a pattern to read any file"

// pageName reports whether a file of a folder named name is read: its
// extension (after a .gz one) names a page, a page format (JSON Lines,
// WARC), or it has none (a page saved under its URL's last segment). Other
// files (README.md, manifest.tsv, images, PDFs) are skipped: a folder of
// pages often holds them beside the pages. A file named on the command line
// or by a pattern is read whatever its name.
func pageName(name string) bool {
	name = strings.ToLower(name)
	name = strings.TrimSuffix(name, ".gz")
	switch filepath.Ext(name) {
	case "", ".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp",
		".txt", ".text", ".json", ".jsonl", ".ndjson", ".warc":
		return true
	}
	return false
}

// unwrapPath drops the *fs.PathError around err: inputError names the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// counter counts the bytes read through it, as stored, for offsets in
// error messages and for progress. It is a flate.Reader, so that a gzip
// reader reads it byte by byte without buffering ahead, and its count is
// the compressed data consumed.
type counter struct {
	r     *bufio.Reader
	n     int64
	total *atomic.Int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.total.Add(int64(n))
	return n, err
}

func (c *counter) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
		c.total.Add(1)
	}
	return b, err
}

var _ flate.Reader = (*counter)(nil)

// decoded is a source's content, decompressed when it is gzip data: its
// errors are *inputError with the offset in the file as stored.
type decoded struct {
	path string
	c    *counter
	r    io.Reader // c, or a gzip reader of c
	gz   bool
}

func (d *decoded) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		var ie *inputError
		if !errors.As(err, &ie) {
			if d.gz {
				err = gzipError(err)
			}
			err = &inputError{Path: d.path, Offset: d.c.n, Err: err}
		}
	}
	return n, err
}

// gzipError names what went wrong in gzip data.
func gzipError(err error) error {
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("gzip member %w", errTruncated)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, &ce):
		return fmt.Errorf("gzip data %w: %v", errMalformed, err)
	}
	return err
}

// input names a file being read, for error messages.
type input struct {
	path string
	gz   bool // gzip data: offsets in the content are uncompressed
}

// fail is an *inputError at byte off of the content; err is returned as
// it is when it already is one.
func (in input) fail(off int64, err error) error {
	if failed(err) {
		return err
	}
	return &inputError{Path: in.path, Offset: off, Uncompressed: in.gz, Err: err}
}

// readSource yields the pages of one source, its format found from its
// first bytes (after decompression when it is gzip data, a whole-file
// stream or one member per record alike). It returns false when yield does.
func readSource(src source, o readOptions, yield func(item) bool) bool {
	var f io.Reader
	if src.Path == "-" {
		f = o.Stdin
	} else {
		file, err := os.Open(src.Path)
		if err != nil {
			return yield(item{ID: src.ID, Where: src.Path, Err: pathError(src.Path, err)})
		}
		defer file.Close()
		f = file
	}
	c := &counter{r: bufio.NewReaderSize(f, 64<<10), total: o.Read}
	d := &decoded{path: src.Path, c: c, r: c}
	head, _ := c.r.Peek(2)
	if len(head) == 1 && head[0] == gzipMagic[0] {
		// The file ends inside gzip's magic number: a gzip file cut short.
		c.r.Discard(1)
		c.n++
		return yield(item{ID: src.ID, Where: src.Path, Err: &inputError{Path: src.Path, Offset: 1, Err: fmt.Errorf("gzip member %w", errTruncated)}})
	}
	if gzipped(head) {
		z, err := gzip.NewReader(c)
		if err != nil {
			return yield(item{ID: src.ID, Where: src.Path, Err: &inputError{Path: src.Path, Offset: c.n, Err: gzipError(err)}})
		}
		d.r, d.gz = z, true
	}
	br := bufio.NewReaderSize(d, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return yield(item{ID: src.ID, Where: src.Path, Err: err})
	}
	in := input{src.Path, d.gz}
	switch fm := sniff(head); fm {
	case formatWARC:
		return readWARC(in, br, o, yield)
	case formatJSONL:
		return readJSONL(in, br, o, yield)
	default:
		it := item{ID: src.ID, Where: src.Path, Path: src.Path, Offset: -1, Gz: d.gz, ContentType: fm.contentType()}
		if abs, err := filepath.Abs(src.Path); err == nil {
			it.URL = o.URLs[abs]
		}
		it.Body, it.Err = readLimited(br, o.MaxBytes)
		return yield(it)
	}
}

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

// jsonPage is one line of a JSONL input. id falls back to url, then to
// FILE:LINE; html is read as HTML, text as plain text, content by its
// content_type.
type jsonPage struct {
	ID          json.RawMessage `json:"id"`
	URL         string          `json:"url"`
	HTML        *string         `json:"html"`
	Text        *string         `json:"text"`
	Content     *string         `json:"content"`
	ContentType string          `json:"content_type"`
}

// readJSONL yields the pages of the JSONL stream r named path. A line that
// is not a JSON object (a file cut inside a line among them) is an
// *inputError naming its line and byte offset (uncompressed); the lines
// after it are still read.
func readJSONL(in input, r *bufio.Reader, o readOptions, yield func(item) bool) bool {
	path := in.path
	var off int64
	for line := 1; ; line++ {
		b, n, err := readLine(r, o.MaxBytes+1<<10)
		start := off
		off += n
		if err == io.EOF {
			return true
		}
		it := item{ID: fmt.Sprintf("%s:%d", path, line), Where: fmt.Sprintf("%s:%d", path, line),
			Path: path, Offset: start, Gz: in.gz, Line: line}
		switch {
		case errors.Is(err, errTooLarge):
			it.Err = err
			if !yield(it) {
				return false
			}
			continue
		case err != nil:
			it.Err = in.fail(start, err)
			return yield(it)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if !yield(jsonItem(in, it, b, start, o)) {
			return false
		}
	}
}

// readLine reads one line of at most limit bytes, and returns it and the
// number of bytes it consumed; a longer line is consumed and reported as
// errTooLarge.
func readLine(r *bufio.Reader, limit int64) ([]byte, int64, error) {
	var b []byte
	var n int64
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if int64(len(b)+len(chunk)) <= limit {
			b = append(b, chunk...)
		} else {
			for err == bufio.ErrBufferFull {
				chunk, err = r.ReadSlice('\n')
				n += int64(len(chunk))
			}
			if err == nil || err == io.EOF {
				return nil, n, errTooLarge
			}
			return nil, n, err
		}
		switch err {
		case nil:
			return b, n, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(b) == 0 {
				return nil, n, io.EOF
			}
			return b, n, nil
		default:
			return nil, n, err
		}
	}
}

func jsonItem(in input, it item, line []byte, off int64, o readOptions) item {
	var p jsonPage
	if err := json.Unmarshal(line, &p); err != nil {
		what := errMalformed
		if !bytes.HasSuffix(line, []byte("\n")) {
			what = errTruncated // the last line, cut short
		}
		it.Err = in.fail(off, fmt.Errorf("line %s: JSON %w: %v", it.Where[len(in.path)+1:], what, err))
		return it
	}
	switch id, err := jsonID(p.ID); {
	case err != nil:
		it.Err = err
		return it
	case id != "":
		it.ID = id
	case p.URL != "":
		it.ID = p.URL
	}
	it.URL = p.URL
	it.jsonLine = bytes.TrimRight(line, "\r\n")
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

// maxIDExponent bounds the exponent of a numeric JSON id, whose decimal
// text would otherwise be as long as the exponent is large (1e1000000).
const maxIDExponent = 1000

// maxIDDigits bounds the length of a numeric JSON id, whose exact decimal
// conversion costs more than linear time in it.
const maxIDDigits = 100

// jsonID is the id a JSON line's "id" value gives: a string as it is; a
// number as its decimal text, exact and without an exponent (7, 7.0 and
// 0.7e1 are all "7"; 12345678901234567891 stays whole; 2.50 is "2.5"), so
// that an id names the same page however its writer formats numbers; ""
// for null, an empty string or no "id" (the caller falls back to the url).
// An object, an array or a boolean is an error: it names no page.
func jsonID(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf(`JSON "id": %w`, err)
		}
		return s, nil
	case '{', '[', 't', 'f':
		kind := map[byte]string{'{': "an object", '[': "an array", 't': "a boolean", 'f': "a boolean"}[raw[0]]
		return "", fmt.Errorf(`JSON "id" is %s: want a string or a number`, kind)
	}
	// A JSON number (json.Unmarshal checked its syntax), of bounded length
	// so that its exact conversion stays cheap.
	num := string(raw)
	if len(num) > maxIDDigits {
		return "", fmt.Errorf(`JSON "id": a number of %d characters, more than %d`, len(num), maxIDDigits)
	}
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		if exp, err := strconv.Atoi(strings.TrimPrefix(num[i+1:], "+")); err != nil || exp > maxIDExponent || exp < -maxIDExponent {
			return "", fmt.Errorf(`JSON "id" %s: exponent beyond ±%d`, num, maxIDExponent)
		}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return "", fmt.Errorf(`JSON "id" %s: not a number`, num)
	}
	if r.IsInt() {
		return r.Num().String(), nil
	}
	// Enough decimals for the exact value (its denominator divides a power
	// of ten of at most len(num)+maxIDExponent digits), trailing zeros cut.
	// (maxIDDigits bounds len(num).)
	return strings.TrimRight(r.FloatString(len(num)+maxIDExponent), "0"), nil
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
