package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/simhash"
)

// runCLI runs the command as main does and returns its exit status,
// standard output and standard error.
func runCLI(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, log bytes.Buffer
	code := cli(context.Background(), args, stdin, &out, &log)
	return code, out.String(), log.String()
}

// writeFile writes b to dir/name, making the folders it needs.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSameNamesTwoFolders: files of the same name in two folders are two
// pages with distinct ids (their paths), not an id used twice; a glob gives
// the same ids as the folder. Catches ids relative to each folder.
func TestSameNamesTwoFolders(t *testing.T) {
	pages := samplePages(t, "g00004", "g00007")
	root := t.TempDir()
	for i, p := range pages {
		writeFile(t, root, fmt.Sprintf("a/p%d.html", i), p.Body)
		// The other folder holds the same pages under the same names, so
		// that each of its pages nearly duplicates one of a/.
		writeFile(t, root, fmt.Sprintf("b/p%d.html", i), p.Body)
	}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	code, out, log := runCLI(t, nil, "-v", a, b)
	if code != 0 {
		t.Fatalf("exit status %d:\n%s", code, log)
	}
	for i := range pages {
		id := filepath.ToSlash(filepath.Join(b, fmt.Sprintf("p%d.html", i)))
		if !strings.Contains(out, fmt.Sprintf("%q", id)) {
			t.Errorf("no verdict naming %s:\n%s", id, out)
		}
	}
	// A glob names the files as the folder does.
	_, globOut, _ := runCLI(t, nil, filepath.Join(a, "*.html"), filepath.Join(b, "*.html"))
	if globOut != out {
		t.Errorf("glob output\n%s\nfolder output\n%s", globOut, out)
	}
}

// TestFolderSkipsNonPages: a folder's files that are not pages by their
// names (README.md, manifest.tsv, an image) are skipped, and counted; a
// file named on the command line is read whatever its name. Catches a
// folder walk that judges every file.
func TestFolderSkipsNonPages(t *testing.T) {
	pages := samplePages(t, "g00004")
	dir := t.TempDir()
	writeFile(t, dir, "pages/one.html", pages[0].Body)
	writeFile(t, dir, "pages/two", pages[1].Body) // no extension: read
	writeFile(t, dir, "README.md", []byte("# Pages\n\nThese pages were saved from a crawl of the example site last week.\n"))
	writeFile(t, dir, "manifest.tsv", []byte("id\turl\tgroup\tfile\np1\thttp://example.org/1\tg1\tpages/one.html\n"))
	writeFile(t, dir, "logo.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	code, _, log := runCLI(t, nil, "-v", dir)
	if code != 0 {
		t.Fatalf("exit status %d:\n%s", code, log)
	}
	if !strings.HasPrefix(summaryLine(log), "2 pages: 1 kept, 0 known, 1 near-duplicates, 0 refused, 3 skipped") {
		t.Errorf("summary %q, want 2 pages, 3 skipped:\n%s", summaryLine(log), log)
	}
	for _, n := range []string{"README.md", "manifest.tsv", "logo.png"} {
		if !strings.Contains(log, "skipped "+filepath.ToSlash(filepath.Join(dir, n))+": not a page by its name") {
			t.Errorf("-v does not say %s was skipped:\n%s", n, log)
		}
	}
	// Named, a file is read: README.md is a page of text.
	code, _, log = runCLI(t, nil, "-v", filepath.Join(dir, "README.md"))
	if code != 0 || !strings.Contains(log, "kept "+filepath.ToSlash(filepath.Join(dir, "README.md"))) {
		t.Errorf("README.md named: exit %d:\n%s", code, log)
	}
}

// TestNoPages: an input with no page (an empty folder, a folder of images
// and other files that are not pages, files all refused, an empty JSONL
// file) exits with status 1 saying "no pages", and writes neither -state
// nor -out. Catches a run that reports "0 pages" and succeeds.
func TestNoPages(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o700)
	images := filepath.Join(root, "images")
	writeFile(t, images, "a.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	writeFile(t, images, "b.pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"))
	writeFile(t, images, "c.bin", []byte{0, 1, 2, 3, 4, 5, 6, 7})
	binary := filepath.Join(root, "binary")
	writeFile(t, binary, "blob", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	writeFile(t, binary, "page.html", []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x00\x01"))
	jsonl := writeFile(t, root, "refused.jsonl", []byte(`{"id":"a","html":""}`+"\n"+`{"id":"b","text":"   "}`+"\n"))
	w := &warcWriter{t: t, plain: true}
	w.record("request", "http://example.org/", "application/http;msgtype=request", []byte("GET / HTTP/1.1\r\n\r\n"))
	requests := writeFile(t, root, "requests.warc", w.buf.Bytes())
	for _, c := range []struct {
		name, path, why string
	}{
		{"empty folder", empty, "the input holds no files"},
		{"images", images, "3 files or records skipped, none a page"},
		{"binary files", binary, "every page was refused (2 refused"},
		{"refused lines", jsonl, "every page was refused (2 refused"},
		{"no page records", requests, "1 files or records skipped, none a page"},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "s.snap")
			out := filepath.Join(t.TempDir(), "kept.jsonl")
			code, _, log := runCLI(t, nil, "-state", state, "-out", out, c.path)
			if want := "neardup: no pages: " + c.why; code != 1 || !strings.Contains(log, want) {
				t.Errorf("exit status %d, want 1 and %q:\n%s", code, want, log)
			}
			for _, f := range []string{state, out} {
				if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s written (%v)", filepath.Base(f), err)
				}
			}
		})
	}
}

