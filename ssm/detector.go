package ssm

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/snapshot"
	"github.com/neardup/neardup/preprocess"
)

// DefaultN is Options.N when it is zero: the paper's top 10 keywords (§3.6).
const DefaultN = 10

// DefaultCutoff is Options.Cutoff when it is zero: 7. The paper prints no
// cut-off, and its worked examples (a near-duplicate at 19.59, a distinct
// page at 52.64) have term frequencies in the hundreds; on real pages, whose
// top keywords mostly occur fewer than 30 times, a cut-off near 20 flags
// unrelated pages. 7 was chosen on labelled corpora, leaving one out
// (docs/BENCHMARKS.md).
const DefaultCutoff = 7

// AbsSSM is the Measure of this package's matches: |SSM(T1, T2)| of the new
// document's table T1 and the kept document's T2 (lower is closer).
const AbsSSM neardup.Measure = "ssm"

// Rule says how SSM is compared with the cut-off.
type Rule int

const (
	// Magnitude: a near-duplicate iff |SSM| < Cutoff. A page whose common
	// keywords are much rarer than in a kept page (SSM far below zero) is
	// not its near-duplicate.
	Magnitude Rule = iota
	// Signed: a near-duplicate iff SSM < Cutoff, the paper's rule as printed
	// (§3.7): every negative SSM is a near-duplicate.
	Signed
)

// String returns "magnitude" or "signed".
func (r Rule) String() string {
	switch r {
	case Magnitude:
		return "magnitude"
	case Signed:
		return "signed"
	}
	return "Rule(" + strconv.Itoa(int(r)) + ")"
}

// Options configures a Detector. The zero value gives the defaults: N = 10,
// Cutoff = DefaultCutoff, Rule Magnitude.
type Options struct {
	// N is the number of top keywords a document's table keeps. Zero means
	// DefaultN; valid: 1..MaxN.
	N int
	// Cutoff: a kept document is a near-duplicate of a new one when their
	// SSM (by Rule) is below Cutoff. Zero means DefaultCutoff; valid: any
	// finite value > 0.
	Cutoff float64
	// Rule compares SSM with Cutoff: Magnitude (the zero value) or Signed.
	Rule Rule
}

// resolve fills in defaults and validates o.
func (o Options) resolve() (Options, error) {
	if o.N == 0 {
		o.N = DefaultN
	}
	if o.Cutoff == 0 {
		o.Cutoff = DefaultCutoff
	}
	if o.N < 1 || o.N > MaxN {
		return o, fmt.Errorf("ssm: Options.N = %d not in 1..%d: %w", o.N, MaxN, neardup.ErrInvalidOption)
	}
	if !(o.Cutoff > 0) || math.IsInf(o.Cutoff, 0) {
		return o, fmt.Errorf("ssm: Options.Cutoff = %v, want a finite value > 0: %w", o.Cutoff, neardup.ErrInvalidOption)
	}
	if o.Rule != Magnitude && o.Rule != Signed {
		return o, fmt.Errorf("ssm: Options.Rule = %v: %w", o.Rule, neardup.ErrInvalidOption)
	}
	return o, nil
}

// near returns the Score of an SSM value s and whether it is a match.
func (o Options) near(s float64) (float64, bool) {
	if o.Rule == Signed {
		return math.Abs(s), s < o.Cutoff
	}
	return math.Abs(s), math.Abs(s) < o.Cutoff
}

type featureKey struct{ n int }

// TableOf returns the keyword table of d's page: its n most frequent analysed
// terms (d.Page.Top(n): count descending, then text ascending), computed once
// per Document and n through neardup.Feature. A nil document or page returns
// an error wrapping neardup.ErrNilDocument; a page without terms (empty, or
// only stop words), one wrapping neardup.ErrNoFeatures; n outside 1..MaxN,
// one wrapping neardup.ErrInvalidOption.
func TableOf(d *neardup.Document, n int) (Table, error) {
	if n < 1 || n > MaxN {
		return Table{}, fmt.Errorf("ssm: TableOf: n = %d not in 1..%d: %w", n, MaxN, neardup.ErrInvalidOption)
	}
	if err := neardup.Check(d); err != nil {
		return Table{}, fmt.Errorf("ssm: %w", err)
	}
	return neardup.Feature(d, featureKey{n}, func(d *neardup.Document) (Table, error) {
		top := d.Page.Top(n)
		if len(top) == 0 {
			return Table{}, fmt.Errorf("ssm: document %q has no keywords: %w", d.ID, neardup.ErrNoFeatures)
		}
		t, err := NewTable(top)
		if err != nil {
			return Table{}, fmt.Errorf("ssm: document %q: %w", d.ID, err)
		}
		return t, nil
	})
}

