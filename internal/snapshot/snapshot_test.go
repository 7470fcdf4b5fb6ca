package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"strings"
	"testing"
)

func write(t *testing.T, kind string, params []Param, body func(*Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	sw := NewWriter(&buf, kind, params)
	body(sw)
	n, err := sw.Close()
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("Close = %d, %v; wrote %d", n, err, buf.Len())
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	params := []Param{{"a", "1"}, {"b", "x y"}}
	snap := write(t, "test.Kind", params, func(sw *Writer) {
		sw.Uvarint(300)
		sw.Varint(-7)
		sw.Uint64(math.MaxUint64 - 1)
		sw.Float32(0.25)
		sw.Text("héllo")
		sw.Bytes(nil)
		sw.Text(strings.Repeat("z", 70000)) // more than one read chunk
	})
	if !bytes.HasPrefix(snap, []byte(Magic)) {
		t.Fatalf("no magic: %q", snap[:8])
	}
	sr, err := NewReader(bytes.NewReader(snap), "test.Kind", params)
	if err != nil {
		t.Fatal(err)
	}
	if sr.Uvarint() != 300 || sr.Int(-10, 10) != -7 || sr.Uint64() != math.MaxUint64-1 || sr.Float32() != 0.25 ||
		sr.Text() != "héllo" || len(sr.Bytes()) != 0 || len(sr.Text()) != 70000 {
		t.Fatalf("values differ; err %v", sr.Err())
	}
	if n, err := sr.Close(); err != nil || n != int64(len(snap)) {
		t.Fatalf("Close = %d, %v; want %d", n, err, len(snap))
	}
}

func TestHeaderErrors(t *testing.T) {
	snap := write(t, "k", []Param{{"x", "1"}, {"y", "2"}}, func(sw *Writer) {})
	for _, c := range []struct {
		name   string
		data   []byte
		kind   string
		params []Param
		want   error
		says   string
	}{
		{"not a snapshot", []byte("hello, world"), "k", nil, ErrCorrupt, "magic"},
		{"empty", nil, "k", nil, ErrCorrupt, "truncated"},
		{"other kind", snap, "j", []Param{{"x", "1"}, {"y", "2"}}, ErrVersion, `"k"`},
		{"other value", snap, "k", []Param{{"x", "1"}, {"y", "3"}}, ErrMismatch, "y 2, want 3"},
		{"missing", snap, "k", []Param{{"x", "1"}, {"y", "2"}, {"z", "0"}}, ErrMismatch, "z (missing"},
		{"unknown", snap, "k", []Param{{"x", "1"}}, ErrMismatch, "y 2 (unknown)"},
		{"version", append([]byte(Magic), 2), "k", nil, ErrVersion, "version 2"},
	} {
		_, err := NewReader(bytes.NewReader(c.data), c.kind, c.params)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err = %v, want %v saying %q", c.name, err, c.want, c.says)
		}
	}
}

func TestBodyErrors(t *testing.T) {
	snap := write(t, "k", nil, func(sw *Writer) { sw.Text("abc"); sw.Varint(50) })
	read := func(data []byte) error {
		sr, err := NewReader(bytes.NewReader(data), "k", nil)
		if err != nil {
			return err
		}
		sr.Text()
		sr.Int(0, 10) // 50 is out of range
		_, err = sr.Close()
		return err
	}
	if err := read(snap); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "not in [0, 10]") {
		t.Errorf("out of range: %v", err)
	}
	// A length far beyond what follows fails without allocating it.
	huge := write(t, "k", nil, func(sw *Writer) { sw.Uvarint(MaxString); sw.Raw([]byte("short")) })
	sr, _ := NewReader(bytes.NewReader(huge), "k", nil)
	if sr.Bytes(); !errors.Is(sr.Err(), ErrCorrupt) {
		t.Errorf("huge length: %v", sr.Err())
	}
	over := write(t, "k", nil, func(sw *Writer) { sw.Uvarint(MaxString + 1) })
	sr, _ = NewReader(bytes.NewReader(over), "k", nil)
	if sr.Bytes(); !errors.Is(sr.Err(), ErrCorrupt) || !strings.Contains(sr.Err().Error(), "over") {
		t.Errorf("length over MaxString: %v", sr.Err())
	}
	// The body must end where the reader expects: an unread record fails.
	sr, _ = NewReader(bytes.NewReader(snap), "k", nil)
	sr.Text()
	if _, err := sr.Close(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "end mark") {
		t.Errorf("unread record: %v", err)
	}
	// Every flipped bit after the header fails the checksum (or the parse).
	good := write(t, "k", nil, func(sw *Writer) { sw.Text("abc"); sw.Varint(5) })
	for i := range good {
		for bit := range 8 {
			bad := bytes.Clone(good)
			bad[i] ^= 1 << bit
			sr, err := NewReader(bytes.NewReader(bad), "k", nil)
			if err == nil {
				sr.Text()
				sr.Int(0, 10)
				_, err = sr.Close()
			}
			if err == nil {
				t.Fatalf("byte %d bit %d flipped: no error", i, bit)
			}
		}
	}
}

