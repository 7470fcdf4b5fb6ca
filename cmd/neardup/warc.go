package main

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strings"

	"github.com/nlnwa/gowarc/v2"
)

// readWARC yields the pages of the WARC stream f named path (plain or one
// gzip member per record): the HTTP payload of every response record with a 2xx status and
// an HTML or text media type, re-extracted from the response (chunked
// transfer coding and gzip or deflate content coding undone), and every
// resource record of such a media type. Other records (request, metadata,
// revisit, warcinfo, images, ...) are yielded with Skip set.
func readWARC(path string, f io.Reader, o readOptions) iter.Seq[item] {
	return func(yield func(item) bool) {
		r, err := gowarc.NewWarcFileReaderFromStream(f, 0,
			gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn),
			gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
			gowarc.WithUnknownRecordTypePolicy(gowarc.ErrIgnore))
		if err != nil {
			yield(item{ID: path, Err: err})
			return
		}
		defer r.Close()
		for {
			rec, off, err := next(r)
			if err == io.EOF {
				return
			}
			if err != nil {
				// The file cannot be read past a broken record.
				yield(item{ID: fmt.Sprintf("%s@%d", path, off), Err: fmt.Errorf("WARC: %w", err)})
				return
			}
			it := safeItem(rec, o)
			if it.ID == "" {
				it.ID = fmt.Sprintf("%s@%d", path, off)
			}
			rec.Close()
			if !yield(it) {
				return
			}
		}
	}
}

// next reads the next record. gowarc v2.2.4 panics on some malformed
// records (a version line of one byte indexes l[-1]); a panic is the error
// it should have been, and ends the file.
func next(r *gowarc.WarcFileReader) (rec gowarc.WarcRecord, off int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("malformed record (gowarc: %v)", p)
		}
	}()
	rec, off, _, err = r.Next()
	return rec, off, err
}

// safeItem is warcItem with a panic in gowarc turned into the record's
// error.
func safeItem(rec gowarc.WarcRecord, o readOptions) (it item) {
	defer func() {
		if p := recover(); p != nil {
			it = item{ID: it.ID, URL: it.URL, Err: fmt.Errorf("malformed record (gowarc: %v)", p)}
		}
	}()
	return warcItem(rec, o)
}

func warcItem(rec gowarc.WarcRecord, o readOptions) item {
	h := rec.WarcHeader()
	uri := strings.Trim(h.Get(gowarc.WarcTargetURI), "<>")
	it := item{ID: uri, URL: uri}
	switch rec.Type() {
	case gowarc.Response:
		b, ok := rec.Block().(gowarc.HttpResponseBlock)
		if !ok {
			it.Skip = "response record without an HTTP response"
			return it
		}
		if c := b.HttpStatusCode(); c < 200 || c > 299 {
			it.Skip = fmt.Sprintf("HTTP status %d", c)
			return it
		}
		// The header as stored: gowarc's HttpHeader comes from
		// http.ReadResponse, which drops Transfer-Encoding.
		hdr := storedHeader(b.ProtocolHeaderBytes())
		it.ContentType = hdr.Get("Content-Type")
		if !pageType(it.ContentType) {
			it.Skip = "media type " + it.ContentType
			return it
		}
		payload, err := b.PayloadBytes()
		if err == nil {
			it.Body, err = decodeHTTP(payload, hdr, o.MaxBytes)
		}
		it.Err = err
	case gowarc.Resource:
		it.ContentType = h.Get(gowarc.ContentType)
		if !pageType(it.ContentType) {
			it.Skip = "media type " + it.ContentType
			return it
		}
		payload, err := rec.Block().RawBytes()
		if err == nil {
			it.Body, err = readLimited(payload, o.MaxBytes)
		}
		it.Err = err
	default:
		it.Skip = rec.Type().String() + " record"
	}
	return it
}

// storedHeader parses the header of an HTTP response as a WARC record
// stores it (status line first); a malformed header parses as far as it can.
func storedHeader(b []byte) http.Header {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(b)))
	if _, err := r.ReadLine(); err != nil {
		return http.Header{}
	}
	h, _ := r.ReadMIMEHeader()
	return http.Header(h)
}

// pageType reports whether a Content-Type is a page the detector reads; an
// absent one is tried as a page (the preprocessor sniffs it).
func pageType(ct string) bool {
	if strings.TrimSpace(ct) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	switch mt {
	case "text/html", "application/xhtml+xml", "text/plain":
		return true
	}
	return false
}

// decodeHTTP undoes the transfer and content codings a crawler stored in
// the payload of a response record, reading at most limit bytes of page.
func decodeHTTP(payload io.Reader, h http.Header, limit int64) ([]byte, error) {
	r := payload
	for _, te := range h.Values("Transfer-Encoding") {
		if strings.Contains(strings.ToLower(te), "chunked") {
			r = httputil.NewChunkedReader(r)
		}
	}
	encs := h.Values("Content-Encoding")
	for i := len(encs) - 1; i >= 0; i-- {
		for _, e := range reverse(strings.Split(encs[i], ",")) {
			switch e = strings.ToLower(strings.TrimSpace(e)); e {
			case "", "identity":
			case "gzip", "x-gzip":
				z, err := gzip.NewReader(r)
				if err != nil {
					return nil, fmt.Errorf("content coding gzip: %w", err)
				}
				defer z.Close()
				r = z
			case "deflate":
				r = inflate(r)
			default:
				return nil, fmt.Errorf("content coding %q: %w", e, errCoding)
			}
		}
	}
	return readLimited(r, limit)
}

var errCoding = errors.New("not supported")

// inflate reads the "deflate" content coding: zlib-wrapped as RFC 9110
// says, or raw DEFLATE as some servers send it.
func inflate(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		if z, err := zlib.NewReader(br); err == nil {
			return z
		}
	}
	return flate.NewReader(br)
}

func reverse(s []string) []string {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return s
}
