package preprocess

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/text/encoding/japanese"
)

// lyingLen is a body whose Len is wrong.
type lyingLen struct {
	io.Reader
	n int
}

func (l lyingLen) Len() int { return l.n }

// TestReadPage: ReadPage returns what io.ReadAll(io.LimitReader(r,
// maxBytes+1)) does, for bodies that tell their size (rightly or not) and
// bodies that do not, of every size around its buffer and chunk bounds and
// the limit; and a read error comes back as it is.
func TestReadPage(t *testing.T) {
	const maxBytes = 3<<20 + 5
	data := make([]byte, maxBytes+100)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	file := filepath.Join(t.TempDir(), "page")
	for _, n := range []int{0, 1, 100, 32<<10 - 1, 32 << 10, 32<<10 + 1, 1<<20 + 3, maxBytes - 1, maxBytes, maxBytes + 1, maxBytes + 100} {
		want := data[:min(n, maxBytes+1)]
		if err := os.WriteFile(file, data[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		bodies := map[string]io.Reader{
			"bytes.Reader":  bytes.NewReader(data[:n]),
			"plain":         struct{ io.Reader }{bytes.NewReader(data[:n])},
			"one byte":      iotest.OneByteReader(bytes.NewReader(data[:min(n, 70<<10)])),
			"data with EOF": iotest.DataErrReader(bytes.NewReader(data[:n])),
			"Len too small": lyingLen{bytes.NewReader(data[:n]), n / 3},
			"Len too large": lyingLen{bytes.NewReader(data[:n]), 2*n + 10},
			"file":          f,
		}
		for name, r := range bodies {
			w := want
			if name == "one byte" {
				w = data[:min(n, 70<<10)]
			}
			got, err := ReadPage(r, maxBytes)
			if err != nil || !bytes.Equal(got, w) {
				t.Errorf("%s, %d bytes: ReadPage = %d bytes (equal: %t), %v; want %d bytes", name, n, len(got), bytes.Equal(got, w), err, len(w))
			}
		}
		f.Close()
	}
	boom := errors.New("boom")
	got, err := ReadPage(io.MultiReader(bytes.NewReader(data[:40<<10]), iotest.ErrReader(boom)), maxBytes)
	if !errors.Is(err, boom) || !bytes.Equal(got, data[:40<<10]) {
		t.Errorf("read error: %d bytes, %v; want 40 KiB and boom", len(got), err)
	}
	if got, err := ReadPage(bytes.NewReader(data), -1); got != nil || err != nil {
		t.Errorf("maxBytes -1: %d bytes, %v", len(got), err)
	}
}

// stuckReader returns nothing and no error after its first bytes, forever.
type stuckReader struct{ sent bool }

func (s *stuckReader) Read(p []byte) (int, error) {
	if s.sent {
		return 0, nil
	}
	s.sent = true
	return copy(p, "<p>some text</p>"), nil
}

// A body that stops making progress without an error ends in
// io.ErrNoProgress with what it gave, instead of looping as io.ReadAll does.
func TestReadPageNoProgress(t *testing.T) {
	b, err := ReadPage(&stuckReader{}, 1<<20)
	if !errors.Is(err, io.ErrNoProgress) || string(b) != "<p>some text</p>" {
		t.Errorf("ReadPage of a stuck body = %q, %v; want its text and io.ErrNoProgress", b, err)
	}
}

// A page read with ReadPage at the Pipeline's MaxBytes and processed with
// its Content-Type: one byte past the limit is ErrTooLarge, the header's
// charset decodes the page.
func TestReadPageThenProcessContent(t *testing.T) {
	small, _ := New(Options{MaxBytes: 64})
	read := func(r io.Reader, contentType string) (*Page, error) {
		raw, err := ReadPage(r, small.Options().MaxBytes)
		if err != nil {
			return nil, err
		}
		return small.ProcessContent(raw, contentType)
	}
	if _, err := read(strings.NewReader(strings.Repeat("word ", 100)), ""); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MaxBytes: err = %v, want ErrTooLarge", err)
	}
	raw, err := japanese.ShiftJIS.NewEncoder().Bytes([]byte("テストのページです。"))
	if err != nil {
		t.Fatal(err)
	}
	pg, err := read(bytes.NewReader(raw), "text/plain; charset=Shift_JIS")
	if err != nil || !strings.Contains(pg.Text, "テスト") {
		t.Errorf("Shift_JIS page = %v, %v", pg, err)
	}
}
