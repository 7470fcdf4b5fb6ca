package charset_test

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/preprocess/charset"
)

// spaced is text with its control characters as spaces, as Decode leaves
// them.
func spaced(text []byte) []byte {
	var b bytes.Buffer
	for _, r := range string(text) {
		if charset.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.Bytes()
}

// FuzzDecodeKeepControls checks that DecodeKeepControls is Decode but for
// control characters: the same charset and error, and the same text once
// its control characters are spaces, with no NUL left.
func FuzzDecodeKeepControls(f *testing.F) {
	f.Add([]byte("<p>alpha\x01beta\x7fgamma\u0085delta</p>"), "")
	f.Add([]byte("<p>alpha\x00beta\x01gamma</p>"), "text/html")
	f.Add([]byte("\xEF\xBB\xBFplain\x0btext"), "text/plain; charset=utf-8")
	f.Add([]byte("<p>caf\xe9\x01</p>"), "text/html; charset=ISO-8859-1")
	f.Add([]byte("\xFF\xFEh\x00\x01\x00i\x00"), "")
	f.Add([]byte("%PDF-1.4\n1 0 obj"), "")
	f.Add([]byte("<p>x</p>"), "image/png")
	f.Fuzz(func(t *testing.T, raw []byte, ct string) {
		if len(raw) > 1<<16 {
			return
		}
		for _, html := range []bool{true, false} {
			want, wcs, werr := charset.Decode(raw, ct, html)
			got, gcs, gerr := charset.DecodeKeepControls(raw, ct, html)
			if gcs != wcs || (gerr == nil) != (werr == nil) || errors.Is(gerr, charset.ErrNotText) != errors.Is(werr, charset.ErrNotText) {
				t.Fatalf("DecodeKeepControls(%q, %q, %v) = %v, %v; Decode %v, %v", raw, ct, html, gcs, gerr, wcs, werr)
			}
			if gerr != nil {
				continue
			}
			if !utf8.Valid(got) || bytes.IndexByte(got, 0) >= 0 || !bytes.Equal(spaced(got), want) {
				t.Fatalf("DecodeKeepControls(%q, %q, %v) = %q; Decode %q", raw, ct, html, got, want)
			}
		}
	})
}
