package main

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// warcRecord is one WARC record as read: its header (version line, fields
// and the blank line after them, as stored) and its block.
type warcRecord struct {
	Header []byte
	Block  []byte // nil when the block was larger than the limit
	Length int64  // the block's Content-Length
	fields textproto.MIMEHeader
}

// Get returns the first value of a WARC header field.
func (r *warcRecord) Get(name string) string { return r.fields.Get(name) }

// maxWARCHeader bounds a record's header.
const maxWARCHeader = 1 << 20

// readWARC yields the pages of the WARC stream r (the file decompressed,
// whether one gzip member per record or the whole file one stream): the
// HTTP payload of every response record with a 2xx status and an HTML or
// text media type, its transfer and content codings undone, and the block
// of every resource and conversion record of such a media type. Other
// records (request, metadata, revisit, warcinfo, images, ...) are yielded
// with Skip set. A record cut short (the file ends inside its header, its
// block or before the CRLF CRLF that ends it), a header that is not WARC,
// a missing or bad Content-Length are *inputError naming the record's
// offset; the file is not read further.
func readWARC(in input, r *bufio.Reader, o readOptions, yield func(item) bool) bool {
	var off int64
	for {
		start, rec, n, err := readRecord(r, off, o.MaxBytes+1<<16)
		off += n
		if err == io.EOF {
			return true
		}
		where := fmt.Sprintf("%s@%d", in.path, start)
		if err != nil {
			var ie *inputError
			if errors.As(err, &ie) {
				ie.Err = fmt.Errorf("%w (in the WARC record at uncompressed byte %d)", ie.Err, start)
			} else {
				err = in.fail(start, fmt.Errorf("WARC record: %w", err))
			}
			return yield(item{ID: where, Where: where, Err: err})
		}
		it := warcItem(rec, o)
		it.Where, it.Path, it.Offset, it.Gz = where, in.path, start, in.gz
		if it.ID == "" {
			it.ID = where
		}
		if !yield(it) {
			return false
		}
	}
}

// readRecord reads the record after off (blank lines before it skipped),
// keeping its block when it is at most limit bytes. It returns where the
// record starts, the record, the bytes consumed, and io.EOF at a clean end.
func readRecord(r *bufio.Reader, off, limit int64) (start int64, rec *warcRecord, n int64, err error) {
	for {
		b, err := r.ReadByte()
		if err == io.EOF {
			return off + n, nil, n, io.EOF
		}
		if err != nil {
			return off + n, nil, n, err
		}
		if b != '\r' && b != '\n' {
			r.UnreadByte()
			break
		}
		n++
	}
	start = off + n
	rec = &warcRecord{}
	var h bytes.Buffer
	for first := true; ; first = false {
		line, err := r.ReadSlice('\n')
		n += int64(len(line))
		h.Write(line)
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull && h.Len() <= maxWARCHeader {
				line, err = r.ReadSlice('\n')
				n += int64(len(line))
				h.Write(line)
			}
		}
		switch {
		case err == io.EOF:
			return start, nil, n, fmt.Errorf("header %w", errTruncated)
		case err != nil:
			return start, nil, n, err
		case h.Len() > maxWARCHeader:
			return start, nil, n, fmt.Errorf("header longer than %d bytes: %w", maxWARCHeader, errMalformed)
		}
		if first {
			if !bytes.HasPrefix(line, []byte("WARC/")) {
				return start, nil, n, fmt.Errorf("%w: no WARC/ version line", errMalformed)
			}
			continue
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
	}
	rec.Header = h.Bytes()
	tr := textproto.NewReader(bufio.NewReader(bytes.NewReader(rec.Header)))
	tr.ReadLine() // the version line
	if rec.fields, err = tr.ReadMIMEHeader(); err != nil {
		return start, nil, n, fmt.Errorf("%w header: %v", errMalformed, err)
	}
	rec.Length, err = strconv.ParseInt(strings.TrimSpace(rec.fields.Get("Content-Length")), 10, 64)
	if err != nil || rec.Length < 0 {
		return start, nil, n, fmt.Errorf("%w Content-Length %q", errMalformed, rec.fields.Get("Content-Length"))
	}
	var got int64
	if rec.Length <= limit {
		rec.Block = make([]byte, rec.Length)
		k, rerr := io.ReadFull(r, rec.Block)
		got, err = int64(k), rerr
	} else {
		got, err = io.CopyN(io.Discard, r, rec.Length)
	}
	n += got
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return start, nil, n, fmt.Errorf("block %w: Content-Length %d, the file ends after %d bytes of it", errTruncated, rec.Length, got)
	case err != nil:
		return start, nil, n, err
	}
	// The record ends with CRLF CRLF; a missing end, or one cut short at
	// the end of the file, is a cut file. (An end of LF LF is read too, and
	// another end is left to the next record's search for its start.)
	var end []byte
	atEOF := false
	for len(end) < 4 {
		b, err := r.ReadByte()
		if err == io.EOF {
			atEOF = true
			break
		}
		if err != nil {
			return start, nil, n, err
		}
		if b != '\r' && b != '\n' {
			r.UnreadByte()
			break
		}
		end = append(end, b)
		n++
	}
	if !atEOF && len(end) == 4 {
		_, err := r.Peek(1)
		atEOF = err == io.EOF
	}
	switch {
	case len(end) == 0 && atEOF:
		return start, nil, n, fmt.Errorf("record end %w: no CRLF CRLF after the block", errTruncated)
	case len(end) == 0:
		return start, nil, n, fmt.Errorf("%w: the block is longer than its Content-Length %d", errMalformed, rec.Length)
	case atEOF && string(end) != "\r\n\r\n" && string(end) != "\n\n":
		return start, nil, n, fmt.Errorf("record end %w: %q after the block, not CRLF CRLF", errTruncated, end)
	}
	return start, rec, n, nil
}

