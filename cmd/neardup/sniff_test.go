package main

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSniff: the format is read from the first bytes, not the name.
func TestSniff(t *testing.T) {
	for _, c := range []struct {
		in   string
		want format
	}{
		{"WARC/1.1\r\nWARC-Type: warcinfo\r\n", formatWARC},
		{"WARC/1.0\r\n", formatWARC},
		{"\xef\xbb\xbfWARC/1.1\r\n", formatWARC},
		{`{"id":"a","html":"<p>x</p>"}` + "\n", formatJSONL},
		{"\n  \t{\"text\":\"x\"}", formatJSONL},
		{"\xef\xbb\xbf{\"text\":\"x\"}", formatJSONL},
		{"<!DOCTYPE html><html><body>x", formatHTML},
		{"  <html lang=en>", formatHTML},
		{"<p>a fragment", formatHTML},
		{"Some words first, then <div>markup</div>", formatHTML},
		{"<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">", formatHTML},
		{"Plain text, a line\nand another.", formatText},
		{"Ünïcödé text, 中文, русский", formatText},
		{"", formatText},
		{"\x00\x01\x02\x03binary", formatPage},
		{"%PDF-1.7\n", formatPage},
		{"\x89PNG\r\n\x1a\n", formatPage},
	} {
		if got := sniff([]byte(c.in)); got != c.want {
			t.Errorf("sniff(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestReadSourceFormats: each format, gzipped or not, is read as such from
// a name that says nothing.
func TestReadSourceFormats(t *testing.T) {
	warc := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.org/a\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
	for _, c := range []struct {
		name, in string
		ids      []string
		ct       string
	}{
		{"warc", warc, []string{"http://example.org/a"}, "text/plain"},
		{"jsonl", `{"id":"x","text":"a"}` + "\n" + `{"id":"y","html":"<p>b"}` + "\n", []string{"x", "y"}, "text/plain; charset=utf-8"},
		{"html", "<html><p>page</p></html>", []string{"-"}, "text/html"},
		{"text", "a plain page", []string{"-"}, "text/plain"},
	} {
		for _, gz := range []bool{false, true} {
			in := []byte(c.in)
			if gz {
				in = gzippedBytes(in)
			}
			var ids []string
			var first item
			o := readOptions{MaxBytes: 1 << 10, Stdin: bytes.NewReader(in), Read: new(atomic.Int64)}
			readSource(source{Path: "-", ID: "-", Size: -1}, o, func(it item) bool {
				if it.Err != nil {
					t.Errorf("%s (gzip %v): %v", c.name, gz, it.Err)
				}
				if ids == nil {
					first = it
				}
				ids = append(ids, it.ID)
				return true
			})
			if strings.Join(ids, " ") != strings.Join(c.ids, " ") || first.ContentType != c.ct {
				t.Errorf("%s (gzip %v): ids %v, content type %q; want %v, %q", c.name, gz, ids, first.ContentType, c.ids, c.ct)
			}
		}
	}
}
