package peer_test

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	minhashlsh "github.com/ekzhu/minhash-lsh"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/docid"
	"github.com/neardup/neardup/internal/synth"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

var large = flag.Bool("peer.large", false, "also run BenchmarkPeer at n=100k (gigabytes of preprocessed pages held; minhash-lsh re-sorts its tables for every kept page, so it runs long)")

// The sketches both sides compare: k hashes of the 4-token shingles of a
// page's analysed tokens, and the Jaccard similarity at which two pages are
// near-duplicates, that of the Detector's content distance (1 − 0.62).
const (
	k         = minhash.DefaultSketchSize
	width     = minhash.DefaultShingleWidth
	threshold = 1 - minhash.DefaultContentDistance
	// seed is minhash-lsh's seed of its hash functions (any value).
	seed = 1
)

// crawl is the generated crawl, preprocessed once: every method reads the
// same pages and tokens, and none is timed preprocessing.
type crawl struct {
	ids, urls []string
	groups    []int
	dup       []bool
	pages     []*preprocess.Page
}

// load generates the first n pages of the crawl of seed 1 and preprocesses
// them. It keeps of each Page what the methods read (Text, Tokens, Blocks).
func load(tb testing.TB, n int) *crawl {
	tb.Helper()
	gen, err := synth.New(synth.Options{Seed: 1, Pages: n})
	if err != nil {
		tb.Fatal(err)
	}
	pipe, err := preprocess.New(preprocess.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	c := &crawl{
		ids:    make([]string, 0, n),
		urls:   make([]string, 0, n),
		groups: make([]int, 0, n),
		dup:    make([]bool, 0, n),
		pages:  make([]*preprocess.Page, 0, n),
	}
	for p := range gen.All() {
		page, err := pipe.Process(p.HTML)
		if err != nil {
			tb.Fatalf("page %s: %v", p.ID, err)
		}
		c.ids = append(c.ids, p.ID)
		c.urls = append(c.urls, p.URL)
		c.groups = append(c.groups, p.Group)
		c.dup = append(c.dup, p.Duplicate())
		c.pages = append(c.pages, &preprocess.Page{Text: page.Text, Tokens: page.Tokens, Blocks: page.Blocks, Language: page.Language})
	}
	return c
}

// outcome is what one pass of a method over the crawl measured.
type outcome struct {
	pages int
	kept  int
	// spent is the time of the method's calls for all pages (sketch,
	// query and insert); sketch, query and insert split it where the
	// method's API allows.
	spent, sketch, query, insert time.Duration
	compared                     int64 // candidates compared
	heap                         int64 // bytes held by the method's structures after GC
	tp, fp, fn, wrong            int
}

// score counts page i's verdict: flagged (it matched a kept page of group
// matched) or kept.
func (o *outcome) score(c *crawl, i int, flagged bool, matched int) {
	o.pages++
	switch {
	case flagged && c.dup[i] && matched == c.groups[i]:
		o.tp++
	case flagged && c.dup[i]:
		o.wrong++ // a near-duplicate matched to another group: wrong both ways
	case flagged:
		o.fp++
	case c.dup[i]:
		o.fn++
	}
}

// step accounts for page i of a sketch finder: the times it spent sketching
// (t0 to t1), querying (t1 to t2) and inserting (t2 to t3), and its verdict,
// best being the index in at (the crawl indexes of the kept pages) of the
// page it matched, or -1 when it kept page i. It returns at, extended when
// page i was kept.
func (o *outcome) step(c *crawl, i, best int, at []int, t0, t1, t2, t3 time.Time) []int {
	o.sketch += t1.Sub(t0)
	o.query += t2.Sub(t1)
	o.insert += t3.Sub(t2)
	if best < 0 {
		o.score(c, i, false, 0)
		return append(at, i)
	}
	o.score(c, i, true, c.groups[at[best]])
	return at
}

func (o outcome) precision() float64 { return ratio(o.tp, o.tp+o.fp+o.wrong) }
func (o outcome) recall() float64    { return ratio(o.tp, o.tp+o.fn+o.wrong) }
func (o outcome) f1() float64 {
	p, r := o.precision(), o.recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (o outcome) report(b *testing.B) {
	perPage := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(o.pages) }
	b.ReportMetric(perPage(o.spent), "us/page")
	if o.sketch > 0 {
		b.ReportMetric(perPage(o.sketch), "sketch-us/page")
		b.ReportMetric(perPage(o.query), "query-us/page")
		b.ReportMetric(perPage(o.insert), "insert-us/page")
	}
	b.ReportMetric(float64(o.compared)/float64(o.pages), "cmp/page")
	b.ReportMetric(float64(o.heap)/float64(o.kept), "B/page")
	b.ReportMetric(o.recall(), "recall")
	b.ReportMetric(o.precision(), "precision")
	b.ReportMetric(o.f1(), "F1")
	b.ReportMetric(0, "ns/op")
}

// heldBy returns the heap bytes that drop releases: the live heap after GC
// before and after drop is called.
func heldBy(drop func()) int64 {
	var with, without runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&with)
	drop()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&without)
	return int64(with.HeapAlloc) - int64(without.HeapAlloc)
}

