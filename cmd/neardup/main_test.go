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

	"github.com/neardup/neardup"
)

// sample is the English sample corpus of examples/evaluate (real pages,
// labelled groups).
const sample = "../../examples/evaluate/testdata/en-sample"

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

// runDedup runs the command with -groups and returns its groups and
// standard error.
func runDedup(t *testing.T, args ...string) ([]group, string) {
	t.Helper()
	var out, log bytes.Buffer
	if err := run(context.Background(), append([]string{"-groups", "-v"}, args...), nil, &out, &log); err != nil {
		t.Fatalf("neardup %v: %v\n%s", args, err, log.String())
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
// write them, or plain.
type warcWriter struct {
	t     *testing.T
	buf   bytes.Buffer
	n     int
	plain bool
}

func (w *warcWriter) record(typ, uri, contentType string, block []byte) {
	w.t.Helper()
	w.n++
	var rec bytes.Buffer
	fmt.Fprintf(&rec, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\nWARC-Date: 2026-11-24T12:00:%02dZ\r\n", typ, w.n, w.n%60)
	if uri != "" {
		fmt.Fprintf(&rec, "WARC-Target-URI: %s\r\n", uri)
	}
	fmt.Fprintf(&rec, "Content-Type: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", contentType, len(block), block)
	if w.plain {
		w.buf.Write(rec.Bytes())
		return
	}
	w.buf.Write(gzippedBytes(rec.Bytes()))
}

func (w *warcWriter) response(uri string, status int, header string, body []byte) {
	w.t.Helper()
	msg := fmt.Sprintf("HTTP/1.1 %d %s\r\n%s\r\n", status, strings.ToUpper(fmt.Sprint(status)), header)
	w.record("response", uri, "application/http;msgtype=response", append([]byte(msg), body...))
}

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
	w.record("warcinfo", "", "application/warc-fields", []byte("software: neardup test\r\nformat: WARC File Format 1.1\r\n"))
	var lines bytes.Buffer
	enc := json.NewEncoder(&lines)
	group := make(map[string]string)
	for i, p := range pages {
		group[p.URL] = p.Group
		enc.Encode(map[string]string{"url": p.URL, "html": string(p.Body)})
		w.record("request", p.URL, "application/http;msgtype=request", []byte("GET / HTTP/1.1\r\nHost: example.org\r\n\r\n"))
		switch i % 4 {
		case 0:
			w.response(p.URL, 200, fmt.Sprintf("Content-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n", len(p.Body)), p.Body)
		case 1:
			z := gzippedBytes(p.Body)
			w.response(p.URL, 200, fmt.Sprintf("Content-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n", len(z)), z)
		case 2:
			w.response(p.URL, 200, "Content-Type: text/html; charset=UTF-8\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", chunked(gzippedBytes(p.Body)))
		case 3:
			w.record("resource", p.URL, "text/html", p.Body)
		}
	}
	// Records that are not pages.
	w.response("http://example.org/logo.png", 200, "Content-Type: image/png\r\nContent-Length: 4\r\n", []byte("\x89PNG"))
	w.response("http://example.org/missing", 404, "Content-Type: text/html\r\nContent-Length: 9\r\n", []byte("not found"))
	w.record("metadata", "http://example.org/", "application/warc-fields", []byte("via: http://example.org/\r\n"))
	w.response("http://example.org/br", 200, "Content-Type: text/html\r\nContent-Encoding: br\r\nContent-Length: 4\r\n", []byte("\x0b\x01\x80\x00"))

	// The same records plain, and the plain file gzipped whole; the names
	// say nothing of the format, which is read from the content.
	plain := &warcWriter{t: t, plain: true}
	plain.record("warcinfo", "", "application/warc-fields", []byte("software: neardup test\r\n"))
	dir := t.TempDir()
	files := map[string][]byte{
		"crawl.warc.gz": w.buf.Bytes(),
		"crawl.jsonl":   lines.Bytes(),
	}
	var whole bytes.Buffer
	z := gzip.NewReader
	zr, err := z(bytes.NewReader(w.buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(&whole, zr); err != nil {
		t.Fatal(err)
	}
	files["plain-warc.data"] = whole.Bytes()
	files["whole-file-gzip.data"] = gzippedBytes(whole.Bytes())
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, method := range []string{"minhash", "shingle", "simhash"} {
		t.Run(method, func(t *testing.T) {
			want, _ := runDedup(t, "-method", method, filepath.Join(dir, "crawl.jsonl"))
			for _, name := range []string{"crawl.warc.gz", "plain-warc.data", "whole-file-gzip.data"} {
				gs, log := runDedup(t, "-method", method, filepath.Join(dir, name))
				got := pairs(gs)
				if !equalMaps(got, pairs(want)) {
					t.Errorf("%s: near-duplicates in the WARC %v\nin the JSONL %v", name, got, pairs(want))
				}
				right := 0
				for dup, kept := range got {
					if group[dup] == group[kept] {
						right++
					} else {
						t.Errorf("%s: %s judged a near-duplicate of %s", name, dup, kept)
					}
				}
				// 7 near-duplicates in 3 groups.
				if right < 6 {
					t.Errorf("%s: %d of the 7 near-duplicates found:\n%s", name, right, log)
				}
				for _, want := range []string{
					"12 pages", "1 refused", "16 skipped", // warcinfo, 12 requests, png, 404, metadata
					"skipped http://example.org/logo.png: media type image/png",
					"skipped http://example.org/missing: HTTP status 404",
					"skipped http://example.org/: metadata record",
					`refused http://example.org/br (`, `content coding "br": not supported`,
				} {
					if !strings.Contains(log, want) {
						t.Errorf("%s: standard error lacks %q:\n%s", name, want, log)
					}
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
// as a JSONL file whose ids are the files' ids (their paths), and a
// manifest of their URLs.
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
		enc.Encode(map[string]any{"id": filepath.ToSlash(filepath.Join(dir, name)), "url": p.URL, "html": html})
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
	for _, method := range []string{"minhash", "recommended", "shingle", "simhash", "ssm", "editdist-latin"} {
		t.Run(method, func(t *testing.T) {
			byFolder, _ := runDedup(t, "-method", method, "-manifest", manifest, dir)
			byJSONL, _ := runDedup(t, "-method", method, jsonl)
			if a, b := pairs(byFolder), pairs(byJSONL); !equalMaps(a, b) || len(a) < 9 {
				t.Errorf("folder %v\nJSONL %v\n(want the same, with at least 9 of the 10 near-duplicates)", a, b)
			}
			var out, log bytes.Buffer
			if err := run(context.Background(), []string{"-method", method, "-format", "csv", "-workers", "1", jsonl}, nil, &out, &log); err != nil {
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

// TestStateIdempotent: runs with -state over unchanged pages keep no new
// page, find every page kept by the first run known, and give every
// near-duplicate its first verdict, run after run.
func TestStateIdempotent(t *testing.T) {
	pages := samplePages(t, "g00004", "g00306", "g00007", "g00046", "g00744", "g00011", "g00012")
	_, jsonl, _ := writePages(t, pages)
	state := filepath.Join(t.TempDir(), "state.snap")
	for _, method := range []string{"minhash", "shingle", "simhash"} {
		t.Run(method, func(t *testing.T) {
			os.Remove(state)
			first, log1 := runDedup(t, "-method", method, "-state", state, jsonl)
			var kept, dups int
			if _, err := fmt.Sscanf(summaryLine(log1), "%d pages: %d kept, 0 known, %d near-duplicates", new(int), &kept, &dups); err != nil || kept < 5 || dups < 8 {
				t.Fatalf("first run: %q (%v)", summaryLine(log1), err)
			}
			for r := 2; r <= 3; r++ {
				again, log := runDedup(t, "-method", method, "-state", state, jsonl)
				if want := fmt.Sprintf("%d pages: 0 kept, %d known, %d near-duplicates", len(pages), kept, dups); !strings.HasPrefix(summaryLine(log), want) {
					t.Errorf("run %d: %q, want %q", r, summaryLine(log), want)
				}
				if a, b := pairs(first), pairs(again); !equalMaps(a, b) {
					t.Errorf("run %d: near-duplicates %v, first run %v", r, b, a)
				}
			}
		})
	}
	// A state of another method is refused, not misread.
	_, err := runErr("-method", "shingle", "-state", state, jsonl)
	if !errors.Is(err, neardup.ErrUnsupportedSnapshot) {
		t.Errorf("a simhash state loaded into a shingle run: %v", err)
	}
}

// summaryLine is the line of standard error that counts the pages.
func summaryLine(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, " pages: ") && strings.Contains(l, " groups with near-duplicates") {
			return l
		}
	}
	return ""
}

func runErr(args ...string) (string, error) {
	var out, log bytes.Buffer
	err := run(context.Background(), args, nil, &out, &log)
	return log.String(), err
}

// TestBadFlags: bad flags are errors; -h is not.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-workers", "0", "."},
		{"-maxbytes", "0", "."},
		{"-format", "xml", "."},
		{"-progress", "sometimes", "."},
		{"-method", "magic", "."},
		{"-manifest", "/nonexistent/manifest.tsv", "."},
		{"-nosuchflag", "."},
	} {
		if _, err := runErr(args...); err == nil {
			t.Errorf("neardup %q: no error", args)
		}
	}
}

// TestHelp: -h prints the usage and succeeds (exit status 0).
func TestHelp(t *testing.T) {
	for _, h := range []string{"-h", "-help", "--help"} {
		log, err := runErr(h)
		if err != nil {
			t.Errorf("%s: %v", h, err)
		}
		if !strings.Contains(log, "usage: neardup [flags] PATH...") || !strings.Contains(log, "-state") {
			t.Errorf("%s: usage lacks its first line or a flag:\n%s", h, log)
		}
	}
}

// TestBadPages: pages that cannot be judged are refused, each reported
// with where it is, and the run goes on and succeeds.
func TestBadPages(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "bad.jsonl")
	big := strings.Repeat("word ", 400)
	lines := strings.Join([]string{
		`{"id": "ok", "text": "a short page of plain text that is kept"}`,
		`{"id": "nocontent", "url": "http://example.org/"}`,
		`{"id": 7, "html": ""}`,
		`{"id": "big", "text": "` + big + `"}`,
		`{"id": "binary", "content": "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008", "content_type": "text/plain"}`,
		``,
		`{"url": "http://example.org/x", "html": "<p>` + strings.Repeat("x", 3000) + `</p>"}`,
	}, "\n") + "\n"
	if err := os.WriteFile(jsonl, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := runErr("-v", "-maxbytes", "1500", jsonl)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	for _, want := range []string{
		"kept ok",
		"refused nocontent (" + jsonl + `:2): JSON line has no "html", "text" or "content" field`,
		"refused 7 (" + jsonl + ":3): ",
		"refused big (" + jsonl + ":4): ",
		"refused binary (" + jsonl + ":5): ",
		"refused " + jsonl + ":7 (" + jsonl + ":7): page larger than -maxbytes",
		"1 pages: 1 kept", "5 refused",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("standard error lacks %q:\n%s", want, log)
		}
	}
}

// TestInputFailures: a missing, unreadable or truncated input makes the run
// fail, naming the file and the byte offset, and writes neither the state
// nor the -out file; an existing state is left as it was.
func TestInputFailures(t *testing.T) {
	dir := t.TempDir()
	pages := samplePages(t, "g00004", "g00007")
	good := filepath.Join(dir, "good.jsonl")
	var lines bytes.Buffer
	for _, p := range pages {
		json.NewEncoder(&lines).Encode(map[string]string{"url": p.URL, "html": string(p.Body)})
	}
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("good.jsonl", lines.Bytes())
	// The same pages under other ids, for the broken JSONL files.
	var other bytes.Buffer
	for i, p := range pages {
		json.NewEncoder(&other).Encode(map[string]string{"id": fmt.Sprint("other-", i), "html": string(p.Body)})
	}
	w := &warcWriter{t: t, plain: true}
	for _, p := range pages {
		w.record("resource", p.URL, "text/html", p.Body)
	}
	plainWARC := w.buf.Bytes()
	zw := &warcWriter{t: t}
	for _, p := range pages {
		zw.record("resource", p.URL, "text/html", p.Body)
	}
	gzWARC := zw.buf.Bytes()
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	cutAt := len(plainWARC) * 2 / 3
	for _, c := range []struct {
		name string
		path string
		want []string // in standard error
	}{
		{"missing", filepath.Join(dir, "mistyped.jsonl"), []string{"/mistyped.jsonl: no such file or directory"}},
		{"no glob match", filepath.Join(dir, "nothing-*.warc"), []string{"/nothing-*.warc: no such file, and no file matches it as a pattern"}},
		{"unreadable", loop, []string{"/loop: too many levels of symbolic links"}},
		{"WARC cut in a block", write("cut.warc", plainWARC[:cutAt]), []string{"cut.warc: byte ", "block truncated: Content-Length "}},
		{"WARC cut in a header", write("cuthead.warc", plainWARC[:len(plainWARC)/2+bytes.Index(plainWARC[len(plainWARC)/2:], []byte("WARC/1.1"))+20]), []string{"cuthead.warc: byte ", "header truncated"}},
		{"WARC without its end", write("noend.warc", plainWARC[:len(plainWARC)-4]), []string{"noend.warc: byte ", "record end truncated"}},
		{"gzip WARC cut in a member", write("cut.warc.gz", gzWARC[:len(gzWARC)-100]), []string{fmt.Sprintf("cut.warc.gz: byte %d: gzip member truncated (in the WARC record at uncompressed byte ", len(gzWARC)-100)}},
		{"gzip WARC cut in a trailer", write("cuttrailer.warc.gz", gzWARC[:len(gzWARC)-3]), []string{"cuttrailer.warc.gz: byte ", "gzip member truncated"}},
		{"JSONL cut in a line", write("cut.jsonl", other.Bytes()[:other.Len()-50]), []string{"cut.jsonl: byte ", "line 5: JSON truncated"}},
		{"JSONL bad line", write("bad.jsonl", append([]byte(`{"id":"x","text":"a page"}`+"\nnot json\n"), other.Bytes()...)), []string{"bad.jsonl: byte 27: line 2: JSON malformed"}},
		{"gzip JSONL cut", write("cut.jsonl.gz", gzippedBytes(other.Bytes())[:200]), []string{"cut.jsonl.gz: byte ", "gzip member truncated"}},
		{"gzip page cut", write("page.gz", gzippedBytes(pages[0].Body)[:300]), []string{"page.gz: byte ", "gzip member truncated"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.snap")
			out := filepath.Join(t.TempDir(), "kept.jsonl")
			log, err := runErr("-state", state, "-out", out, good, c.path)
			if err == nil {
				t.Fatalf("no error:\n%s", log)
			}
			msg := log + err.Error()
			for _, want := range c.want {
				if !strings.Contains(msg, want) {
					t.Errorf("error and standard error lack %q:\n%s\n%v", want, log, err)
				}
			}
			for _, f := range []string{state, out} {
				if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s written after a failure (%v)", filepath.Base(f), err)
				}
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
				t.Errorf("files left beside -out: %v", entries)
			}
		})
	}
	// A state saved by a good run is left as it was by a failed one.
	state := filepath.Join(t.TempDir(), "state.snap")
	if log, err := runErr("-state", state, good); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	before, _ := os.ReadFile(state)
	if _, err := runErr("-state", state, write("cut2.jsonl", other.Bytes()[:other.Len()-50])); err == nil {
		t.Fatal("no error")
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(before, after) {
		t.Error("the state changed after a failed run")
	}
}

// TestReusedID: a JSONL id used twice fails the run, naming both lines and
// the byte offset of the second.
func TestReusedID(t *testing.T) {
	jsonl := filepath.Join(t.TempDir(), "twice.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"id":"a","text":"the first page about gardens"}`+"\n"+`{"id":"a","text":"another page about the sea"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := runErr(jsonl)
	if err == nil {
		t.Fatalf("no error:\n%s", log)
	}
	if want := fmt.Sprintf(`%s: byte 49: line 2: id already used: "a" (first at %s:1)`, jsonl, jsonl); !strings.Contains(log, want) {
		t.Errorf("standard error lacks %q:\n%s", want, log)
	}
}

// TestStdin: JSONL on standard input ("-"), gzipped or not, is read as a
// file is.
func TestStdin(t *testing.T) {
	pages := samplePages(t, "g00004", "g00007")
	var lines bytes.Buffer
	for _, p := range pages {
		json.NewEncoder(&lines).Encode(map[string]string{"url": p.URL, "html": string(p.Body)})
	}
	path := filepath.Join(t.TempDir(), "pages.ndjson")
	if err := os.WriteFile(path, lines.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	want, _ := runDedup(t, path)
	if len(pairs(want)) < 3 {
		t.Fatalf("from the file: %v", pairs(want))
	}
	for name, in := range map[string][]byte{"plain": lines.Bytes(), "gzip": gzippedBytes(lines.Bytes())} {
		var out, log bytes.Buffer
		if err := run(context.Background(), []string{"-groups", "-"}, bytes.NewReader(in), &out, &log); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log.String())
		}
		var gs []group
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var g group
			if err := json.Unmarshal([]byte(l), &g); err != nil {
				t.Fatal(err)
			}
			gs = append(gs, g)
		}
		if !equalMaps(pairs(gs), pairs(want)) {
			t.Errorf("%s: from standard input %v, from the file %v", name, pairs(gs), pairs(want))
		}
	}
}

// TestStreaming: a near-duplicate's line is written as soon as it is
// judged, while the input is still open.
func TestStreaming(t *testing.T) {
	pages := samplePages(t, "g00004")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := run(context.Background(), []string{"-workers", "1", "-"}, inR, outW, io.Discard)
		outW.CloseWithError(err)
		errc <- err
	}()
	go func() {
		for _, p := range pages[:2] {
			json.NewEncoder(inW).Encode(map[string]string{"url": p.URL, "html": string(p.Body)})
		}
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Kept, Duplicate string
		Distance        float64
	}
	if err := json.Unmarshal([]byte(line), &d); err != nil || d.Kept != pages[0].URL || d.Duplicate != pages[1].URL {
		t.Errorf("first line %q (%v), want %s a near-duplicate of %s", line, err, pages[1].URL, pages[0].URL)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-errc; err != nil {
		t.Error(err)
	}
}

// TestRounding: distances are written with at most 3 decimals.
func TestRounding(t *testing.T) {
	for _, format := range []string{"jsonl", "csv"} {
		for _, grouped := range []bool{false, true} {
			var b bytes.Buffer
			e := newEmitter(&b, format, grouped)
			e.dup("k", "d", 0.20499999999999996, "m")
			e.dup("k", "e", 3, "bits")
			if err := e.close(); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if strings.Contains(out, "0.20499") || !strings.Contains(out, "0.205") {
				t.Errorf("%s (groups %v): %q", format, grouped, out)
			}
		}
	}
}

// TestOut: -out writes every kept page, and only those, as JSONL or WARC;
// reading it again finds no near-duplicates.
func TestOut(t *testing.T) {
	pages := samplePages(t, "g00004", "g00306", "g00007")
	dir, jsonl, manifest := writePages(t, pages)
	for _, c := range []struct{ name, in string }{
		{"kept.jsonl", jsonl}, {"kept.jsonl.gz", jsonl}, {"kept.warc", dir}, {"kept.warc.gz", dir},
	} {
		out := filepath.Join(t.TempDir(), c.name)
		_, log := runDedup(t, "-manifest", manifest, "-out", out, c.in)
		var kept int
		fmt.Sscanf(summaryLine(log), "%d pages: %d kept", new(int), &kept)
		if kept < 3 {
			t.Fatalf("%s: %q", c.name, summaryLine(log))
		}
		gs, log2 := runDedup(t, out)
		if len(gs) != 0 || !strings.HasPrefix(summaryLine(log2), fmt.Sprintf("%d pages: %d kept, 0 known, 0 near-duplicates", kept, kept)) {
			t.Errorf("%s read again: %v, %q", c.name, pairs(gs), summaryLine(log2))
		}
	}
}

// TestGlobAndFolder: a pattern and a folder are expanded in lexical order,
// hidden files and the command's own files left out.
func TestGlobAndFolder(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.html", "a.txt", ".hidden.html", "sub/c.html.gz", "manifest.tsv"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(n)), 0o700)
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600)
	}
	srcs, err := expand([]string{dir, filepath.Join(dir, "*.html")}, map[string]bool{filepath.Join(dir, "manifest.tsv"): true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range srcs {
		got = append(got, s.ID)
	}
	d := filepath.ToSlash(dir)
	want := []string{d + "/a.txt", d + "/b.html", d + "/sub/c.html.gz", d + "/b.html"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
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
	err := run(ctx, []string{"-state", state, jsonl}, nil, &out, &log)
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