// TestExitStatus: a mistake in the command line exits with status 2, said
// once with a hint (not the whole usage); an input that fails exits 1; -h
// exits 0. Catches a wrong flag that exits 1, as other failures do.
func TestExitStatus(t *testing.T) {
	page := writeFile(t, t.TempDir(), "p.txt", []byte("a short page of plain text about gardens and the sea"))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-nosuchflag", page}, 2, "neardup: flag provided but not defined: -nosuchflag\nneardup -h lists the flags\n"},
		{[]string{page, "-nosuchflag"}, 2, "neardup: flag provided but not defined: -nosuchflag\n"},
		{[]string{"-workers", "x", page}, 2, `neardup: invalid value "x" for flag -workers`},
		{[]string{"-format", "xml", page}, 2, `neardup: -format "xml": want jsonl or csv`},
		{[]string{"-method", "magic", page}, 2, `neardup: -method "magic": want minhash`},
		{[]string{"-maxbytes", "0", page}, 2, "neardup: -maxbytes must be in"},
		{[]string{}, 2, "neardup: no input: give files"},
		{[]string{"-manifest", "/nonexistent/manifest.tsv", page}, 1, "neardup: -manifest /nonexistent/manifest.tsv: open"},
		{[]string{page + ".missing"}, 1, "neardup: " + page + ".missing: no such file or directory"},
		{[]string{"-h"}, 0, "usage: neardup [flags] PATH..."},
		{[]string{page}, 0, "1 pages: 1 kept"},
	} {
		code, _, log := runCLI(t, nil, c.args...)
		if code != c.code || !strings.Contains(log, c.want) {
			t.Errorf("neardup %q: exit status %d, want %d and %q in:\n%s", c.args, code, c.code, c.want, log)
		}
		if c.code == 2 && strings.Contains(log, "-maxbytes int") {
			t.Errorf("neardup %q: a mistake prints the whole usage:\n%s", c.args, log)
		}
	}
}

// TestFlagsAfterPaths: flags may follow the paths; after -- every argument
// is a path. Catches "-format" and "csv" read as files.
func TestFlagsAfterPaths(t *testing.T) {
	pages := samplePages(t, "g00004")
	_, jsonl, _ := writePages(t, pages)
	code, out, log := runCLI(t, nil, jsonl, "-format", "csv", "-workers", "1")
	if code != 0 || !strings.HasPrefix(out, "kept,duplicate,distance,measure\n") || strings.Count(out, "\n") != len(pages) {
		t.Errorf("exit status %d, output %q:\n%s", code, out, log)
	}
	// After --, "-format" is a file (missing here).
	code, _, log = runCLI(t, nil, jsonl, "--", "-format")
	if code != 1 || !strings.Contains(log, "neardup: -format: no such file") {
		t.Errorf("after --: exit status %d:\n%s", code, log)
	}
}