// A method passes the crawl through one near-duplicate finder as a crawler
// would: for each page, match it against the kept pages, and keep it when
// nothing matches.
type method struct {
	name string
	run  func(tb testing.TB, c *crawl) outcome
}

// methods are the finders compared, in the order they run.
func methods() []method {
	return []method{
		{"minhash.Detector", runDetector},
		{"ekzhu-minhash-lsh", runLSH},
	}
}

// runDetector is the library's detector: minhash.New(minhash.Options{})
// and its MatchOrAdd, which sketches the page itself (whole page and
// content, less its host's template) and compares it with its candidates.
func runDetector(tb testing.TB, c *crawl) outcome {
	var o outcome
	det, err := minhash.New(minhash.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	group := make(map[string]int, len(c.ids))
	for i, page := range c.pages {
		d := &neardup.Document{ID: c.ids[i], Host: docid.Host(c.urls[i]), Page: page}
		t0 := time.Now()
		ms, added, err := det.MatchOrAdd(context.Background(), d)
		o.spent += time.Since(t0)
		if err != nil {
			tb.Fatal(err)
		}
		if g, again := group[c.ids[i]]; added && again {
			o.score(c, i, true, g) // its own page offered again: a copy of the page kept (neardup.MatchAdder)
		} else if added {
			group[c.ids[i]] = c.groups[i]
			o.score(c, i, false, 0)
		} else {
			o.score(c, i, true, group[ms[0].ID])
		}
	}
	o.compared = det.Comparisons()
	o.kept = det.Len()
	o.heap = heldBy(func() { det = nil })
	runtime.KeepAlive(group)
	return o
}

// runLSH is github.com/ekzhu/minhash-lsh as its documentation has it:
// a Minhash of 128 hash functions (NewMinhash) pushed every 4-token shingle
// of the whole page, a MinhashLSH made for the threshold (NewMinhashLSH,
// which picks its bands and rows for it, 32-bit hash values), Query for the
// candidates, the signatures' estimated Jaccard ≥ threshold to match, and
// Add then Index to make a kept page searchable before the next page.
func runLSH(tb testing.TB, c *crawl) outcome {
	var o outcome
	type kept struct {
		ids  []string
		sigs [][]uint64
		lsh  *minhashlsh.MinhashLSH
	}
	s := &kept{lsh: minhashlsh.NewMinhashLSH(k, threshold)}
	rows, bands := s.lsh.Params()
	tb.Logf("minhash-lsh at Jaccard %.2f: %d bands of %d rows", threshold, bands, rows)
	at := make([]int, 0, len(c.ids))
	var shingle []byte
	for i, page := range c.pages {
		t0 := time.Now()
		mh := minhashlsh.NewMinhash(seed, k)
		toks := page.Tokens
		if len(toks) < width { // one shingle of all its tokens, as a Builder does
			shingle = appendShingle(shingle[:0], toks)
			mh.Push(shingle)
		}
		for j := 0; j+width <= len(toks); j++ {
			shingle = appendShingle(shingle[:0], toks[j:j+width])
			mh.Push(shingle)
		}
		sig := mh.Signature()
		t1 := time.Now()
		best, bestJ := -1, 0.0
		cands := s.lsh.Query(sig)
		for _, key := range cands {
			id := key.(int)
			if j := similarity(sig, s.sigs[id]); j >= threshold && j > bestJ {
				best, bestJ = id, j
			}
		}
		o.compared += int64(len(cands))
		t2 := time.Now()
		if best < 0 {
			s.lsh.Add(len(s.sigs), sig)
			s.lsh.Index()
			s.sigs = append(s.sigs, sig)
			s.ids = append(s.ids, c.ids[i])
		}
		at = o.step(c, i, best, at, t0, t1, t2, time.Now())
	}
	o.spent = o.sketch + o.query + o.insert
	o.kept = len(s.sigs)
	o.heap = heldBy(func() { s = nil })
	runtime.KeepAlive(at)
	return o
}

// appendShingle appends the tokens, separated by spaces, to dst.
func appendShingle(dst []byte, toks []string) []byte {
	for j, t := range toks {
		if j > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, t...)
	}
	return dst
}

