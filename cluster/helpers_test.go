package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// kwDoc returns a document whose page has the given keywords, most frequent
// first (counts len(words), len(words)-1, ...), so that Keywords returns
// them in this order, and one sentence per keyword.
func kwDoc(id string, words ...string) *neardup.Document {
	p := &preprocess.Page{Language: "en"}
	for i, w := range words {
		p.Terms = append(p.Terms, preprocess.Term{Text: w, Count: len(words) - i})
		p.Sentences = append(p.Sentences, w+".")
		for range len(words) - i {
			p.Tokens = append(p.Tokens, w)
		}
	}
	return &neardup.Document{ID: id, Page: p}
}

// topics returns n items of f codes drawn from t topics: item i belongs to
// topic i%t, and each of its codes is, with probability 1-noise, one of its
// topic's 3f codes (Zipf-like: lower codes more often) and otherwise any
// code of a shared vocabulary of 40f.
func topics(seed uint64, n, t, f int, noise float64) (items [][]uint32, topic []int) {
	r := rand.New(rand.NewPCG(seed, 17))
	for i := range n {
		tp := i % t
		seen := map[uint32]bool{}
		var it []uint32
		for len(it) < f {
			var c uint32
			if r.Float64() < noise {
				c = uint32(t*3*f + r.IntN(40*f))
			} else {
				x := r.ExpFloat64() * float64(f)
				c = uint32(tp*3*f + min(int(x), 3*f-1))
			}
			if !seen[c] {
				seen[c] = true
				it = append(it, c)
			}
		}
		items = append(items, it)
		topic = append(topic, tp)
	}
	return items, topic
}

// codeWords names codes as keywords: "w<code>".
func codeWords(codes ...uint32) []string {
	words := make([]string, len(codes))
	for j, c := range codes {
		words[j] = fmt.Sprintf("w%d", c)
	}
	return words
}

// codeDocs turns items of codes into keyword documents (codeWords), whose
// keywords are first seen in the order of the codes.
func codeDocs(items [][]uint32) []*neardup.Document {
	docs := make([]*neardup.Document, len(items))
	for i, it := range items {
		docs[i] = kwDoc(fmt.Sprintf("d%05d", i), codeWords(it...)...)
	}
	return docs
}

func mustNew(t testing.TB, o KModesOptions) *KModes {
	t.Helper()
	km, err := NewKModes(o)
	if err != nil {
		t.Fatal(err)
	}
	return km
}

// home returns d's home under km: the first cluster Partition returns.
func home(km *KModes, d *neardup.Document) (int, error) {
	ps, err := km.Partition(d)
	if err != nil {
		return 0, err
	}
	return ps[0], nil
}

// placeOf returns where det keeps the page kept under id, and whether id is
// kept.
func placeOf(det *Detector, id string) (place, bool) {
	s := det.get()
	s.mu.RLock()
	defer s.mu.RUnlock()
	k, ok := s.kept[id]
	if !ok {
		return place{}, false
	}
	return k.at, true
}

// probesOf returns the places det compares d within, the first where Add
// would keep it.
func probesOf(det *Detector, d *neardup.Document) ([]place, error) {
	s := det.get()
	l, err := s.locate(d)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.probes(l), nil
}

func termOf(w string, n int) preprocess.Term { return preprocess.Term{Text: w, Count: n} }

// newCascade returns the cascade of Kumar and Govindarajulu (§3) with the
// library's defaults, sentence count then SimHash, its index sized for
// expected pages: the cluster detector of the tests.
func newCascade(expected int) (neardup.Detector, error) {
	bySentences, err := sentence.New(sentence.Options{})
	if err != nil {
		return nil, err
	}
	byPrint, err := simhash.New(simhash.Options{ExpectedSize: max(expected, 1024)})
	if err != nil {
		return nil, err
	}
	return neardup.NewCascade(bySentences, byPrint)
}

// cascades is Options.NewDetector for the tests: a newCascade per cluster.
func cascades(_, expected int) (neardup.Detector, error) { return newCascade(expected) }