// TestOnePrefix: every message has one prefix: the library's package
// prefixes ("neardup: LoadFile NAME: minhash: neardup: unsupported
// snapshot", `neardup: document "ID": preprocess: no visible text`) are not
// repeated after the command's. Catches the chains.
func TestOnePrefix(t *testing.T) {
	dir := t.TempDir()
	// A simhash detector's snapshot, loaded as the minhash detector's state.
	det, err := simhash.New(simhash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "s.snap")
	if err := neardup.SaveFile(state, det); err != nil {
		t.Fatal(err)
	}
	page := writeFile(t, dir, "p.txt", []byte("a short page of plain text about gardens and the sea"))
	code, _, log := runCLI(t, nil, "-state", state, page)
	if code != 1 {
		t.Fatalf("exit status %d:\n%s", code, log)
	}
	if want := "neardup: -state " + state + ": unsupported snapshot: "; !strings.Contains(log, want) {
		t.Errorf("standard error lacks %q:\n%s", want, log)
	}
	// Refused pages, with the simhash detector's and the preprocessor's
	// reasons.
	jsonl := writeFile(t, dir, "r.jsonl", []byte(`{"id":"a","html":"<p></p>"}`+"\n"+`{"id":"b","text":"x"}`+"\n"+`{"id":"c","text":"gardens and the sea, a page"}`+"\n"))
	_, _, log2 := runCLI(t, nil, "-method", "simhash", jsonl)
	if !strings.Contains(log2, "refused a ("+jsonl+":1): no visible text\n") {
		t.Errorf("refused a: standard error:\n%s", log2)
	}
	for _, l := range strings.Split(log+log2, "\n") {
		rest := strings.TrimPrefix(l, "neardup: ")
		for _, p := range []string{"neardup: ", "minhash: ", "simhash: ", "preprocess: ", `document "a": `, `document "b": `, "LoadFile"} {
			if strings.Contains(rest, p) {
				t.Errorf("line %q repeats a prefix (%q)", l, p)
			}
		}
	}
}

// terminal returns the lines a terminal shows for the bytes b: a carriage
// return moves back to the line's start, where the next bytes overwrite
// it.
func terminal(b string) []string {
	var lines []string
	for _, l := range strings.Split(b, "\n") {
		var line []rune
		col := 0
		for _, r := range l {
			if r == '\r' {
				col = 0
				continue
			}
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col++
		}
		lines = append(lines, strings.TrimRight(string(line), " "))
	}
	return lines
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader in
// different goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor waits until b holds s after its first n bytes, and returns the
// length of b then; it fails the test after a minute.
func waitFor(t *testing.T, b *lockedBuffer, n int, s string) int {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cur := b.String(); strings.Contains(cur[n:], s) {
			return len(cur)
		}
	}
	t.Errorf("standard error never showed %q:\n%q", s, b.String())
	return len(b.String())
}

// TestProgressSeparateLines: on a terminal, a message written while the
// progress bar is drawn starts a line of its own, and the bar never runs on
// into it. The input is written a line at a time, each once the bar has
// been drawn after the page before (the first line is longer than the 512
// bytes the format is sniffed from). Catches "…(79 pages/s)refused …".
func TestProgressSeparateLines(t *testing.T) {
	r, w := io.Pipe()
	var log lockedBuffer
	done := make(chan int)
	go func() {
		done <- cli(context.Background(), []string{"-progress", "bar", "-workers", "1", "-v", "-"}, r, io.Discard, &log)
	}()
	enc := json.NewEncoder(w)
	enc.Encode(map[string]string{"id": "a", "text": strings.Repeat("a page of plain text about gardens and the sea ", 20)})
	n := waitFor(t, &log, 0, "kept a\n")
	n = waitFor(t, &log, n, "pages/s)") // the bar, drawn after the message
	enc.Encode(map[string]string{"id": "b", "html": ""})
	n = waitFor(t, &log, n, "refused b")
	waitFor(t, &log, n, "pages/s)")
	w.Write([]byte("{\"id\": \"c\", \"text\": cut short\n"))
	w.Close()
	<-done
	msgs := 0
	for _, l := range terminal(log.String()) {
		bar := strings.Contains(l, "pages/s)")
		if strings.Contains(l, "kept a") || strings.Contains(l, "refused b") || strings.Contains(l, "error: ") {
			msgs++
			if bar || !strings.HasPrefix(l, "kept") && !strings.HasPrefix(l, "refused") && !strings.HasPrefix(l, "error") {
				t.Errorf("a message shares its line with the bar: %q", l)
			}
		}
	}
	if msgs != 3 {
		t.Errorf("%d messages shown, want 3:\n%q", msgs, log.String())
	}
}

