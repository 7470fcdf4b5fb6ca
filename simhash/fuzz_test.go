package simhash

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
)

// FuzzFromText checks that FromText never panics, always gives the
// Detector's fingerprint of the same text, and reports a text without terms
// with an error.
func FuzzFromText(f *testing.F) {
	for _, s := range []string{
		"", "a", "Hello, World!", "Straße STRASSE ß", "日本語のテキスト", "İı Kk Σσς",
		"cafe\u0301 café", "x\xffy\xc3", "MiXeD caSe ÀÉÎ õü", "a—b“c”d\u00a0e",
		"0123 ٠١٢ ①②", "\U0001F600 emoji \U0001F600",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, gerr := FromText(text)
		want, werr := ofText(t, text)
		if (gerr == nil) != (werr == nil) || got != want {
			t.Fatalf("FromText(%q) = %v, %v; the Detector's fingerprint = %v, %v", text, got, gerr, want, werr)
		}
		if gerr != nil && !errors.Is(gerr, neardup.ErrNoFeatures) && !errors.Is(gerr, preprocess.ErrEmpty) && !errors.Is(gerr, preprocess.ErrInvalidUTF8) {
			t.Fatalf("FromText(%q) error %v is not ErrNoFeatures, ErrEmpty or ErrInvalidUTF8", text, gerr)
		}
	})
}

// FuzzReadFrom feeds ReadFrom arbitrary bytes, seeded with a real snapshot:
// it must never panic, and a failed read must leave the detector empty.
func FuzzReadFrom(f *testing.F) {
	det, _ := New(Options{})
	for i := range 5 {
		_ = det.AddFingerprint(fmt.Sprint("id", i), Fingerprint(0x9e3779b97f4a7c15*uint64(i+1)))
	}
	var buf bytes.Buffer
	if _, err := det.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	detectortest.FuzzReadFrom(f, buf.Bytes(), func() *Detector { d, _ := New(Options{}); return d }, func(t *testing.T, back *Detector) {
		for id := range 5 {
			if fp, ok := back.Lookup(fmt.Sprint("id", id)); ok {
				if ms := back.c().MatchFeature(fp); len(ms) == 0 {
					t.Fatalf("a loaded fingerprint does not match itself")
				}
			}
		}
	})
}
