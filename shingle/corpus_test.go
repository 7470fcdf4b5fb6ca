package shingle

import (
	"flag"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/race"
	"github.com/neardup/neardup/preprocess"
)

// corpusRoot is the folder of the labelled corpora the corpus tests and
// benchmarks read (en-dev, zh-dev); empty, they read the samples the
// repository holds.
var corpusRoot = flag.String("corpus", "", "folder of the labelled corpora (en-dev, zh-dev); empty: the repository's en-sample and zh-sample")

type corpusPage struct {
	doc   *neardup.Document
	group string
}

var corpusCache sync.Map // dir and row count → []corpusPage

// loadCorpus preprocesses every page of the corpus at dir with the default
// preprocess.Pipeline, in manifest order; pages the pipeline rejects (or
// that have no tokens) are left out.
func loadCorpus(tb testing.TB, dir string) []corpusPage { return loadCorpusN(tb, dir, 0) }

// loadCorpusN is loadCorpus of the first n pages of the manifest (all when
// n is 0).
func loadCorpusN(tb testing.TB, dir string, n int) []corpusPage {
	tb.Helper()
	key := dir + "\x00" + strconv.Itoa(n)
	if c, ok := corpusCache.Load(key); ok {
		return c.([]corpusPage)
	}
	rows, err := corpus.Read(dir, n)
	if err != nil {
		tb.Fatal(err)
	}
	var p preprocess.Pipeline
	pages := make([]corpusPage, len(rows))
	err = parallel(tb.Context(), len(rows), func(i int) error {
		d, err := neardup.NewDocument(&p, rows[i].ID, rows[i].URL, "", rows[i].Raw)
		if err == nil && len(d.Page.Tokens) > 0 {
			pages[i] = corpusPage{d, rows[i].Group}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	out := pages[:0]
	for _, p := range pages {
		if p.doc != nil {
			out = append(out, p)
		}
	}
	corpusCache.Store(key, out)
	return out
}

// TestCorpusRecall measures the candidate generator (the prefix index) against
// comparing every pair, on the real pages of en-dev and zh-dev: the recall of
// the index, the number of exact comparisons it makes per page, and how many
// of the pairs within the threshold are labeled duplicates. Form Equation at
// 0.2 and 1, Form Normalized at its default threshold.
func TestCorpusRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("reads and compares whole corpora")
	}
	for _, lang := range []string{"en", "zh"} {
		dir := corpus.Dir(*corpusRoot, "..", lang)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			rows := 0 // all
			if race.Enabled {
				rows = 300 // the first pages of the manifest, their groups among them
			}
			pages := loadCorpusN(t, dir, rows)
			t.Logf("%s: %d pages preprocessed in %v", name, len(pages), time.Since(start).Round(time.Millisecond))
			vs := make([]*Vector, len(pages))
			for i, p := range pages {
				var err error
				if vs[i], err = VectorOf(p.doc, DefaultM); err != nil {
					t.Fatal(err)
				}
			}
			for _, o := range []Options{{Threshold: PaperThreshold, Form: Equation}, {Threshold: 1, Form: Equation}, {Form: Normalized}} {
				o.MaxPatterns, o.MaxPostings = NoLimit, NoLimit // the exact method
				o, _ = o.resolve()
				th := o.Threshold
				start := time.Now()
				want := exhaustiveBounded(t, vs, o)
				tEx := time.Since(start)
				// Every page is kept, then each is matched (in parallel)
				// and only its matches among the pages before it are
				// counted: the pairs streaming would find, in half the time.
				dt, _ := New(o)
				start = time.Now()
				pos := make(map[string]int, len(pages))
				for i, p := range pages {
					if err := dt.Add(t.Context(), p.doc); err != nil {
						t.Fatal(err)
					}
					pos[p.doc.ID] = i
				}
				got := make([][]int, len(pages))
				candsOf := make([]int, len(pages))
				err := parallel(t.Context(), len(pages), func(i int) error {
					ms, err := dt.Match(t.Context(), pages[i].doc)
					for _, m := range ms {
						if j := pos[m.ID]; j < i {
							got[i] = append(got[i], j)
						}
					}
					slices.Sort(got[i])
					candsOf[i] = dt.candidates(vs[i], func(h detector.Handle) bool { return int(h) < i }) // handles count Adds
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				tIdx := time.Since(start)
				found, total, labeled, cands := 0, 0, 0, 0
				for i, p := range pages {
					cands += candsOf[i]
					for _, j := range want[i] {
						total++
						if _, ok := slices.BinarySearch(got[i], j); ok {
							found++
						}
						if pages[j].group == p.group {
							labeled++
						}
					}
					if !slices.Equal(got[i], want[i]) {
						t.Errorf("page %s: index finds %v, exhaustive %v", p.doc.ID, got[i], want[i])
					}
				}
				recall := 1.0
				if total > 0 {
					recall = float64(found) / float64(total)
				}
				t.Logf("%v threshold %g: %d pairs below it (%d labeled duplicates); candidate recall %d/%d = %.4f; "+
					"%.1f candidates per page against %.0f for all pairs; index %v, exhaustive (lower-bound pruned) %v",
					o.Form, th, total, labeled, found, total, recall, float64(cands)/float64(len(pages)),
					float64(len(pages)-1)/2, tIdx.Round(time.Millisecond), tEx.Round(time.Millisecond))
				if recall < 1 {
					t.Errorf("candidate recall %.4f < 1", recall)
				}
			}
		})
	}
}

// exhaustiveBounded returns, for every i, the j < i within the threshold of o
// (Form Equation or Normalized) by comparing every pair (skipping only pairs
// whose O(M) lower bound already reaches it, or whose merge, with a margin,
// does, which cannot change the answer); Dissimilarity decides the rest.
func exhaustiveBounded(tb testing.TB, vs []*Vector, o Options) [][]int {
	th := o.Threshold
	out := make([][]int, len(vs))
	err := parallel(tb.Context(), len(vs), func(i int) error {
		for j := range i {
			a, b := vs[i], vs[j]
			scale := 1.0
			if o.Form == Normalized {
				scale = a.total + b.total
			}
			if lowerBound(a, b) >= th*scale {
				continue
			}
			if _, ok := equationBelow(a, b, th*scale*(1+1e-6)); ok && Dissimilarity(a, b, o.Form) < th {
				out[i] = append(out[i], j)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// candidates returns how many kept documents whose handle passes keep Match
// would compare v with. Only for use while nothing is added or removed.
func (dt *Detector) candidates(v *Vector, keep func(h detector.Handle) bool) int {
	st := storeOf(dt)
	seen := map[*entry]bool{}
	n := v.prefixLen(st.opts.prefixWeight(v))
	for _, key := range v.keys[:n] {
		for _, e := range st.index[key] {
			seen[e] = keep(e.h)
		}
	}
	if st.opts.light(v, n) {
		for _, e := range st.short {
			seen[e] = keep(e.h)
		}
	}
	for e, ok := range seen {
		if !ok {
			delete(seen, e)
		}
	}
	return len(seen)
}