func warcItem(rec *warcRecord, o readOptions) item {
	uri := strings.Trim(strings.TrimSpace(rec.Get("WARC-Target-URI")), "<>")
	it := item{ID: uri, URL: uri, Record: rec}
	switch typ := strings.ToLower(strings.TrimSpace(rec.Get("WARC-Type"))); typ {
	case "response":
		if rec.Block == nil {
			it.Err = errTooLarge
			return it
		}
		hdr, payload, status, ok := splitHTTP(rec.Block)
		if !ok {
			it.Skip = "response record without an HTTP response"
			return it
		}
		if status < 200 || status > 299 {
			it.Skip = fmt.Sprintf("HTTP status %d", status)
			return it
		}
		it.ContentType = hdr.Get("Content-Type")
		if !pageType(it.ContentType) {
			it.Skip = "media type " + it.ContentType
			return it
		}
		it.Body, it.Err = decodeHTTP(bytes.NewReader(payload), hdr, o.MaxBytes)
	case "resource", "conversion":
		it.ContentType = rec.Get("Content-Type")
		if !pageType(it.ContentType) {
			it.Skip = "media type " + it.ContentType
			return it
		}
		if rec.Block == nil || int64(len(rec.Block)) > o.MaxBytes {
			it.Err = errTooLarge
			return it
		}
		it.Body = rec.Block
	case "":
		it.Skip = "record without a WARC-Type"
	default:
		it.Skip = typ + " record"
	}
	return it
}

// splitHTTP splits the block of a response record into the HTTP header as
// stored (net/http's reader drops Transfer-Encoding), the
// payload and the status code.
func splitHTTP(block []byte) (http.Header, []byte, int, bool) {
	if !bytes.HasPrefix(block, []byte("HTTP/")) {
		return nil, nil, 0, false
	}
	end, sep := bytes.Index(block, []byte("\r\n\r\n")), 4
	if lf := bytes.Index(block, []byte("\n\n")); lf >= 0 && (end < 0 || lf < end) {
		end, sep = lf, 2
	}
	if end < 0 {
		end, sep = len(block), 0
	}
	head := block[:end]
	line := head
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(string(line))
	if len(f) < 2 {
		return nil, nil, 0, false
	}
	status, err := strconv.Atoi(f[1])
	if err != nil {
		return nil, nil, 0, false
	}
	return storedHeader(append(head[:end:end], "\r\n\r\n"...)), block[end+sep:], status, true
}

// writeWARCRecord writes the page of it as a WARC record: the record it was
// read from, as it was, or else a resource record of its body.
func writeWARCRecord(w io.Writer, it item, now time.Time) error {
	if r := it.Record; r != nil && r.Block != nil {
		_, err := fmt.Fprintf(w, "%s%s\r\n\r\n", r.Header, r.Block)
		return err
	}
	var id [16]byte
	rand.Read(id[:]) // never fails (crypto/rand)
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	uri := it.URL
	if uri == "" {
		uri = it.ID
	}
	ct := it.ContentType
	if ct == "" {
		ct = http.DetectContentType(it.Body)
	}
	_, err := fmt.Fprintf(w, "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%x-%x-%x-%x-%x>\r\nWARC-Date: %s\r\nWARC-Target-URI: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		id[0:4], id[4:6], id[6:8], id[8:10], id[10:], now.UTC().Format(time.RFC3339), oneLine(uri), oneLine(ct), len(it.Body), it.Body)
	return err
}

// oneLine keeps a header value on one line.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

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
