package preprocess

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// textTermsInputs are plain texts on which TextTerms is checked against
// plain-text ProcessContent: prose in several languages, the characters
// that the text normalisation drops or turns into separators, and input
// that is empty, binary or not UTF-8.
var textTermsInputs = []string{
	"The runners were running; a runner runs. RUNNING Runners ran!",
	"Les chats mangeaient les souris dans la maison. Les chats dorment.",
	"Los gatos comían los ratones en la casa de los gatos.",
	"通过使用虚拟系统，我们能在单个机器上同时运行多个系统。",
	"Linux内核2.6版本 e.g. Dr. Smith 3.14 U.S. ÉCOLE Ｆｕｌｌｗｉｄｔｈ ＡＢＣ１２３",
	"日本語のテキストです。カタカナとひらがな。한국어 텍스트입니다.",
	"co\u00ADoperate co-operate cooperate\u00AD \u00AD",
	"\uFEFFword\uFEFFjoined by\uFEFF zero width\u200bspace\u00a0nbsp\u2028line\u2029para\u3000ideographic",
	"\xEF\xBB\xBFA byte-order mark, then text.",
	"tab\tseparated\r\nCRLF\flines\x7fdel\x1bescape\u0085next",
	"first paragraph\n\n\nsecond paragraph\n  \nthird",
	"!!! ??? ... --- ,,, ;;; ### 。！？",
	"a b c d e f 1 2 3",
	"x" + strings.Repeat("y", 70) + " long tokens are dropped",
	"",
	" \n\t\n ",
	"\u00AD\uFEFF\u00AD",
	"caf\xe9 cr\xe8me br\xfbl\xe9e na\xefve",
	"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0",
	"\x00\x01\x02\x03\x04\x05\x06\x07\x08 not text \x0e\x0f\x10\x11\x12\x13",
	"%PDF-1.7 binary",
	"a NUL\x00inside text and words",
	// U+0130 lower-cases to "i\u0307", which it takes one rune to write
	// and two to write lower-case: the same surface, met first either way.
	"\u0130 i\u0307 \u0130\u0130 i\u0307i\u0307 \u0130X",
	"i\u0307 \u0130 i\u0307i\u0307 \u0130\u0130 \u0130X",
	"\xed\xa0\x80 surrogate halves \xed\xbf\xbf and a cut char \xe4\xb8",
}

// textTermsOptions are the option sets TextTerms is checked with.
var textTermsOptions = []Options{
	{},
	{NoStem: true},
	{KeepStopWords: true},
	{Language: French},
	{Language: Chinese},
	{StemCacheSize: -1, MinTokenLen: 1, MaxTokenLen: 12},
	{StemCacheSize: 3},
	{ExtraStopWords: []string{"Function", "timestamp", "系统", "runner"}},
	{MaxTerms: 5},
	{MaxBytes: 40},
}

// textTerms returns the terms TextTerms passes, sorted as Page.Terms are.
func textTerms(t *testing.T, p *Pipeline, text string) ([]Term, error) {
	t.Helper()
	var terms []Term
	err := p.TextTerms(text, func(term string, count int) {
		terms = append(terms, Term{strings.Clone(term), count})
	})
	if err != nil && terms != nil {
		t.Fatalf("TextTerms(%q): terms %v with error %v", text, terms, err)
	}
	slices.SortFunc(terms, compareTerms)
	return terms, err
}

// checkTextTerms fails unless TextTerms gives the Terms of plain-text ProcessContent, or
// the same error.
func checkTextTerms(t *testing.T, p *Pipeline, text string) {
	t.Helper()
	page, wantErr := p.ProcessContent([]byte(text), "text/plain")
	got, err := textTerms(t, p, text)
	switch {
	case wantErr != nil || err != nil:
		if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
			t.Fatalf("TextTerms(%.60q): error %v, ProcessContent's %v", text, err, wantErr)
		}
	case !slices.Equal(got, page.Terms):
		t.Fatalf("TextTerms(%.60q):\n got %v\nwant %v", text, got, page.Terms)
	}
}

