package neardup_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// synthetic returns a document with random terms from a vocabulary and a
// sentence count between 5 and 200.
func synthetic(r *rand.Rand, id string, vocab []string) *neardup.Document {
	terms := make([]preprocess.Term, 60)
	for i := range terms {
		terms[i] = preprocess.Term{Text: vocab[r.IntN(len(vocab))], Count: 1 + r.IntN(5)}
	}
	return &neardup.Document{ID: id, Page: &preprocess.Page{Sentences: make([]string, 5+r.IntN(196)), Terms: terms}}
}

// BenchmarkCascadeMatch compares the two orders of the sentence + SimHash cascade over
// the same kept documents. Both return the same matches (a page must pass both
// tests); the order decides the cost: sentence first hands SimHash every page
// within T_s sentences, SimHash first asks its k-bit index and hands the
// sentence filter only the pages within T_B bits.
func BenchmarkCascadeMatch(b *testing.B) {
	const kept = 20_000
	r := rand.New(rand.NewPCG(3, 4))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	docs := make([]*neardup.Document, kept)
	for i := range docs {
		docs[i] = synthetic(r, fmt.Sprint(i), vocab)
	}
	queries := make([]*neardup.Document, 256)
	for i := range queries {
		queries[i] = synthetic(r, fmt.Sprint("q", i), vocab)
	}
	for _, order := range []string{"sentence-simhash", "simhash-sentence"} {
		b.Run(order, func(b *testing.B) {
			s, _ := sentence.New(sentence.Options{})
			h, _ := simhash.New(simhash.Options{ExpectedSize: kept})
			stages := []neardup.Detector{s, h}
			if order == "simhash-sentence" {
				stages = []neardup.Detector{h, s}
			}
			c, err := neardup.NewCascade(stages...)
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range docs {
				if err := c.Add(b.Context(), d); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := c.Match(b.Context(), queries[i%len(queries)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "matches/s")
		})
	}
}

// Both orders of the cascade give the same matches.
func TestCascadeOrderSameMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vocab := make([]string, 60)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	newCascade := func(simhashFirst bool) *neardup.Cascade {
		s, _ := sentence.New(sentence.Options{Threshold: 30})
		h, _ := simhash.New(simhash.Options{MaxDistance: 12})
		stages := []neardup.Detector{s, h}
		if simhashFirst {
			stages = []neardup.Detector{h, s}
		}
		c, err := neardup.NewCascade(stages...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := newCascade(false), newCascade(true)
	matched := 0
	for i := range 600 {
		d := synthetic(r, fmt.Sprint(i), vocab)
		ma, _ := a.Match(t.Context(), d)
		mb, _ := b.Match(t.Context(), d)
		if len(ma) > 0 {
			matched++
		}
		// Scores differ (each order reports its last stage's); the IDs agree.
		ida, idb := map[string]bool{}, map[string]bool{}
		for _, m := range ma {
			ida[m.ID] = true
		}
		for _, m := range mb {
			idb[m.ID] = true
		}
		if fmt.Sprint(ida) != fmt.Sprint(idb) {
			t.Fatalf("doc %d: sentence first %v, simhash first %v", i, ma, mb)
		}
		if i%2 == 0 {
			a.Add(t.Context(), d)
			b.Add(t.Context(), d)
		}
	}
	if matched == 0 {
		t.Fatal("no document matched: the test compares nothing")
	}
}