// Nested snapshots share their parent's reader and checksum.
func TestNested(t *testing.T) {
	snap := write(t, "outer", nil, func(sw *Writer) {
		inner := NewWriter(sw.Nested(), "inner", []Param{{"p", "v"}})
		inner.Text("in")
		if _, err := inner.Close(); err != nil {
			t.Fatal(err)
		}
		sw.Text("after")
	})
	sr, err := NewReader(bytes.NewReader(snap), "outer", nil)
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewReader(sr, "inner", []Param{{"p", "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if in.Text() != "in" {
		t.Fatal("inner value")
	}
	if _, err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if sr.Text() != "after" {
		t.Fatalf("outer value after the nested snapshot; err %v", sr.Err())
	}
	if _, err := sr.Close(); err != nil {
		t.Fatal(err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(Magic + "\x01\x01k\x00\x03abc\xceJ\x00\x00\x00\x00"))
	var buf bytes.Buffer
	sw := NewWriter(&buf, "k", []Param{{"a", "b"}})
	sw.Text("abc")
	sw.Float32(1.5)
	sw.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		sr, err := NewReader(bytes.NewReader(data), "k", []Param{{"a", "b"}})
		if err != nil {
			return
		}
		text, x := sr.Text(), sr.Float32()
		if _, err := sr.Close(); err != nil {
			return // errors are fine; panics and huge allocations are not
		}
		// What reads is what a writer writes: one encoding per value.
		var again bytes.Buffer
		sw := NewWriter(&again, "k", []Param{{"a", "b"}})
		sw.Text(text)
		sw.Float32(x)
		sw.Close()
		if !bytes.Equal(again.Bytes(), data[:again.Len()]) {
			t.Fatalf("read %q %v from %x, which writes back as %x", text, x, data, again.Bytes())
		}
	})
}

// TestCanonicalVarints: an overlong varint (trailing zero groups) is
// ErrCorrupt even under a valid checksum, in the header and in the body,
// signed and unsigned; canonical varints up to 64 bits still read, and a
// tenth byte beyond 64 bits is ErrCorrupt.
func TestCanonicalVarints(t *testing.T) {
	for _, c := range []struct {
		name   string
		raw    []byte
		signed bool
	}{
		{"0 in two bytes", []byte{0x80, 0x00}, false},
		{"3 in three bytes", []byte{0x83, 0x80, 0x00}, false},
		{"300 in three bytes", []byte{0xac, 0x82, 0x00}, false},
		{"signed -1 in two bytes", []byte{0x81, 0x00}, true},
		{"over 64 bits", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, false},
		{"eleven bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, false},
	} {
		snap := write(t, "k", nil, func(sw *Writer) { sw.Raw(c.raw) }) // Raw keeps the checksum right
		sr, err := NewReader(bytes.NewReader(snap), "k", nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.signed {
			sr.Varint()
		} else {
			sr.Uvarint()
		}
		if _, err := sr.Close(); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s (%x): Close = %v, want ErrCorrupt", c.name, c.raw, err)
		}
	}
	// The header's version 1 written as 0x81 0x00, checksum recomputed.
	good := write(t, "k", nil, func(sw *Writer) {})
	head := append([]byte(Magic), 0x81, 0x00)
	bad := append(head, good[len(Magic)+1:len(good)-4]...)
	bad = binary.LittleEndian.AppendUint32(bad, crc32.ChecksumIEEE(bad))
	if _, err := NewReader(bytes.NewReader(bad), "k", nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("overlong version: NewReader = %v, want ErrCorrupt", err)
	}
	snap := write(t, "k", nil, func(sw *Writer) {
		sw.Uvarint(0)
		sw.Uvarint(math.MaxUint64)
		sw.Varint(math.MinInt64)
		sw.Varint(math.MaxInt64)
		sw.Varint(-1)
	})
	sr, err := NewReader(bytes.NewReader(snap), "k", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b, c, d, e := sr.Uvarint(), sr.Uvarint(), sr.Varint(), sr.Varint(), sr.Varint(); a != 0 || b != math.MaxUint64 || c != math.MinInt64 || d != math.MaxInt64 || e != -1 {
		t.Errorf("canonical varints read as %d %d %d %d %d", a, b, c, d, e)
	}
	if _, err := sr.Close(); err != nil {
		t.Errorf("canonical varints: %v", err)
	}
}
