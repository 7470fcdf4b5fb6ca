package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"iter"
	"net/http"
	"sync/atomic"
	"testing"
)

// collect turns a reader's push function into an iterator.
func collect(read func(yield func(item) bool) bool) iter.Seq[item] {
	return func(yield func(item) bool) { read(yield) }
}

// FuzzReadWARC: any bytes read as a WARC file yield items, each a page, a
// skip or an error, never a panic; pages stay within the limit.
func FuzzReadWARC(f *testing.F) {
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.org/\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\nWARC-Date: 2026-11-24T12:00:00Z\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: 77\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<p>hi\r\n0\r\n\r\n\r\n\r\n"))
	f.Add([]byte("WARC/1.0\r\nWARC-Type: resource\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"))
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		for it := range collect(func(yield func(item) bool) bool {
			return readWARC(input{path: "fuzz.warc"}, bufio.NewReader(bytes.NewReader(b)), readOptions{MaxBytes: 1 << 10}, yield)
		}) {
			if n++; n > len(b)+1 {
				t.Fatalf("more items (%d) than bytes", n)
			}
			if len(it.Body) > 1<<10 {
				t.Fatalf("page of %d bytes above the limit", len(it.Body))
			}
			if it.Body != nil && (it.Err != nil || it.Skip != "") {
				t.Fatalf("item with a body and an error %v or skip %q", it.Err, it.Skip)
			}
		}
	})
}

// FuzzReadJSONL: any bytes read as JSONL yield at most one item per line.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"id":"a","html":"<p>x</p>"}` + "\n" + `{"url":"http://e/","text":"y"}` + "\n" + `{"id":3,"content":"z","content_type":"text/plain"}`))
	f.Add([]byte("not json\n\n{}\n"))
	f.Add([]byte(`{"id":null,"html":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines := bytes.Count(b, []byte("\n")) + 1
		n := 0
		for it := range collect(func(yield func(item) bool) bool {
			return readJSONL(input{path: "fuzz.jsonl"}, bufio.NewReader(bytes.NewReader(b)), readOptions{MaxBytes: 64}, yield)
		}) {
			if n++; n > lines {
				t.Fatalf("%d items from %d lines", n, lines)
			}
			if it.ID == "" {
				t.Fatal("item without an id")
			}
			if len(it.Body) > 64 || (it.Err == nil) != (it.Body != nil) || it.Where == "" {
				t.Fatalf("item %+v: want a page within the limit or an error", it)
			}
		}
	})
}

// FuzzDecodeHTTP: any payload under any codings decodes or fails, within
// the limit.
func FuzzDecodeHTTP(f *testing.F) {
	f.Add([]byte("5\r\nhello\r\n0\r\n\r\n"), "chunked", "")
	f.Add(gzippedBytes([]byte("<p>hello</p>")), "", "gzip")
	f.Add([]byte("x\x9c\xcbH\xcd\xc9\xc9\a\x00\x06,\x02\x15"), "", "deflate")
	f.Add([]byte("plain"), "", "identity, gzip")
	f.Fuzz(func(t *testing.T, payload []byte, te, ce string) {
		h := http.Header{}
		if te != "" {
			h.Set("Transfer-Encoding", te)
		}
		if ce != "" {
			h.Set("Content-Encoding", ce)
		}
		b, err := decodeHTTP(bytes.NewReader(payload), h, 256)
		if err == nil && len(b) > 256 {
			t.Fatalf("%d bytes above the limit", len(b))
		}
	})
}

// FuzzReadSource: any bytes on standard input, gzipped or not, are
// sniffed and read without a panic: every item is a page within the limit,
// a skip, or an error; a broken input is an *inputError; the bytes counted
// for progress are at most the input's.
func FuzzReadSource(f *testing.F) {
	f.Add([]byte(`{"id":"a","html":"<p>x</p>"}`+"\n"), false)
	f.Add([]byte("WARC/1.0\r\nWARC-Type: resource\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"), true)
	f.Add([]byte("<!doctype html><title>t</title><p>page"), true)
	f.Add([]byte("plain text page"), false)
	f.Add([]byte("\x00\x01binary"), false)
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), false)
	f.Fuzz(func(t *testing.T, b []byte, gz bool) {
		in := b
		if gz {
			var buf bytes.Buffer
			z := gzip.NewWriter(&buf)
			z.Write(b)
			z.Close()
			in = buf.Bytes()
		}
		read := new(atomic.Int64)
		o := readOptions{MaxBytes: 256, Stdin: bytes.NewReader(in), Read: read}
		n := 0
		readSource(source{Path: "-", ID: "-", Size: -1}, o, func(it item) bool {
			if n++; n > len(b)+1 {
				t.Fatalf("more items (%d) than bytes", n)
			}
			if len(it.Body) > 256 {
				t.Fatalf("page of %d bytes above the limit", len(it.Body))
			}
			if it.Body != nil && (it.Err != nil || it.Skip != "") {
				t.Fatalf("item with a body and an error %v or skip %q", it.Err, it.Skip)
			}
			if it.Where == "" {
				t.Fatal("item without a position")
			}
			return true
		})
		if read.Load() > int64(len(in)) {
			t.Fatalf("%d bytes counted of %d", read.Load(), len(in))
		}
	})
}
