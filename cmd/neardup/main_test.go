package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/nlnwa/gowarc/v2"
)

// sample is the English sample corpus of examples/evaluate (real pages,
// labelled groups).
const sample = "../evaluate/testdata/en-sample"

type samplePage struct {
	ID, URL, Group string
	Body           []byte
}

// samplePages returns the sample pages of the given groups, in manifest
// order.
func samplePages(t testing.TB, groups ...string) []samplePage {
	t.Helper()
	f, err := os.Open(filepath.Join(sample, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []samplePage
	for _, rec := range recs[1:] {
		if !slices.Contains(groups, rec[2]) {
			continue
		}
		z, err := os.Open(filepath.Join(sample, rec[3]))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(z)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		z.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, samplePage{ID: rec[0], URL: rec[1], Group: rec[2], Body: b})
	}
	return out
}

// group is one line of the JSONL output.
type group struct {
	Kept       string `json:"kept"`
	Duplicates []struct {
		ID       string  `json:"id"`
		Distance float64 `json:"distance"`
		Measure  string  `json:"measure"`
	} `json:"duplicates"`
}

// runDedup runs the command and returns its groups and standard error.
func runDedup(t *testing.T, args ...string) ([]group, string) {
	t.Helper()
	var out, log bytes.Buffer
	if err := run(context.Background(), append([]string{"-progress", "0", "-v"}, args...), &out, &log); err != nil {
		t.Fatalf("dedup %v: %v\n%s", args, err, log.String())
	}
	var gs []group
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var g group
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		gs = append(gs, g)
	}
	return gs, log.String()
}

// want maps each near-duplicate to the page it is a near-duplicate of.
func pairs(gs []group) map[string]string {
	m := make(map[string]string)
	for _, g := range gs {
		for _, d := range g.Duplicates {
			m[d.ID] = g.Kept
		}
	}
	return m
}

// warcWriter writes WARC records, each its own gzip member as crawlers
// write them.
type warcWriter struct {
	t   *testing.T
	buf bytes.Buffer
	n   int
}