func TestTextTermsMatchPlainText(t *testing.T) {
	inputs := slices.Concat(textTermsInputs, fuzzSeeds, blockSeeds)
	for _, file := range []string{"testdata/postgresql-functions-datetime.html", "testdata/debian-reference-virtualized-system.zh.html"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// Whole, and cut at odd places (mid-character in the Chinese page).
		inputs = append(inputs, string(raw), string(raw[:4097]), string(raw[1001:7003]))
	}
	var failures int
	for _, opts := range textTermsOptions {
		p, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		// Twice over, so that the second round reads words memoised by
		// the first (and by plain-text ProcessContent).
		for range 2 {
			for _, in := range inputs {
				checkTextTerms(t, p, in)
				if _, err := p.ProcessContent([]byte(in), "text/plain"); err != nil {
					failures++
				}
			}
		}
	}
	// The inputs must exercise the error paths too.
	for _, want := range []error{ErrEmpty, ErrInvalidUTF8, ErrNotText, ErrTooLarge} {
		found := false
		var p Pipeline
		for _, in := range inputs {
			if err := p.TextTerms(in, func(string, int) {}); errors.Is(err, want) {
				found = true
				break
			}
		}
		if !found && want != ErrTooLarge {
			t.Errorf("no input gives %v", want)
		}
	}
	if failures == 0 {
		t.Error("no input failed")
	}
}

func TestTextTermsNilFunc(t *testing.T) {
	var p Pipeline
	if err := p.TextTerms("some words", nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("TextTerms with a nil fn: error %v, want ErrInvalidOption", err)
	}
}

// TestTextTermsMemo runs pages of different languages through one Pipeline
// whose word memos and tables are smaller than a page's vocabulary (so they
// empty themselves page after page), and through one whose are not.
func TestTextTermsMemo(t *testing.T) {
	raw, err := os.ReadFile("testdata/postgresql-functions-datetime.html")
	if err != nil {
		t.Fatal(err)
	}
	en := string(raw)
	for _, size := range []int{1, 50, 0} {
		p, err := New(Options{StemCacheSize: size})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			for _, in := range []string{en, textTermsInputs[1], textTermsInputs[3], en[5000:9000], textTermsInputs[2]} {
				checkTextTerms(t, p, in)
			}
		}
	}
}

// TestTextTermsNoPageChange: TextTerms between plain-text ProcessContent
// calls leaves the pages they give unchanged (the memo it fills is shared
// with them).
func TestTextTermsNoPageChange(t *testing.T) {
	in := textTermsInputs[0] + " " + textTermsInputs[1]
	var fresh, used Pipeline
	want := Digest(fresh.ProcessContent([]byte(in), "text/plain"))
	for _, other := range textTermsInputs {
		_ = used.TextTerms(other, func(string, int) {})
	}
	_ = used.TextTerms(in, func(string, int) {})
	if got := Digest(used.ProcessContent([]byte(in), "text/plain")); got != want {
		t.Errorf("page after TextTerms: digest %s, want %s", got, want)
	}
}

// FuzzTextTerms checks TextTerms against plain-text ProcessContent on any input.
func FuzzTextTerms(f *testing.F) {
	for _, s := range textTermsInputs {
		f.Add(s)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	var p Pipeline
	small, err := New(Options{StemCacheSize: 4, MaxTerms: 8})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkTextTerms(t, &p, text)
		checkTextTerms(t, small, text)
	})
}

func BenchmarkTextTerms(b *testing.B) {
	raw, err := os.ReadFile("../simhash/testdata/en-10k.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := string(raw)
	var p Pipeline
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if err := p.TextTerms(text, func(_ string, c int) { n += c }); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTextTermsConcurrent shares one Pipeline between goroutines that call
// TextTerms and plain-text ProcessContent at once; run with -race.
func TestTextTermsConcurrent(t *testing.T) {
	p, err := New(Options{StemCacheSize: 16}) // tiny: memos fill and empty
	if err != nil {
		t.Fatal(err)
	}
	inputs := textTermsInputs[:8]
	want := make([][]Term, len(inputs))
	for i, in := range inputs {
		pg, err := p.ProcessContent([]byte(in), "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		want[i] = pg.Terms
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for n := range 50 {
				i := (g + n) % len(inputs)
				if g%2 == 0 {
					if pg, err := p.ProcessContent([]byte(inputs[i]), "text/plain"); err != nil || !slices.Equal(pg.Terms, want[i]) {
						t.Errorf("ProcessContent(input %d, text/plain) changed", i)
						return
					}
					continue
				}
				var got []Term
				err := p.TextTerms(inputs[i], func(term string, count int) {
					got = append(got, Term{strings.Clone(term), count})
				})
				slices.SortFunc(got, compareTerms)
				if err != nil || !slices.Equal(got, want[i]) {
					t.Errorf("TextTerms(input %d) = %v, %v; want %v", i, got, err, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestTextTermsManyWords: a page of more distinct words than the word table
// keeps between pages, then ordinary pages, give the terms of plain-text pages.
func TestTextTermsManyWords(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "w%dx%c ", i, 'a'+i%26)
	}
	big := b.String()
	var p Pipeline
	for _, in := range []string{textTermsInputs[0], big, textTermsInputs[1], big[:5000], textTermsInputs[0]} {
		checkTextTerms(t, &p, in)
	}
}
