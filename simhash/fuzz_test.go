package simhash

import (
	"errors"
	"testing"

	"github.com/neardup/neardup"
)

// FuzzFromText checks that FromText never panics and always agrees with Sum
// over the word counts of an independent tokenizer.
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
		want, werr := refSum(text)
		if (gerr == nil) != (werr == nil) || got != want {
			t.Fatalf("FromText(%q) = %v, %v; Sum over word counts = %v, %v", text, got, gerr, want, werr)
		}
		if gerr != nil && !errors.Is(gerr, neardup.ErrNoFeatures) {
			t.Fatalf("FromText(%q) error %v does not wrap ErrNoFeatures", text, gerr)
		}
	})
}
