package shingle

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
)

// tenKB returns the vectors of the first 10 KB of visible text of the
// pageinspect page and of its edited copy (testdata), words lower-cased and
// kept all (no stop words removed: more patterns than the preprocess
// pipeline leaves, so the figure is conservative).
func tenKB(tb testing.TB) (a, b *Vector) {
	a, _ = NewVector(testdataWords(tb, "pageinspect.html", 10<<10), DefaultM)
	b, _ = NewVector(testdataWords(tb, "pageinspect-edited.html", 10<<10), DefaultM)
	return a, b
}

// BenchmarkDissimilarity10KB: Eq. (1) of two 10 KB near-duplicate pages.
func BenchmarkDissimilarity10KB(b *testing.B) {
	x, y := tenKB(b)
	b.Logf("%d and %d patterns, D = %.3f", x.Len(), y.Len(), Dissimilarity(x, y, Equation))
	b.SetBytes(10 << 10)
	b.ReportAllocs()
	for b.Loop() {
		Dissimilarity(x, y, Equation)
	}
}

// BenchmarkDissimilarity10KBUnrelated: Eq. (1) of two unrelated 10 KB pages
// (the start and the end of the page), the worst case for the merge.
func BenchmarkDissimilarity10KBUnrelated(b *testing.B) {
	w := testdataWords(b, "pageinspect.html", 0)
	x, _ := NewVector(w[:len(w)/2], DefaultM)
	y, _ := NewVector(w[len(w)/2:], DefaultM)
	b.Logf("%d and %d patterns, D = %.3f", x.Len(), y.Len(), Dissimilarity(x, y, Equation))
	b.ReportAllocs()
	for b.Loop() {
		Dissimilarity(x, y, Equation)
	}
}

func TestDissimilarityAllocs(t *testing.T) {
	x, y := tenKB(t)
	for _, f := range []Form{Equation, TableForm, Normalized} {
		if n := testing.AllocsPerRun(100, func() { Dissimilarity(x, y, f) }); n != 0 {
			t.Errorf("%v: %v allocs per comparison, want 0", f, n)
		}
	}
}

// BenchmarkNewVector10KB: patterns and weights of a 10 KB page.
func BenchmarkNewVector10KB(b *testing.B) {
	w := testdataWords(b, "pageinspect.html", 10<<10)
	b.SetBytes(10 << 10)
	b.ReportAllocs()
	for b.Loop() {
		NewVector(w, DefaultM)
	}
}

// BenchmarkDetectorMatchAdd: MatchOrAdd of one page against 10,000 kept
// synthetic pages of 100–600 tokens (a Zipf vocabulary, a third of them
// edited copies of earlier ones): the default Options, and Form Equation at
// thresholds 0.2 and 1. cmp/op is the kept pages compared per page.
func BenchmarkDetectorMatchAdd(b *testing.B) {
	pages := synthetic(7, 10000+4096, 100, 600)
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"default", Options{}},
		{"equation/threshold=0.2", Options{Threshold: PaperThreshold, Form: Equation}},
		{"equation/threshold=1", Options{Threshold: 1, Form: Equation}},
	} {
		b.Run("kept=10000/"+c.name, func(b *testing.B) {
			dt, _ := New(c.o)
			for i, p := range pages[:10000] {
				if err := dt.Add(b.Context(), doc(fmt.Sprint(i), p...)); err != nil {
					b.Fatal(err)
				}
			}
			queries := make([]*neardup.Document, 4096)
			for i := range queries {
				queries[i] = doc(fmt.Sprint("q", i), pages[10000+i]...)
				VectorOf(queries[i], DefaultM) // preprocessing is not what is measured
			}
			b.ReportAllocs()
			i := 0
			before := dt.Comparisons()
			for b.Loop() {
				q := queries[i%len(queries)]
				if _, added, _ := dt.MatchOrAdd(b.Context(), q); added {
					_ = dt.Remove(b.Context(), q.ID) // keep the detector at 10,000 pages
				}
				i++
			}
			b.ReportMetric(float64(dt.Comparisons()-before)/float64(b.N), "cmp/op")
		})
	}
}

// BenchmarkDedupEnDev: Dedup of the whole en-dev corpus (-corpus; the
// repository's en-sample without it), preprocessed and vectors computed
// beforehand.
func BenchmarkDedupEnDev(b *testing.B) {
	pages := loadCorpus(b, corpus.Dir(*corpusRoot, "..", "en"))
	docs := make([]*neardup.Document, len(pages))
	for i, p := range pages {
		docs[i] = p.doc
		VectorOf(p.doc, DefaultM)
	}
	for _, th := range []float64{PaperThreshold, 1} {
		b.Run(fmt.Sprintf("threshold=%g", th), func(b *testing.B) {
			var gs []Group
			for b.Loop() {
				var err error
				if gs, err = Dedup(b.Context(), docs, Options{Threshold: th, Form: Equation}); err != nil {
					b.Fatal(err)
				}
			}
			removed := 0
			for _, g := range gs {
				removed += len(g.Removed)
			}
			b.ReportMetric(float64(len(gs)), "groups")
			b.ReportMetric(float64(removed), "removed")
		})
	}
}

// BenchmarkStreamEnDev: MatchOrAdd of every en-dev page into a fresh
// Detector, as examples/evaluate streams them (vectors computed beforehand).
func BenchmarkStreamEnDev(b *testing.B) {
	pages := loadCorpus(b, corpus.Dir(*corpusRoot, "..", "en"))
	for _, p := range pages {
		VectorOf(p.doc, DefaultM)
	}
	for _, o := range []Options{{Threshold: PaperThreshold, Form: Equation}, {Threshold: 12, Form: Equation}, {Form: Normalized}} {
		o, _ = o.resolve()
		b.Run(fmt.Sprintf("%v/threshold=%g", o.Form, o.Threshold), func(b *testing.B) {
			for b.Loop() {
				dt, _ := New(o)
				for _, p := range pages {
					if _, _, err := dt.MatchOrAdd(b.Context(), p.doc); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(pages))*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