// Detector keeps the keyword tables of documents and finds the kept ones whose
// SSM to a new document is below the cut-off (§3.7). It implements
// neardup.Detector, neardup.Verifier, neardup.Remover, neardup.MatchAdder,
// neardup.Replacer and neardup.Persister. Scores are |SSM| (AbsSSM); lower is
// closer, and a kept document matches itself at 0.
//
// As the paper prescribes, a new document is compared only with the kept
// documents that share at least one of its top keywords: an inverted index
// maps each keyword to the kept documents whose tables hold it.
//
// A Detector is safe for concurrent use: Match and Verify run in parallel,
// Add, Replace, Remove and MatchOrAdd exclusively. The zero Detector is ready
// to use with the default Options.
type Detector struct {
	opts        Options // resolved
	core        detector.Lazy[Table, neardup.Document, neardup.Match]
	comparisons atomic.Int64
}

// New returns a Detector configured by opts. Options out of range return an
// error wrapping neardup.ErrInvalidOption.
func New(opts Options) (*Detector, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err // resolve's message names the package and the option
	}
	det := new(Detector)
	det.core.Set(det.build(o))
	return det, nil
}

// build makes the Core for resolved options o.
func (det *Detector) build(o Options) *detector.Core[Table, neardup.Document, neardup.Match] {
	det.opts = o
	return detector.NewCore(detector.Config[Table, neardup.Document, neardup.Match]{
		Name:  "ssm",
		Check: neardup.Check,
		ID:    func(d *neardup.Document) string { return d.ID },
		Match: func(id string, dist float64) neardup.Match {
			return neardup.Match{ID: id, Score: dist, Measure: AbsSSM}
		},
		Candidate: func(m neardup.Match) string { return m.ID },
		Extract:   func(d *neardup.Document) (Table, error) { return TableOf(d, o.N) },
		NewStore: func() detector.Store[Table] {
			return &store{opts: o, index: make(map[uint64][]detector.Handle), count: &det.comparisons}
		},
		Kind: "ssm.Detector",
		Params: []snapshot.Param{
			{Name: "N", Value: strconv.Itoa(o.N)},
			{Name: "Cutoff", Value: strconv.FormatFloat(o.Cutoff, 'g', -1, 64)},
			{Name: "Rule", Value: o.Rule.String()},
		},
		Encode: encodeTable,
		Decode: func(sr *snapshot.Reader) Table { return decodeTable(sr, o.N) },
	})
}

// encodeTable writes t's terms in index order: the count, then each text and
// term frequency.
func encodeTable(sw *snapshot.Writer, t Table) {
	sw.Varint(int64(len(t.terms)))
	for _, term := range t.terms {
		sw.Text(term.Text)
		sw.Varint(int64(term.Count))
	}
}

// decodeTable reads a table written by encodeTable of at most n terms,
// failing sr when it is not one NewTable builds in the same order.
func decodeTable(sr *snapshot.Reader, n int) Table {
	size := sr.Int(1, int64(n))
	if sr.Err() != nil {
		return Table{}
	}
	terms := make([]preprocess.Term, size)
	for i := range terms {
		terms[i].Text = sr.Text()
		terms[i].Count = int(sr.Int(1, math.MaxInt32))
		if sr.Err() != nil {
			return Table{}
		}
	}
	t, err := NewTable(terms)
	if err != nil {
		sr.Fail("%v", err)
		return Table{}
	}
	if !slices.Equal(t.terms, terms) {
		sr.Fail("table not in index order")
		return Table{}
	}
	return t
}

// c returns the detector's Core, made with the default Options for a zero
// Detector.
func (det *Detector) c() *detector.Core[Table, neardup.Document, neardup.Match] {
	return det.core.Get(func() *detector.Core[Table, neardup.Document, neardup.Match] {
		o, _ := Options{}.resolve() // the defaults are valid
		return det.build(o)
	})
}

// Options returns the detector's options with the defaults filled in.
func (det *Detector) Options() Options {
	det.c()
	return det.opts
}

// Comparisons returns how many times the detector has computed the SSM of a
// new document's table and a kept one in Match, Verify, MatchOrAdd and
// Replace since it was made: the search space the inverted index (and a
// partition) leaves.
func (det *Detector) Comparisons() int64 {
	det.c()
	return det.comparisons.Load()
}

// Len returns the number of kept documents.
func (det *Detector) Len() int { return det.c().Len() }

// Lookup returns the table kept for id, and whether id is kept.
func (det *Detector) Lookup(id string) (Table, bool) { return det.c().Lookup(id) }

// Match returns the kept documents near d, closest first (ties by ID), with
// Score = |SSM(T_d, T_kept)|. Errors wrap neardup.ErrNilDocument (nil d or no
// Page) or neardup.ErrNoFeatures (no keywords).
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	return det.c().Match(ctx, d)
}

// Verify returns the candidates that are kept and near d, closest first (ties
// by ID), scored with |SSM|. The candidates' incoming scores are ignored;
// candidates this detector does not keep, or that share no keyword with d,
// are dropped, and a repeated candidate is reported once.
func (det *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	return det.c().Verify(ctx, d, candidates)
}

// Add keeps d's table. An ID already kept returns an error wrapping
// neardup.ErrDuplicateID.
func (det *Detector) Add(ctx context.Context, d *neardup.Document) error {
	return det.c().Add(ctx, d)
}