// similarity is the Jaccard estimate of two MinHash signatures: the share
// of their positions that hold the same hash (as minhash-lsh's underlying
// MinWise.Similarity computes it).
func similarity(a, b []uint64) float64 {
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	return float64(same) / float64(len(a))
}

// BenchmarkPeer passes the same generated crawl (internal/synth, seed 1)
// through the library's Detector and through github.com/ekzhu/minhash-lsh,
// in one process, and reports per page:
//
//   - us/page: the method's calls (sketch, query, verify, insert), mean;
//     preprocessing is done once before and not counted
//   - sketch-us/page, query-us/page, insert-us/page: its parts, where the
//     API separates them
//   - cmp/page: candidates compared, mean
//   - B/page: heap per kept page held by the method's structures, after GC
//   - recall, precision, F1: a page is flagged when it matches a kept page;
//     a near-duplicate matched to a page of another group counts against
//     both precision and recall
//
// One iteration is the whole crawl:
//
//	go test github.com/neardup/neardup/minhash/peer -run '^$' -bench Peer -benchtime 1x -count 3 -cpu 1
//
// -peer.large adds n=100k.
func BenchmarkPeer(b *testing.B) {
	sizes := []int{10_000}
	if *large {
		sizes = append(sizes, 100_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%dk", n/1000), func(b *testing.B) {
			c := load(b, n)
			for _, m := range methods() {
				b.Run(m.name, func(b *testing.B) {
					var o outcome
					for b.Loop() {
						o = m.run(b, c)
					}
					o.report(b)
				})
			}
		})
	}
}

// TestPeer checks on a short crawl that every method finds most of its
// near-duplicates and flags few others, so that the benchmark measures
// working finders.
func TestPeer(t *testing.T) {
	c := load(t, 500)
	dups := 0
	for _, d := range c.dup {
		if d {
			dups++
		}
	}
	if dups < 30 {
		t.Fatalf("the crawl has %d near-duplicates in %d pages; want 30 at least", dups, len(c.dup))
	}
	for _, m := range methods() {
		o := m.run(t, c)
		t.Logf("%s: recall %.3f precision %.3f, %d kept, %d B per kept page", m.name, o.recall(), o.precision(), o.kept, o.heap/int64(max(o.kept, 1)))
		if o.pages != len(c.ids) || o.kept+o.tp+o.fp+o.wrong != o.pages {
			t.Errorf("%s: %d pages scored, %d kept, %d flagged; want %d pages, each kept or flagged", m.name, o.pages, o.kept, o.tp+o.fp+o.wrong, len(c.ids))
		}
		if o.recall() < 0.8 {
			t.Errorf("%s: recall %.3f, want ≥ 0.8", m.name, o.recall())
		}
		if o.precision() < 0.5 {
			t.Errorf("%s: precision %.3f, want ≥ 0.5", m.name, o.precision())
		}
	}
}
