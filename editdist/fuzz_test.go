package editdist

import (
	"bytes"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
)

// FuzzExtract checks that extraction never panics, yields at most one rune
// per terminator, each valid, and the paper's Han features only for Han
// characters; and that the distance of two feature strings equals
// agnivade's.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"", "。", "中。", "a。中。。", chinesePage, "x\xff。\xe4\xb8。", "End. Of! Text? 3.14 e.g. (ok.)",
		"！？。", "\U00020000。", "word.\x00next. ", "中国。中國。日本語。",
	} {
		f.Add(s, "中。国。")
	}
	f.Fuzz(func(t *testing.T, text, other string) {
		for _, e := range []Extractor{{}, {Terminators: ChineseTerminators}, Latin()} {
			e, err := e.resolve()
			if err != nil {
				t.Fatal(err)
			}
			got := e.Extract(text)
			terms := 0
			for _, r := range text {
				if utf8.ValidString(string(r)) && containsRune(e.Terminators, r) {
					terms++
				}
			}
			if len(got) > terms {
				t.Fatalf("%s: %d features from %d terminators in %q", e.Name, len(got), terms, text)
			}
			for _, r := range got {
				if !utf8.ValidRune(r) {
					t.Fatalf("%s: invalid rune %U from %q", e.Name, r, text)
				}
			}
			o := e.Extract(other)
			if len(got) <= 300 && len(o) <= 300 {
				if d, want := Distance(got, o), levenshtein.ComputeDistance(string(got), string(o)); d != want {
					t.Fatalf("Distance(%q, %q) = %d, agnivade %d", string(got), string(o), d, want)
				}
			}
		}
	})
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

// FuzzReadFrom feeds ReadFrom arbitrary bytes, seeded with a real snapshot
// (pages of two hosts, Han features): it must never panic, a failed read
// must leave the detector empty, and a successful one must give pages that
// match themselves.
func FuzzReadFrom(f *testing.F) {
	det, _ := New(Options{})
	for i, text := range []string{"甲。乙。丙。丁。", "天。地。人。", "春。夏。秋。冬。年。"} {
		d := &neardup.Document{ID: fmt.Sprint("id", i), Host: fmt.Sprint("h", i%2, ".example"), Page: &preprocess.Page{Text: text}}
		if err := det.Add(f.Context(), d); err != nil {
			f.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := det.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	detectortest.FuzzReadFrom(f, buf.Bytes(), func() *Detector { d, _ := New(Options{}); return d }, func(t *testing.T, back *Detector) {
		for id := range 3 {
			if kf, ok := back.c().Lookup(fmt.Sprint("id", id)); ok {
				if ms := back.c().MatchFeature(kf); len(ms) == 0 {
					t.Fatalf("a loaded feature string %q does not match itself", string(kf.String))
				}
			}
		}
	})
}
