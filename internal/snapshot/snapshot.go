// Package snapshot is the binary format in which neardup detectors save their
// kept documents and read them back: a framed, checksummed stream of
// variable-length integers, strings and byte strings. docs/format.md
// describes it byte by byte.
//
// A snapshot is
//
//	magic    8 bytes   "NEARDUP\x00"
//	version  uvarint   1
//	kind     string    what wrote it: "simhash.Detector", "neardup.Cascade", ...
//	params   uvarint n, then n (name string, value string) pairs
//	body     the writer's records (a detector's documents; a Cascade's stages,
//	         each a snapshot of its own)
//	end      uvarint   EndMark (0x4e44), then a CRC-32 (IEEE, 4 bytes, little
//	         endian) of every byte before it, from the magic on
//
// A string is a uvarint length and that many bytes. Readers never trust a
// length: they read at most MaxString bytes for a string and grow slices as
// records arrive, so a corrupt length fails with ErrCorrupt instead of
// allocating it.
package snapshot

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"strings"
)

// Magic opens every snapshot.
const Magic = "NEARDUP\x00"

// Version is the format version this package writes and reads.
const Version = 1

// EndMark precedes the checksum; a body that does not end where its reader
// expects it fails on it.
const EndMark = 0x4e44

// MaxString is the longest string or byte string a Reader accepts.
const MaxString = 64 << 20

// Errors. They are re-exported by package neardup; test them with errors.Is.
var (
	// ErrCorrupt reports a snapshot that is truncated, fails its checksum
	// or does not parse.
	ErrCorrupt = errors.New("neardup: corrupt snapshot")
	// ErrVersion reports a snapshot of a format version this code cannot
	// read, or of another kind of detector.
	ErrVersion = errors.New("neardup: unsupported snapshot")
	// ErrMismatch reports a snapshot written with parameters other than the
	// reader's.
	ErrMismatch = errors.New("neardup: snapshot parameters differ")
)

// Param is one named parameter a snapshot was written with.
type Param struct{ Name, Value string }

// Writer writes one snapshot. Its methods remember the first error, so a
// writer calls them in sequence and checks Close.
type Writer struct {
	w   *bufio.Writer
	crc hash.Hash32
	n   int64
	err error
	buf [binary.MaxVarintLen64]byte
}

// NewWriter starts a snapshot of kind with params on w.
func NewWriter(w io.Writer, kind string, params []Param) *Writer {
	sw := &Writer{w: bufio.NewWriter(w), crc: crc32.NewIEEE()}
	sw.Raw([]byte(Magic))
	sw.Uvarint(Version)
	sw.Text(kind)
	sw.Uvarint(uint64(len(params)))
	for _, p := range params {
		sw.Text(p.Name)
		sw.Text(p.Value)
	}
	return sw
}

// NewBodyWriter returns a Writer of a bare body on w: no header, end mark
// or checksum. It encodes a record that a store other than a snapshot keeps
// (a fleet backend's copy of a kept page) with the codecs of a snapshot's
// body; Flush ends it.
func NewBodyWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriter(w)} // no checksum: crc is nil
}

// Flush writes what is buffered and returns the first error (for a bare
// body; Close ends a snapshot).
func (sw *Writer) Flush() error {
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	return sw.err
}

// Raw writes b as it is.
func (sw *Writer) Raw(b []byte) {
	if sw.err != nil {
		return
	}
	n, err := sw.w.Write(b)
	if sw.crc != nil {
		sw.crc.Write(b[:n])
	}
	sw.n += int64(n)
	sw.err = err
}

// Uvarint writes x as an unsigned varint.
func (sw *Writer) Uvarint(x uint64) { sw.Raw(binary.AppendUvarint(sw.buf[:0], x)) }

// Varint writes x as a signed (zig-zag) varint.
func (sw *Writer) Varint(x int64) { sw.Raw(binary.AppendVarint(sw.buf[:0], x)) }

// Uint64 writes x in 8 bytes, little endian.
func (sw *Writer) Uint64(x uint64) { sw.Raw(binary.LittleEndian.AppendUint64(sw.buf[:0], x)) }

// Float32 writes the bits of x in 4 bytes, little endian.
func (sw *Writer) Float32(x float32) {
	sw.Raw(binary.LittleEndian.AppendUint32(sw.buf[:0], math.Float32bits(x)))
}

// Text writes s with its length.
func (sw *Writer) Text(s string) {
	sw.Uvarint(uint64(len(s)))
	if sw.err == nil {
		n, err := sw.w.WriteString(s)
		if sw.crc != nil {
			sw.crc.Write([]byte(s[:n]))
		}
		sw.n += int64(n)
		sw.err = err
	}
}

// Bytes writes b with its length.
func (sw *Writer) Bytes(b []byte) {
	sw.Uvarint(uint64(len(b)))
	sw.Raw(b)
}

