package editdist

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agnivade/levenshtein"
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// bench1000 returns the inputs of BenchmarkDistance1000 and
// BenchmarkAgnivade1000: two unrelated strings of 1,000 runes over 64 Han
// symbols.
func bench1000() (a, b []rune) {
	r := rand.New(rand.NewPCG(1000, 1))
	return randomString(r, 1000, 64, 0x4E00), randomString(r, 1000, 64, 0x4E00)
}

// BenchmarkDistance1000 is Distance on two 1,000-rune strings, the pattern
// compiled in every call.
func BenchmarkDistance1000(b *testing.B) {
	x, y := bench1000()
	b.ReportAllocs()
	for b.Loop() {
		Distance(x, y)
	}
}

// BenchmarkAgnivade1000 is the reference, agnivade/levenshtein's
// ComputeDistance, on the same inputs.
func BenchmarkAgnivade1000(b *testing.B) {
	x, y := bench1000()
	sx, sy := string(x), string(y)
	b.ReportAllocs()
	for b.Loop() {
		levenshtein.ComputeDistance(sx, sy)
	}
}

// BenchmarkWithin1000 is the bounded computation on the same non-matching
// pair with the bound of the default decision for pages of different hosts
// (α = 0.8, so at most 200 edits).
func BenchmarkWithin1000(b *testing.B) {
	x, y := bench1000()
	p := Compile(x)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := p.Within(y, 200); ok {
			b.Fatal("within")
		}
	}
}

// BenchmarkDecideMiss is the bounded decision (Thresholds.Decide, the
// pattern compiled in every call) on the non-matching pair of
// BenchmarkDistance1000, at the default thresholds for pages of two hosts.
func BenchmarkDecideMiss(b *testing.B) {
	x, y := bench1000()
	var th Thresholds
	b.ReportAllocs()
	for b.Loop() {
		if dup, _, _ := th.Decide(x, y, false); dup {
			b.Fatal("duplicate")
		}
	}
}

// hanPage returns the text of a page whose feature string is n random Han
// characters of a 3,000-character alphabet, each before a 。.
func hanPage(r *rand.Rand, n int) string {
	var b []rune
	for range n {
		b = append(b, '文', 0x4E00+rune(r.IntN(3000)), '。')
	}
	return string(b)
}

// BenchmarkMatchAdd10k is Match and Add of a new page (feature strings of
// 10 to 200 characters) against 10,000 kept pages of such lengths; the page
// is removed again so that the repository stays at 10,000. It runs at the
// default thresholds and at the paper's (α 0.8, ε 0.2, β 0.6), whose
// narrower length window compares fewer pages.
func BenchmarkMatchAdd10k(b *testing.B) {
	for _, c := range []struct {
		name string
		t    Thresholds
	}{
		{"default", Thresholds{}},
		{"paper", Thresholds{Alpha: PaperAlpha, Epsilon: PaperEpsilon, Beta: 0.6}},
	} {
		b.Run(c.name, func(b *testing.B) { benchMatchAdd10k(b, c.t) })
	}
}

func benchMatchAdd10k(b *testing.B, t Thresholds) {
	r := rand.New(rand.NewPCG(10, 20))
	det, err := New(Options{Thresholds: t})
	if err != nil {
		b.Fatal(err)
	}
	doc := func(id string) *neardup.Document {
		return &neardup.Document{ID: id, Host: id + ".example", Page: &preprocess.Page{Text: hanPage(r, 10+r.IntN(191))}}
	}
	for i := range 10000 {
		if err := det.Add(b.Context(), doc(fmt.Sprint("kept", i))); err != nil {
			b.Fatal(err)
		}
	}
	pages := make([]*neardup.Document, 512)
	for i := range pages {
		pages[i] = doc(fmt.Sprint("new", i))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d := pages[i%len(pages)]
		i++
		if ms, err := det.Match(b.Context(), d); err != nil || len(ms) != 0 {
			b.Fatal(ms, err)
		}
		if err := det.Add(b.Context(), d); err != nil {
			b.Fatal(err)
		}
		if err := det.Remove(b.Context(), d.ID); err != nil {
			b.Fatal(err)
		}
	}
}