func (w *warcWriter) record(typ gowarc.RecordType, uri, contentType string, block []byte) {
	w.t.Helper()
	b := gowarc.NewRecordBuilder(typ)
	w.n++
	b.AddWarcHeader(gowarc.WarcRecordID, fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", w.n))
	b.AddWarcHeaderTime(gowarc.WarcDate, time.Date(2026, 11, 24, 12, 0, w.n, 0, time.UTC))
	if uri != "" {
		b.AddWarcHeader(gowarc.WarcTargetURI, uri)
	}
	b.AddWarcHeader(gowarc.ContentType, contentType)
	if _, err := b.Write(block); err != nil {
		w.t.Fatal(err)
	}
	rec, _, err := b.Build()
	if err != nil {
		w.t.Fatal(err)
	}
	defer rec.Close()
	z := gzip.NewWriter(&w.buf)
	if _, _, err := gowarc.NewMarshaler().Marshal(z, rec, 0); err != nil {
		w.t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		w.t.Fatal(err)
	}
}

func (w *warcWriter) response(uri string, status int, header string, body []byte) {
	w.t.Helper()
	msg := fmt.Sprintf("HTTP/1.1 %d %s\r\n%s\r\n", status, strings.ToUpper(fmt.Sprint(status)), header)
	w.record(gowarc.Response, uri, "application/http;msgtype=response", append([]byte(msg), body...))
}

func gzipped(t *testing.T, b []byte) []byte { return gzippedBytes(b) }

func gzippedBytes(b []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write(b)
	z.Close() // writes to memory: cannot fail
	return buf.Bytes()
}

func chunked(b []byte) []byte {
	var buf bytes.Buffer
	for len(b) > 0 {
		n := min(len(b), 1000)
		fmt.Fprintf(&buf, "%x\r\n%s\r\n", n, b[:n])
		b = b[n:]
	}
	buf.WriteString("0\r\n\r\n")
	return buf.Bytes()
}

// TestWARC runs the command on a WARC file of real pages stored the ways
// crawlers store them (plain, gzip content coding, chunked transfer coding,
// resource records), among records it must skip, and on the same pages as
// JSONL: the groups must be the same.
func TestWARC(t *testing.T) {
	// g00004: the PostgreSQL 15 SELECT page, a mirror in another template
	// and a print version; g00306 has five pages, g00007 two; g00011 and
	// g00012 are distinct pages.
	pages := samplePages(t, "g00004", "g00306", "g00007", "g00011", "g00012")
	if len(pages) != 12 {
		t.Fatalf("%d sample pages, want 12", len(pages))
	}
	w := &warcWriter{t: t}
	w.record(gowarc.Warcinfo, "", "application/warc-fields", []byte("software: neardup test\r\nformat: WARC File Format 1.1\r\n"))
	var lines bytes.Buffer
	enc := json.NewEncoder(&lines)
	group := make(map[string]string)
	for i, p := range pages {
		group[p.URL] = p.Group
		enc.Encode(map[string]string{"url": p.URL, "html": string(p.Body)})
		w.record(gowarc.Request, p.URL, "application/http;msgtype=request", []byte("GET / HTTP/1.1\r\nHost: example.org\r\n\r\n"))
		switch i % 4 {
		case 0:
			w.response(p.URL, 200, fmt.Sprintf("Content-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n", len(p.Body)), p.Body)
		case 1:
			z := gzipped(t, p.Body)
			w.response(p.URL, 200, fmt.Sprintf("Content-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n", len(z)), z)
		case 2:
			w.response(p.URL, 200, "Content-Type: text/html; charset=UTF-8\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", chunked(gzipped(t, p.Body)))
		case 3:
			w.record(gowarc.Resource, p.URL, "text/html", p.Body)
		}
	}
	// Records that are not pages.
	w.response("http://example.org/logo.png", 200, "Content-Type: image/png\r\nContent-Length: 4\r\n", []byte("\x89PNG"))
	w.response("http://example.org/missing", 404, "Content-Type: text/html\r\nContent-Length: 9\r\n", []byte("not found"))
	w.record(gowarc.Metadata, "http://example.org/", "application/warc-fields", []byte("via: http://example.org/\r\n"))
	w.response("http://example.org/br", 200, "Content-Type: text/html\r\nContent-Encoding: br\r\nContent-Length: 4\r\n", []byte("\x0b\x01\x80\x00"))

	dir := t.TempDir()
	warc, jsonl := filepath.Join(dir, "crawl.warc.gz"), filepath.Join(dir, "crawl.jsonl")
	if err := os.WriteFile(warc, w.buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jsonl, lines.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"recommended", "shingle", "simhash"} {
		t.Run(method, func(t *testing.T) {
			gs, log := runDedup(t, "-method", method, warc)
			want, _ := runDedup(t, "-method", method, jsonl)
			got := pairs(gs)
			if !equalMaps(got, pairs(want)) {
				t.Errorf("near-duplicates in the WARC %v\nin the JSONL %v", got, pairs(want))
			}
			right := 0
			for dup, kept := range got {
				if group[dup] == group[kept] {
					right++
				} else {
					t.Errorf("%s judged a near-duplicate of %s", dup, kept)
				}
			}
			// 7 near-duplicates in 3 groups.
			if right < 6 {
				t.Errorf("%d of the 7 near-duplicates found:\n%s", right, log)
			}
			for _, want := range []string{
				"12 pages", "1 errors", "16 skipped", // warcinfo, 12 requests, png, 404, metadata
				"skipped http://example.org/logo.png: media type image/png",
				"skipped http://example.org/missing: HTTP status 404",
				"skipped http://example.org/: metadata record",
				`error http://example.org/br: content coding "br": not supported`,
			} {
				if !strings.Contains(log, want) {
					t.Errorf("standard error lacks %q:\n%s", want, log)
				}
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// writePages writes pages as files of a folder (kept in order by name) and
// as a JSONL file, and a manifest of their URLs.
func writePages(t *testing.T, pages []samplePage) (dir, jsonl, manifest string) {
	root := t.TempDir()
	dir = filepath.Join(root, "pages")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var lines, man bytes.Buffer
	man.WriteString("id\turl\tfile\n")
	enc := json.NewEncoder(&lines)
	for i, p := range pages {
		name := fmt.Sprintf("%03d-%s.html", i, p.ID)
		if err := os.WriteFile(filepath.Join(dir, name), p.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		html := string(p.Body)
		enc.Encode(map[string]any{"id": name, "url": p.URL, "html": html})
		fmt.Fprintf(&man, "%s\t%s\tpages/%s\n", p.ID, p.URL, name)
	}
	jsonl = filepath.Join(root, "pages.jsonl")
	manifest = filepath.Join(root, "manifest.tsv")
	if err := os.WriteFile(jsonl, lines.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, man.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, jsonl, manifest
}

// TestFolderJSONLCSV: a folder with a manifest, the same pages as JSONL,
// and CSV output give the same groups, for every method.
func TestFolderJSONLCSV(t *testing.T) {
	pages := samplePages(t, "g00004", "g00306", "g00007", "g00046", "g00744")
	dir, jsonl, manifest := writePages(t, pages)
	for _, method := range []string{"recommended", "shingle", "simhash", "ssm", "editdist-latin"} {
		t.Run(method, func(t *testing.T) {
			byFolder, _ := runDedup(t, "-method", method, "-manifest", manifest, dir)
			byJSONL, _ := runDedup(t, "-method", method, jsonl)
			if a, b := pairs(byFolder), pairs(byJSONL); !equalMaps(a, b) || len(a) < 9 {
				t.Errorf("folder %v\nJSONL %v\n(want the same, with at least 9 of the 10 near-duplicates)", a, b)
			}
			var out, log bytes.Buffer
			if err := run(context.Background(), []string{"-progress", "0", "-method", method, "-format", "csv", "-workers", "1", jsonl}, &out, &log); err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(&out).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == 0 || strings.Join(rows[0], ",") != "kept,duplicate,distance,measure" {
				t.Fatalf("CSV header %v", rows)
			}
			fromCSV := make(map[string]string)
			for _, r := range rows[1:] {
				fromCSV[r[1]] = r[0]
			}
			if !equalMaps(fromCSV, pairs(byJSONL)) {
				t.Errorf("CSV %v, JSONL %v", fromCSV, pairs(byJSONL))
			}
		})
	}
}

// TestState: a second run with -state over the same pages finds every kept
// page known and the same near-duplicates.
func TestState(t *testing.T) {
	pages := samplePages(t, "g00004", "g00306", "g00007", "g00046")
	_, jsonl, _ := writePages(t, pages)
	state := filepath.Join(t.TempDir(), "state.snap")
	for _, method := range []string{"recommended", "shingle", "simhash"} {
		os.Remove(state)
		first, log1 := runDedup(t, "-method", method, "-state", state, jsonl)
		second, log2 := runDedup(t, "-method", method, "-state", state, jsonl)
		// The second run finds every page the first kept known (3 groups).
		var kept int
		if _, err := fmt.Sscanf(lastLine(log1)[strings.Index(lastLine(log1), ": ")+2:], "%d kept, 0 known", &kept); err != nil || kept < 3 ||
			!strings.Contains(log2, fmt.Sprintf("0 kept, %d known", kept)) {
			t.Errorf("%s: first run %q, second %q", method, lastLine(log1), lastLine(log2))
		}
		if a, b := pairs(first), pairs(second); !equalMaps(a, b) {
			t.Errorf("%s: first run %v, second %v", method, a, b)
		}
	}
	// A state of another method is refused, not misread.
	_, err := runErr("-method", "shingle", "-state", state, jsonl)
	if !errors.Is(err, neardup.ErrUnsupportedSnapshot) {
		t.Errorf("a simhash state loaded into a shingle run: %v", err)
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func runErr(args ...string) (string, error) {
	var out, log bytes.Buffer
	err := run(context.Background(), append([]string{"-progress", "0"}, args...), &out, &log)
	return log.String(), err
}

// TestBadInput: bad flags and paths are errors; bad pages are counted and
// reported, and the run goes on.
func TestBadInput(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-workers", "0", "."},
		{"-maxbytes", "0", "."},
		{"-format", "xml", "."},
		{"-method", "magic", "."},
		{"-manifest", "/nonexistent/manifest.tsv", "."},
	} {
		if _, err := runErr(args...); err == nil {
			t.Errorf("dedup %q: no error", args)
		}
	}
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "bad.jsonl")
	big := strings.Repeat("word ", 400)
	lines := strings.Join([]string{
		`{"id": "ok", "text": "a short page of plain text that is kept"}`,
		`{"id": "nocontent", "url": "http://example.org/"}`,
		`not json`,
		`{"id": 7, "html": ""}`,
		`{"id": "big", "text": "` + big + `"}`,
		`{"id": "binary", "content": "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008", "content_type": "text/plain"}`,
		``,
		`{"url": "http://example.org/x", "html": "<p>` + strings.Repeat("x", 3000) + `</p>"}`,
	}, "\n")
	if err := os.WriteFile(jsonl, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := runErr("-v", "-maxbytes", "1500", jsonl, filepath.Join(dir, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"kept ok",
		`error nocontent: JSON line has no "html", "text" or "content" field`,
		"error " + jsonl + ":3: JSON: ",
		"error 7: ",
		"error big: ",
		"error binary: ",
		"error " + jsonl + ":8: page larger than -maxbytes",
		"error " + filepath.Join(dir, "missing") + ": ",
		"3 pages", "1 kept", "7 errors",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("standard error lacks %q:\n%s", want, log)
		}
	}
}

// TestInterrupt: a cancelled run stops, saves its state and reports the
// cancellation.
func TestInterrupt(t *testing.T) {
	pages := samplePages(t, "g00004", "g00306")
	_, jsonl, _ := writePages(t, pages)
	state := filepath.Join(t.TempDir(), "state.snap")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, log bytes.Buffer
	err := run(ctx, []string{"-progress", "0", "-state", state, jsonl}, &out, &log)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run after cancel: %v", err)
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("state not saved on interrupt: %v", err)
	}
}

// TestCorpus runs the command on ../shared/corpus/en-dev as a folder, URLs
// from its manifest, and checks the groups against its labels.
func TestCorpus(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus", "en-dev")
	if _, err := os.Stat(filepath.Join(corpus, "manifest.tsv")); err != nil {
		t.Skip("../shared/corpus/en-dev is not beside the repository")
	}
	f, err := os.Open(filepath.Join(corpus, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(f)
	r.Comma = '\t'
	recs, err := r.ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	label := make(map[string]string) // file name → group
	size := make(map[string]int)
	for _, rec := range recs[1:] {
		label[filepath.Base(rec[3])] = rec[2]
		size[rec[2]]++
	}
	truth := 0
	for _, n := range size {
		truth += n - 1
	}
	gs, _ := runDedup(t, "-manifest", filepath.Join(corpus, "manifest.tsv"), filepath.Join(corpus, "pages"))
	right, wrong := 0, 0
	for dup, kept := range pairs(gs) {
		if label[filepath.Base(dup)] == label[filepath.Base(kept)] {
			right++
		} else {
			wrong++
		}
	}
	p, rec := float64(right)/float64(right+wrong), float64(right)/float64(truth)
	t.Logf("en-dev: %d near-duplicates found, %d in their page's group, %d not, of %d: precision %.4f, recall %.4f", right+wrong, right, wrong, truth, p, rec)
	if p < 0.99 || rec < 0.99 {
		t.Errorf("precision %.4f, recall %.4f: want both at least 0.99", p, rec)
	}
}