// Nested returns an io.Writer that writes into this snapshot's body (a
// Cascade writes its stages' snapshots through it).
func (sw *Writer) Nested() io.Writer { return nestedWriter{sw} }

type nestedWriter struct{ sw *Writer }

func (nw nestedWriter) Write(b []byte) (int, error) {
	nw.sw.Raw(b)
	if nw.sw.err != nil {
		return 0, nw.sw.err
	}
	return len(b), nil
}

// Close writes the end mark and the checksum, flushes, and returns the number
// of bytes written and the first error.
func (sw *Writer) Close() (int64, error) {
	sw.Uvarint(EndMark)
	if sw.err == nil {
		sum := binary.LittleEndian.AppendUint32(nil, sw.crc.Sum32())
		n, err := sw.w.Write(sum)
		sw.n += int64(n)
		sw.err = err
	}
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	return sw.n, sw.err
}

// Reader reads one snapshot. Its methods remember the first error (returning
// zero values after it), so a reader decodes records in sequence and checks
// Close, which also verifies the checksum.
type Reader struct {
	r    io.ByteReader
	src  io.Reader // the same reader as r
	crc  hash.Hash32
	n    int64
	err  error
	kind string
}

// byteReader reads one byte at a time from a bufio.Reader over the source,
// without reading past the snapshot's end (a nested snapshot shares its
// parent's reader).
type byteReader interface {
	io.Reader
	io.ByteReader
}

// NewReader reads the header of a snapshot from r and checks that it is of
// kind and was written with params (every name in params must be present with
// the same value; extra names in the snapshot are a mismatch too). Errors wrap
// ErrCorrupt, ErrVersion or ErrMismatch; a mismatch names the parameters.
//
// r should be an io.ByteReader (a *bufio.Reader, say) when more is read from
// it after the snapshot: a Reader made from any other io.Reader buffers, and
// may read past the snapshot's end.
func NewReader(r io.Reader, kind string, params []Param) (*Reader, error) {
	br, ok := r.(byteReader)
	if !ok {
		br = bufio.NewReader(r)
	}
	sr := &Reader{r: br, src: br, crc: crc32.NewIEEE()}
	magic := sr.Raw(len(Magic))
	if sr.err != nil {
		return nil, sr.err
	}
	if string(magic) != Magic {
		return nil, fmt.Errorf("%w: no snapshot magic (read %q)", ErrCorrupt, magic)
	}
	if v := sr.Uvarint(); sr.err == nil && v != Version {
		return nil, fmt.Errorf("%w: format version %d, this code reads %d", ErrVersion, v, Version)
	}
	sr.kind = sr.Text()
	if sr.err == nil && sr.kind != kind {
		return nil, fmt.Errorf("%w: a snapshot of %q, not of %q", ErrVersion, sr.kind, kind)
	}
	got := map[string]string{}
	for i, n := 0, sr.Uvarint(); sr.err == nil && uint64(i) < n; i++ {
		name := sr.Text()
		got[name] = sr.Text()
	}
	if sr.err != nil {
		return nil, sr.err
	}
	var diff []string
	for _, p := range params {
		v, ok := got[p.Name]
		switch {
		case !ok:
			diff = append(diff, fmt.Sprintf("%s (missing, want %s)", p.Name, p.Value))
		case v != p.Value:
			diff = append(diff, fmt.Sprintf("%s %s, want %s", p.Name, v, p.Value))
		}
		delete(got, p.Name)
	}
	for name, v := range got {
		diff = append(diff, fmt.Sprintf("%s %s (unknown)", name, v))
	}
	if len(diff) > 0 {
		return nil, fmt.Errorf("%w: %s snapshot written with %s", ErrMismatch, kind, strings.Join(diff, "; "))
	}
	return sr, nil
}

// NewBodyReader returns a Reader of a bare body (what a NewBodyWriter
// wrote) held in b. End reports whether it has all been read.
func NewBodyReader(b []byte) *Reader {
	br := bytes.NewReader(b)
	return &Reader{r: br, src: br} // no checksum: crc is nil
}

// End fails the read unless the body has been read to its last byte, and
// returns the first error.
func (sr *Reader) End() error {
	if sr.err == nil {
		if _, err := sr.r.ReadByte(); err == nil {
			sr.Fail("bytes after the end of the body")
		}
	}
	return sr.err
}

// Kind returns the kind the snapshot was written by.
func (sr *Reader) Kind() string { return sr.kind }

// Err returns the first error.
func (sr *Reader) Err() error { return sr.err }