// TestWARCEndCut: a WARC file cut inside a record's closing CRLF CRLF (1, 2
// or 3 of its bytes missing) fails the run with the record's byte offset;
// one with the whole end is read. Catches cuts accepted when some of the
// end's bytes are left.
func TestWARCEndCut(t *testing.T) {
	pages := samplePages(t, "g00004")
	w := &warcWriter{t: t, plain: true}
	for _, p := range pages[:2] {
		w.record("resource", p.URL, "text/html", p.Body)
	}
	whole := w.buf.Bytes()
	last := int64(bytes.LastIndex(whole, []byte("WARC/1.1\r\n")))
	dir := t.TempDir()
	if code, _, log := runCLI(t, nil, writeFile(t, dir, "whole.warc", whole)); code != 0 {
		t.Fatalf("the whole file: exit status %d:\n%s", code, log)
	}
	for cut := 1; cut <= 3; cut++ {
		for _, gz := range []bool{false, true} {
			b := whole[:len(whole)-cut]
			name, want := fmt.Sprintf("cut%d.warc", cut), fmt.Sprintf(": byte %d: WARC record: record end truncated", last)
			if gz {
				b, name, want = gzippedBytes(b), name+".gz", fmt.Sprintf(": uncompressed byte %d: WARC record: record end truncated", last)
			}
			code, _, log := runCLI(t, nil, writeFile(t, dir, name, b))
			if code != 1 || !strings.Contains(log, name+want) {
				t.Errorf("%s: exit status %d, want 1 and %q:\n%s", name, code, name+want, log)
			}
		}
	}
}

// TestShortFiles: a file holding the first bytes of "WARC/" is a WARC file
// cut short, and a file holding one byte of gzip's magic number a gzip file
// cut short: each fails the run with its offset, rather than being judged
// (or refused) as a page.
func TestShortFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, content, want string }{
		{"t.warc", "WA", "t.warc: byte 0: WARC record: header truncated"},
		{"t2.warc", "WARC", "t2.warc: byte 0: WARC record: header truncated"},
		{"t.gz", "\x1f", "t.gz: byte 1: gzip member truncated"},
		{"t2.gz", "\x1f\x8b", "t2.gz: byte 2: gzip member truncated"},
	} {
		code, _, log := runCLI(t, nil, "-v", writeFile(t, dir, c.name, []byte(c.content)))
		if code != 1 || !strings.Contains(log, c.want) || strings.Contains(log, "kept ") || strings.Contains(log, "refused ") {
			t.Errorf("%s: exit status %d, want 1 and %q:\n%s", c.name, code, c.want, log)
		}
	}
}

