package preprocess

import (
	"errors"
	"io"
	"io/fs"
)

// readChunk bounds the chunks ReadPage reads a body of unknown size into:
// the last one overshoots the body by less than this.
const readChunk = 1 << 20

// ReadPage reads r to its end, or to maxBytes+1 bytes when it is longer
// (so that a caller can tell an over-size page, len > maxBytes, without
// reading it whole), and returns what it read. It allocates about the size
// of what it reads, not the 2.5 to 4 times of io.ReadAll's growing buffer:
// a body that tells its remaining size (a Len() int method, as
// *bytes.Reader, *bytes.Buffer and *strings.Reader have, or an *os.File of
// a regular file) is read into one buffer of that size (bounded by
// maxBytes+1); any other body (an HTTP response's) into chunks of growing
// size, at most 1 MiB each, copied once into a buffer of the exact size, so
// that the peak is about twice the page. An error reading r is returned as
// it is, with what was read before it; io.EOF is not an error.
// maxBytes < 0 reads nothing.
func ReadPage(r io.Reader, maxBytes int) ([]byte, error) {
	if maxBytes < 0 {
		return nil, nil
	}
	limit := int64(maxBytes) + 1
	size := int64(32 << 10) // the first buffer when r tells no size
	hinted := false
	if n, ok := remaining(r); ok {
		size, hinted = n+1, true // one byte more, to see the end without a second buffer
	}
	buf := make([]byte, 0, min(size, limit))
	buf, full, err := fill(r, buf)
	if !full || int64(len(buf)) == limit {
		return buf, err
	}
	// The body is longer than its first buffer: a size hint that was wrong,
	// or none. Read chunks, then copy them once into a buffer of the size.
	chunks := [][]byte{buf}
	total := int64(len(buf))
	next := int64(len(buf))
	if hinted {
		next = 32 << 10
	}
	for full && total < limit {
		next = min(max(next, 32<<10), readChunk, limit-total)
		var c []byte
		c, full, err = fill(r, make([]byte, 0, next))
		chunks = append(chunks, c)
		total += int64(len(c))
		next *= 2
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, err
}

// fill reads r into buf up to its capacity, and reports whether it filled
// it (so that more may follow). io.EOF ends it without an error.
func fill(r io.Reader, buf []byte) ([]byte, bool, error) {
	empty := 0 // reads in a row that returned nothing and no error
	for len(buf) < cap(buf) {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case errors.Is(err, io.EOF):
			return buf, false, nil
		case err != nil:
			return buf, false, err
		case n > 0:
			empty = 0
		default:
			// A reader that returns nothing and no error, repeatedly, is
			// broken; io.ReadAll would loop. Try a few times more.
			if empty++; empty > 100 {
				return buf, false, io.ErrNoProgress
			}
		}
	}
	return buf, true, nil
}

// remaining returns the bytes left in r when r tells them.
func remaining(r io.Reader) (int64, bool) {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(max(v.Len(), 0)), true
	case interface {
		Stat() (fs.FileInfo, error)
		io.Seeker
	}:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0, false
		}
		off, err := v.Seek(0, io.SeekCurrent)
		if err != nil || off > fi.Size() {
			return 0, false
		}
		return fi.Size() - off, true
	}
	return 0, false
}