// Fail records err (wrapped in ErrCorrupt) unless an error is already
// recorded: a decoder calls it when a record's values are out of range.
func (sr *Reader) Fail(format string, args ...any) {
	if sr.err == nil {
		sr.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

func (sr *Reader) fail(err error) {
	if sr.err != nil {
		return
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		sr.err = fmt.Errorf("%w: truncated after %d bytes", ErrCorrupt, sr.n)
		return
	}
	sr.err = fmt.Errorf("%w: %w", ErrCorrupt, err)
}

// ReadByte reads one byte of the body (it makes a Reader an io.ByteReader,
// for binary.ReadUvarint and for nested snapshots).
func (sr *Reader) ReadByte() (byte, error) {
	if sr.err != nil {
		return 0, sr.err
	}
	c, err := sr.r.ReadByte()
	if err != nil {
		sr.fail(err)
		return 0, sr.err
	}
	if sr.crc != nil {
		sr.crc.Write([]byte{c})
	}
	sr.n++
	return c, nil
}

// Read reads into p from the body (a Reader is an io.Reader for nested
// snapshots).
func (sr *Reader) Read(p []byte) (int, error) {
	if sr.err != nil {
		return 0, sr.err
	}
	n, err := sr.src.Read(p)
	if sr.crc != nil {
		sr.crc.Write(p[:n])
	}
	sr.n += int64(n)
	if err != nil && n == 0 {
		sr.fail(err)
		return 0, sr.err
	}
	return n, nil
}

// Raw reads n bytes.
func (sr *Reader) Raw(n int) []byte {
	if sr.err != nil {
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(sr, b); err != nil {
		sr.fail(err)
		return nil
	}
	return b
}

// Uvarint reads an unsigned varint. Only the canonical encoding, the
// shortest (as Writer.Uvarint writes it), is accepted: a varint with
// trailing zero groups (0x80 0x00 for 0), or one that overflows 64 bits,
// fails with ErrCorrupt, so that one value has one encoding and a
// snapshot that reads is the one a writer would write.
func (sr *Reader) Uvarint() uint64 {
	var x uint64
	for i, shift := 0, uint(0); i < binary.MaxVarintLen64; i, shift = i+1, shift+7 {
		b, err := sr.ReadByte()
		if err != nil {
			return 0 // ReadByte recorded it
		}
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				break // overflow
			}
			if b == 0 && i > 0 {
				sr.Fail("non-canonical varint (%d bytes, a trailing zero group) at byte %d", i+1, sr.n-1)
				return 0
			}
			return x | uint64(b)<<shift
		}
		x |= uint64(b&0x7f) << shift
	}
	sr.Fail("varint overflows 64 bits at byte %d", sr.n)
	return 0
}

// Varint reads a signed (zig-zag) varint, canonical as Uvarint requires.
func (sr *Reader) Varint() int64 {
	ux := sr.Uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

// Int reads a signed varint that must lie in [lo, hi].
func (sr *Reader) Int(lo, hi int64) int64 {
	x := sr.Varint()
	if sr.err == nil && (x < lo || x > hi) {
		sr.Fail("value %d not in [%d, %d]", x, lo, hi)
		return 0
	}
	return x
}

// Uint64 reads 8 bytes, little endian.
func (sr *Reader) Uint64() uint64 {
	b := sr.Raw(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// Float32 reads 4 bytes, little endian, as the bits of a float32.
func (sr *Reader) Float32() float32 {
	b := sr.Raw(4)
	if b == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

// Bytes reads a length and that many bytes (at most MaxString).
func (sr *Reader) Bytes() []byte {
	n := sr.Uvarint()
	if sr.err != nil {
		return nil
	}
	if n > MaxString {
		sr.Fail("length %d over %d", n, MaxString)
		return nil
	}
	// Read in chunks, so that a corrupt length costs no more memory than
	// the bytes actually there.
	var b []byte
	for uint64(len(b)) < n {
		chunk := sr.Raw(int(min(n-uint64(len(b)), 1<<16)))
		if chunk == nil {
			return nil
		}
		b = append(b, chunk...)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// Text reads a string written by Writer.Text.
func (sr *Reader) Text() string { return string(sr.Bytes()) }

// Count reads a record count. It is only a promise: callers append records as
// they arrive instead of allocating the count up front.
func (sr *Reader) Count() uint64 { return sr.Uvarint() }

// Close reads the end mark and the checksum and verifies it. It returns the
// first error of the whole read, and the number of bytes read.
func (sr *Reader) Close() (int64, error) {
	if m := sr.Uvarint(); sr.err == nil && m != EndMark {
		sr.Fail("body does not end where expected (read %#x, want end mark)", m)
	}
	if sr.err != nil {
		return sr.n, sr.err
	}
	want := sr.crc.Sum32()
	sum := make([]byte, 4)
	if _, err := io.ReadFull(sr.src, sum); err != nil {
		sr.fail(err)
		return sr.n, sr.err
	}
	sr.n += 4
	if got := binary.LittleEndian.Uint32(sum); got != want {
		sr.err = fmt.Errorf("%w: checksum %08x, computed %08x", ErrCorrupt, got, want)
	}
	return sr.n, sr.err
}