// TestReusedIDOffsets: an id used twice names the byte offset of the
// second page in its file: a WARC record's start, or a JSONL line's in a
// gzip file (uncompressed). Catches an error that says only FILE@N or
// FILE:LINE.
func TestReusedIDOffsets(t *testing.T) {
	pages := samplePages(t, "g00004", "g00007")
	w := &warcWriter{t: t, plain: true}
	w.record("resource", "http://example.org/a", "text/html", pages[0].Body)
	w.record("resource", "http://example.org/a", "text/html", pages[2].Body)
	second := bytes.LastIndex(w.buf.Bytes(), []byte("WARC/1.1\r\n"))
	dir := t.TempDir()
	warc := writeFile(t, dir, "twice.warc", w.buf.Bytes())
	lines := `{"id":"x","text":"the first page about gardens"}` + "\n" + `{"id":"x","text":"another page about the sea"}` + "\n"
	jsonlGz := writeFile(t, dir, "twice.jsonl.gz", gzippedBytes([]byte(lines)))
	for _, c := range []struct{ path, want string }{
		{warc, fmt.Sprintf(`%s: byte %d: id already used: "http://example.org/a" (first at %s@0)`, warc, second, warc)},
		{jsonlGz, fmt.Sprintf(`%s: uncompressed byte %d: line 2: id already used: "x" (first at %s:1)`, jsonlGz, strings.Index(lines, "\n")+1, jsonlGz)},
	} {
		code, _, log := runCLI(t, nil, c.path)
		if code != 1 || !strings.Contains(log, "error: "+c.want+"\n") {
			t.Errorf("exit status %d, want 1 and %q:\n%s", code, c.want, log)
		}
	}
}

// TestJSONIDs: a numeric "id" is the number's decimal text, the same
// however it is written; an object, array or boolean id refuses its page,
// saying why. Catches ids used as raw JSON text ("7.0", "1e3", "{...}").
func TestJSONIDs(t *testing.T) {
	for raw, want := range map[string]string{
		`"p1"`: "p1", `7`: "7", `7.0`: "7", `0.7e1`: "7", `1e3`: "1000", `-12`: "-12",
		`12345678901234567891`: "12345678901234567891", `2.50`: "2.5", `1.25e-2`: "0.0125",
		`null`: "", `""`: "",
	} {
		got, err := jsonID(json.RawMessage(raw))
		if err != nil || got != want {
			t.Errorf("jsonID(%s) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{`{"a":1}`, `[1]`, `true`, `false`, `1e100000`, strings.Repeat("9", 101)} {
		if got, err := jsonID(json.RawMessage(raw)); err == nil {
			t.Errorf("jsonID(%s) = %q, want an error", raw, got)
		}
	}
	jsonl := writeFile(t, t.TempDir(), "ids.jsonl", []byte(
		`{"id": 1e3, "text": "a short page of plain text about gardens"}`+"\n"+
			`{"id": {"n": 2}, "text": "another page about the sea and its shores"}`+"\n"))
	code, _, log := runCLI(t, nil, "-v", jsonl)
	if code != 0 || !strings.Contains(log, "kept 1000\n") ||
		!strings.Contains(log, "refused "+jsonl+":2 ("+jsonl+`:2): JSON "id" is an object: want a string or a number`) {
		t.Errorf("exit status %d:\n%s", code, log)
	}
}

// TestGroupsExample: the -groups example of the README and of this
// command's doc (the same pattern in both) prints groups, each a labelled
// group of the sample corpus. Catches a pattern that matches no group
// (p0000*: two unrelated pages) or documents that disagree.
func TestGroupsExample(t *testing.T) {
	const pattern = "examples/evaluate/testdata/en-sample/pages/p00[0-2]*.html.gz"
	for _, doc := range []string{"doc.go", "../../README.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "-groups '"+pattern+"'") {
			t.Errorf("%s has no -groups example with the pattern %s", doc, pattern)
		}
	}
	label := make(map[string]string) // file name → group
	for _, p := range samplePagesAll(t) {
		label[p.file] = p.group
	}
	gs, _ := runDedup(t, "../../"+pattern)
	if len(gs) < 3 {
		t.Errorf("%d groups, want at least 3", len(gs))
	}
	for _, g := range gs {
		for _, d := range g.Duplicates {
			if label[filepath.Base(d.ID)] != label[filepath.Base(g.Kept)] {
				t.Errorf("%s grouped with %s: labelled %s and %s", d.ID, g.Kept, label[filepath.Base(d.ID)], label[filepath.Base(g.Kept)])
			}
		}
	}
}

// samplePagesAll returns every page of the sample manifest: its file name
// and its group.
func samplePagesAll(t *testing.T) []struct{ file, group string } {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sample, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []struct{ file, group string }
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(l, "\t")
		out = append(out, struct{ file, group string }{filepath.Base(f[3]), f[2]})
	}
	return out
}