// MatchOrAdd is Match, and when no kept page is near, Add, in one step under
// the write lock (added = true): of two near-duplicates offered at once, one
// is kept.
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	return det.c().MatchOrAdd(ctx, d)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): the table kept under d.ID is forgotten and d's is kept
// unless another kept page is near it.
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) (matches []neardup.Match, kept bool, err error) {
	return det.c().Replace(ctx, d)
}

// Remove forgets the table kept under id; an ID that is not kept returns an
// error wrapping neardup.ErrUnknownID.
func (det *Detector) Remove(ctx context.Context, id string) error {
	return det.c().Remove(ctx, id)
}

// WriteTo writes a snapshot of the kept documents (IDs and keyword tables) to
// w, with the options that give them their meaning (N, Cutoff, Rule);
// ReadFrom or Restore of a Detector with the same options reads it back
// (docs/format.md).
func (det *Detector) WriteTo(w io.Writer) (int64, error) { return det.c().WriteTo(w) }

// ReadFrom loads the keyword tables of a snapshot in place of the kept ones, or
// changes nothing and returns the error, under the neardup.Persister
// contract; a snapshot made with other N, Cutoff or Rule is
// refused (neardup.ErrSnapshotMismatch).
func (det *Detector) ReadFrom(r io.Reader) (int64, error) { return det.c().ReadFrom(r) }

// Restore is ReadFrom in two steps (neardup.Persister): the snapshot is
// read and checked now, and installed when install is called.
func (det *Detector) Restore(r io.Reader) (install func(), n int64, err error) {
	return det.c().Restore(r)
}

// store keeps the kept tables by handle and an inverted index from keyword
// hash to the handles whose tables hold it. A kept table's entries (hash,
// ln tf, index) lie in one slab at a fixed stride of N, so that a comparison
// reads one run of memory; its keyword texts and counts stay in terms, for
// snapshots and Lookup.
type store struct {
	opts  Options
	slab  []entry             // handle h: slab[h·N : h·N+lens[h]]
	lens  []uint16            // by handle; 0 for a free handle
	terms [][]preprocess.Term // by handle
	index map[uint64][]detector.Handle
	count *atomic.Int64 // SSM computations, the detector's
}

// ents returns the entries of the table kept under h.
func (st *store) ents(h detector.Handle) []entry {
	at := int(h) * st.opts.N
	return st.slab[at : at+int(st.lens[h]) : at+int(st.lens[h])]
}

// Search compares t with every kept table that shares a keyword with it. A
// kept table is reached once per shared keyword but compared only from the
// smallest shared key, so each is compared once without a set of seen
// handles.
func (st *store) Search(t Table, dst []detector.Found) []detector.Found {
	var n int64
	for _, e := range t.ents {
		for _, h := range st.index[e.key] {
			kept := st.ents(h)
			if first, _ := firstShared(t.ents, kept); first != e.key {
				continue
			}
			n++
			if s, ok := st.opts.near(ssm(t.ents, kept)); ok {
				dst = append(dst, detector.Found{H: h, Dist: s})
			}
		}
	}
	st.count.Add(n)
	return dst
}

// Score compares t with the table kept under h; tables that share no keyword
// are never near (they are not compared, §3.7), so Verify finds no more than
// Search.
func (st *store) Score(t Table, h detector.Handle) (float64, bool) {
	kept := st.ents(h)
	if _, ok := firstShared(t.ents, kept); !ok {
		return math.Inf(1), false
	}
	st.count.Add(1)
	return st.opts.near(ssm(t.ents, kept))
}

func (st *store) Feature(h detector.Handle) Table {
	return Table{terms: st.terms[h], ents: slices.Clone(st.ents(h))}
}

func (st *store) Insert(h detector.Handle, t Table) error {
	if t.Len() > st.opts.N {
		return fmt.Errorf("table of %d keywords, more than N = %d: %w", t.Len(), st.opts.N, ErrBadTable)
	}
	if int(h) >= len(st.lens) {
		grow := int(h) + 1 - len(st.lens)
		st.lens = append(st.lens, make([]uint16, grow)...)
		st.terms = append(st.terms, make([][]preprocess.Term, grow)...)
		st.slab = append(st.slab, make([]entry, grow*st.opts.N)...)
	}
	copy(st.slab[int(h)*st.opts.N:], t.ents)
	st.lens[h] = uint16(len(t.ents))
	st.terms[h] = t.terms
	for _, e := range t.ents {
		st.index[e.key] = append(st.index[e.key], h)
	}
	return nil
}

func (st *store) Delete(h detector.Handle) error {
	for _, e := range st.ents(h) {
		list := st.index[e.key]
		if i := slices.Index(list, h); i >= 0 {
			list[i] = list[len(list)-1]
			list = list[:len(list)-1]
		}
		if len(list) == 0 {
			delete(st.index, e.key)
		} else {
			st.index[e.key] = list
		}
	}
	st.lens[h] = 0
	st.terms[h] = nil
	return nil
}
