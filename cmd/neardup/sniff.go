package main

import (
	"bytes"
	"net/http"
	"strings"
)

// format is what an input holds, found from its first bytes.
type format int

const (
	formatPage  format = iota // one page: HTML, text or bytes the preprocessor judges
	formatHTML                // one HTML page
	formatText                // one plain-text page
	formatJSONL               // JSON Lines, one page an object
	formatWARC                // WARC records
)

func (f format) String() string {
	switch f {
	case formatHTML:
		return "html"
	case formatText:
		return "text"
	case formatJSONL:
		return "jsonl"
	case formatWARC:
		return "warc"
	}
	return "page"
}

// contentType is the media type a page of format f is read as; empty lets
// the preprocessor sniff it.
func (f format) contentType() string {
	switch f {
	case formatHTML:
		return "text/html"
	case formatText:
		return "text/plain"
	}
	return ""
}

// sniffLen is how many leading bytes sniff needs to see (fewer at the end
// of the input).
const sniffLen = 512

var utf8BOM = []byte("\xef\xbb\xbf")

// gzipMagic starts every gzip member.
const gzipMagic = "\x1f\x8b"

// gzipped reports whether b starts with the gzip magic number.
func gzipped(b []byte) bool { return len(b) >= 2 && b[0] == gzipMagic[0] && b[1] == gzipMagic[1] }

// sniff tells the format of an (uncompressed) input from its first bytes:
// "WARC/" (or the first bytes of it, at the end of the input) starts a WARC file; a JSON object ('{' after white space and an
// optional byte-order mark) starts JSON Lines; otherwise the input is one
// page, HTML or text as net/http's content sniffing (the WHATWG algorithm)
// says, or left to the preprocessor when it is neither (it refuses binary
// data and decodes UTF-16).
func sniff(b []byte) format {
	b = bytes.TrimPrefix(b, utf8BOM)
	// A file cut inside "WARC/" (a file holding "WA") is a WARC file cut
	// short, not a page.
	if bytes.HasPrefix(b, []byte("WARC/")) || len(b) >= 2 && len(b) < len("WARC/") && strings.HasPrefix("WARC/", string(b)) {
		return formatWARC
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return formatJSONL
	}
	ct := http.DetectContentType(b)
	switch {
	case bytes.HasPrefix([]byte(ct), []byte("text/html")), bytes.HasPrefix([]byte(ct), []byte("text/xml")):
		return formatHTML
	case bytes.HasPrefix([]byte(ct), []byte("text/plain")):
		if htmlLike(b) {
			return formatHTML
		}
		return formatText
	}
	return formatPage
}

// htmlLike reports markup that DetectContentType misses because it does not
// start the input (a fragment after some text, a tag it does not list).
func htmlLike(b []byte) bool {
	l := bytes.ToLower(b)
	for _, tag := range []string{"<html", "<body", "<div", "<p>", "<p ", "<br", "<span", "<a href", "<title", "<meta", "<table"} {
		if bytes.Contains(l, []byte(tag)) {
			return true
		}
	}
	return false
}
