package shingle

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
)

// DefaultThreshold is the threshold when Options.Threshold is zero and Form
// is Normalized (the default form): pages closer than 0.25 are
// near-duplicates. It is not from the paper: it was chosen on labelled
// corpora, leaving each out in turn to see what it gives on pages it was
// not chosen on (docs/BENCHMARKS.md).
const DefaultThreshold = 0.25

// PaperThreshold is the threshold when Options.Threshold is zero and Form is
// Equation or TableForm: the paper's 0.2 (§3.2, Fig. 6), from a nine-pattern
// example; on pages of real length Eq. (1) needs a larger one (package
// documentation, "Forms and thresholds").
const PaperThreshold = 0.2

// Options configures a Detector and Dedup. The zero value gives the defaults
// that work as shipped: M = 4, Form Normalized, Threshold 0.25. The paper's
// method is Options{Form: Equation} (threshold 0.2), or TableForm to
// reproduce its Table 4.
type Options struct {
	// M is the largest shingle size: patterns are the k-shingles for
	// k = 1..M. Zero means DefaultM (4); the paper suggests 2 for short texts
	// and 3 for news. Valid: 1..MaxM.
	M int
	// Threshold: two documents are near-duplicates iff their dissimilarity
	// is < Threshold. Zero means DefaultThreshold (0.25) with Form
	// Normalized, PaperThreshold (0.2) with Equation and TableForm. Valid:
	// any finite value > 0, and at most 1 with Form Normalized (whose values
	// lie in [0, 1]; 1 makes every two pages that share a pattern
	// near-duplicates). With Equation and TableForm, values above 1 are
	// meaningful: Eq. (1) grows with the square root of a page's pattern
	// count (see the package documentation, "Forms and thresholds"), so pages of a few
	// hundred words need a larger threshold than the paper's short examples.
	Threshold float64
	// Form selects Eq. (1) divided by the two pages' total weights
	// (Normalized, the zero value), Eq. (1) as printed (Equation), or the
	// form that reproduces Table 4 (TableForm).
	Form Form
	// MaxPatterns bounds the memory a Detector keeps per page: a kept page
	// with more distinct patterns keeps a consistent sample of them, the
	// MaxPatterns of smallest hash, and its dissimilarity to a new page is
	// estimated over the patterns of both below the sample's cut (package
	// documentation, "Memory and cost"). Zero means DefaultMaxPatterns (512);
	// NoLimit keeps every pattern, the paper's exact method. Valid: NoLimit,
	// 0, or 16..1<<24. Dedup compares whole vectors whatever it is.
	MaxPatterns int
	// MaxPostings bounds the work of a look-up: a pattern in the indexed
	// prefixes of more than MaxPostings kept pages — a site's template,
	// boilerplate, a common phrase — is not looked up, so that a new page
	// is not compared with every page of its site. A pair of pages whose
	// prefixes share only such patterns is missed; when every pattern of a
	// new page's prefix that a kept page has is common (a page kept many
	// times by Add), MaxPostings pages of the rarest are compared. Zero
	// means DefaultMaxPostings (8); NoLimit looks up every pattern, and
	// with MaxPatterns NoLimit too the Detector finds every kept page within
	// the threshold (package documentation, "Candidates"). Valid: NoLimit,
	// 0 or 1..1<<24. Dedup looks up every pattern whatever it is.
	MaxPostings int
}

// DefaultMaxPostings is Options.MaxPostings when it is zero: a pattern in
// the prefixes of more than 8 kept pages is not looked up.
const DefaultMaxPostings = 8

// DefaultMaxPatterns is Options.MaxPatterns when it is zero: a kept page
// keeps at most 512 patterns (6 KB of patterns; a kept page costs 7,875 B
// in all on the sample corpora, 12.5 KB on the generated crawl: package
// documentation, "Memory and cost");
// docs/BENCHMARKS.md has what the sample costs in F1.
const DefaultMaxPatterns = 512

// NoLimit as Options.MaxPatterns keeps every pattern of every kept page;
// as Options.MaxPostings it looks up every pattern of a page's prefix.
const NoLimit = -1

// resolve fills in defaults and validates o.
func (o Options) resolve() (Options, error) {
	if o.M == 0 {
		o.M = DefaultM
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
		if o.Form != Normalized {
			o.Threshold = PaperThreshold
		}
	}
	if o.M < 1 || o.M > MaxM {
		return o, fmt.Errorf("shingle: Options.M = %d not in 1..%d: %w", o.M, MaxM, neardup.ErrInvalidOption)
	}
	if !(o.Threshold > 0) || math.IsInf(o.Threshold, 0) {
		return o, fmt.Errorf("shingle: Options.Threshold = %v, want a finite value > 0: %w", o.Threshold, neardup.ErrInvalidOption)
	}
	if o.MaxPatterns == 0 {
		o.MaxPatterns = DefaultMaxPatterns
	}
	if o.MaxPatterns != NoLimit && (o.MaxPatterns < 16 || o.MaxPatterns > 1<<24) {
		return o, fmt.Errorf("shingle: Options.MaxPatterns = %d, want NoLimit, 0 or 16..1<<24: %w", o.MaxPatterns, neardup.ErrInvalidOption)
	}
	if o.MaxPostings == 0 {
		o.MaxPostings = DefaultMaxPostings
	}
	if o.MaxPostings != NoLimit && (o.MaxPostings < 1 || o.MaxPostings > 1<<24) {
		return o, fmt.Errorf("shingle: Options.MaxPostings = %d, want NoLimit, 0 or 1..1<<24: %w", o.MaxPostings, neardup.ErrInvalidOption)
	}
	if o.Form != Equation && o.Form != TableForm && o.Form != Normalized {
		return o, fmt.Errorf("shingle: Options.Form = %v: %w", o.Form, neardup.ErrInvalidOption)
	}
	if o.Form == Normalized && o.Threshold > 1 {
		return o, fmt.Errorf("shingle: Options.Threshold = %v > 1 with Form Normalized (its values lie in [0, 1]): %w", o.Threshold, neardup.ErrInvalidOption)
	}
	return o, nil
}

// prefixWeight returns the weight, in Eq. (1) units, that the indexed and
// probed prefix of v must reach: if v and another vector share no pattern of
// such a prefix, their dissimilarity is at least the threshold (package
// documentation, "Candidates"). For Equation and TableForm it is the
// threshold t; for Normalized it is 2t·S_v/(1+t), S_v = v.total.
func (o Options) prefixWeight(v *Vector) float64 {
	if o.Form == Normalized {
		return 2 * o.Threshold * v.part / (1 + o.Threshold)
	}
	return o.Threshold
}

// light reports whether v, with an indexed prefix of n keys, must also be
// compared with every other light vector: two vectors that share no pattern
// are Eq. (1) = S_v + S_w apart, which may be below the threshold when both
// weigh less than it in all. With Normalized, vectors that share no pattern
// are 1 apart, never below a threshold ≤ 1, so no vector is light.
func (o Options) light(v *Vector, n int) bool {
	return o.Form != Normalized && n == v.Len() && v.total < o.Threshold
}

// featureKey keys a document's Vector in its neardup.Feature cache; vectors
// built with different M are different features.
type featureKey struct{ m int }

// VectorOf returns the pattern vector of d for shingle sizes 1..m, computed
// once per document and m however many detectors ask (neardup.Feature). It
// returns an error wrapping neardup.ErrNilDocument for a nil d or a d without
// Page, neardup.ErrNoFeatures for a page without tokens, and
// neardup.ErrInvalidOption for m outside 1..MaxM.
func VectorOf(d *neardup.Document, m int) (*Vector, error) {
	if err := neardup.Check(d); err != nil {
		return nil, fmt.Errorf("shingle: %w", err)
	}
	return neardup.Feature(d, featureKey{m}, func(d *neardup.Document) (*Vector, error) {
		v, err := NewVector(d.Page.Tokens, m)
		if err != nil {
			return nil, fmt.Errorf("shingle: document %q: %w", d.ID, err)
		}
		return v, nil
	})
}

// Detector is the streaming form of the method: it keeps documents and finds
// the kept ones within the threshold of a new one. It implements
// neardup.Detector, neardup.Verifier, neardup.Remover and neardup.MatchAdder.
// Scores are dissimilarities in the detector's Form (Form.Measure).
//
// It does not compare a new document with every kept one. Each kept document
// is indexed under the first patterns of its vector (in key order) whose
// weights add up to the threshold (2t·S/(1+t) of its total weight S with
// Normalized) — its prefix — and a new document is compared only with the
// kept documents whose prefix shares a pattern with its own, not looked up
// under a pattern of more than Options.MaxPostings kept prefixes. With
// MaxPostings and MaxPatterns NoLimit and Form Normalized or Equation this
// finds every kept document within the threshold, exactly as a comparison
// with all of them would (package documentation, "Candidates").
//
// A Detector is safe for concurrent use: Match and Verify run in parallel with
// each other; Add, Replace, Remove and MatchOrAdd are serialised with
// everything else. The zero Detector is ready to use with the default
// Options.
type Detector struct {
	opts     Options // resolved
	core     detector.Lazy[*Vector, neardup.Document, neardup.Match]
	compared atomic.Int64 // kept pages compared by Search and Score
}

// New returns an empty Detector. It returns an error wrapping
// neardup.ErrInvalidOption when an option is out of range.
func New(o Options) (*Detector, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, err
	}
	dt := new(Detector)
	dt.core.Set(dt.build(o))
	return dt, nil
}

// build makes the Core for resolved options o.
func (dt *Detector) build(o Options) *detector.Core[*Vector, neardup.Document, neardup.Match] {
	dt.opts = o
	return detector.NewCore(detector.Config[*Vector, neardup.Document, neardup.Match]{
		Name:  "shingle",
		Check: neardup.Check,
		ID:    func(d *neardup.Document) string { return d.ID },
		Match: func(id string, dist float64) neardup.Match {
			return neardup.Match{ID: id, Score: dist, Measure: o.Form.Measure()}
		},
		Candidate: func(m neardup.Match) string { return m.ID },
		Extract:   func(d *neardup.Document) (*Vector, error) { return VectorOf(d, o.M) },
		NewStore:  func() detector.Store[*Vector] { return newStore(o, &dt.compared) },
		Kind:      "shingle.Detector",
		Params: []snapshot.Param{
			{Name: "M", Value: strconv.Itoa(o.M)},
			{Name: "Form", Value: o.Form.String()},
			{Name: "Threshold", Value: strconv.FormatFloat(o.Threshold, 'g', -1, 64)},
			{Name: "MaxPatterns", Value: strconv.Itoa(o.MaxPatterns)},
		},
		Encode: func(sw *snapshot.Writer, v *Vector) { v.encode(sw) },
		Decode: func(sr *snapshot.Reader) *Vector { return decodeVector(sr, o.M) },
	})
}

// c returns the detector's Core, made with the default Options for a zero
// Detector.
func (dt *Detector) c() *detector.Core[*Vector, neardup.Document, neardup.Match] {
	return dt.core.Get(func() *detector.Core[*Vector, neardup.Document, neardup.Match] {
		o, _ := Options{}.resolve() // the defaults are valid
		return dt.build(o)
	})
}

// Options returns the options of dt with defaults filled in.
func (dt *Detector) Options() Options {
	dt.c()
	return dt.opts
}

// Comparisons returns how many kept documents the detector has compared a
// document with (in Match, Verify, MatchOrAdd and Replace) since it was
// made: the work the candidate index leaves.
func (dt *Detector) Comparisons() int64 {
	dt.c()
	return dt.compared.Load()
}

// Len returns the number of kept documents.
func (dt *Detector) Len() int { return dt.c().Len() }

// Lookup returns the vector kept for id, and whether id is kept. A page with
// more than Options.MaxPatterns patterns is kept as its sample (see
// Options.MaxPatterns), so its vector may hold fewer patterns than VectorOf
// of the page.
func (dt *Detector) Lookup(id string) (*Vector, bool) { return dt.c().Lookup(id) }

// Match returns the kept documents whose dissimilarity to d is below the
// threshold, closest first (ties by ID). Score is the dissimilarity in the
// detector's Form. Errors wrap neardup.ErrNilDocument (nil d or no Page) or
// neardup.ErrNoFeatures (no tokens).
func (dt *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	return dt.c().Match(ctx, d)
}

// Add keeps d. Errors wrap neardup.ErrNilDocument, neardup.ErrNoFeatures, or
// neardup.ErrDuplicateID when d.ID is already kept.
func (dt *Detector) Add(ctx context.Context, d *neardup.Document) error {
	return dt.c().Add(ctx, d)
}

// MatchOrAdd returns the matches of d and, when there are none, keeps d, with
// no other Add in between: two concurrent near-duplicates are never both kept.
func (dt *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	return dt.c().MatchOrAdd(ctx, d)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): the vector (and prefix index entries) kept under d.ID
// are forgotten, and d's are kept unless another kept page is within the
// threshold of d.
func (dt *Detector) Replace(ctx context.Context, d *neardup.Document) (matches []neardup.Match, kept bool, err error) {
	return dt.c().Replace(ctx, d)
}

// Remove forgets the kept document id. It returns an error wrapping
// neardup.ErrUnknownID when id is not kept.
func (dt *Detector) Remove(ctx context.Context, id string) error {
	return dt.c().Remove(ctx, id)
}

// Verify returns those of candidates that are kept and whose dissimilarity to
// d is below the threshold, with this detector's scores, closest first.
// Candidates that are not kept, or given twice, are ignored; the candidates'
// own scores are not read. It lets a Detector be a later stage of a
// neardup.Cascade.
func (dt *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	return dt.c().Verify(ctx, d, candidates)
}

// WriteTo writes a snapshot of the kept documents (IDs and pattern vectors) to w,
// with the options that give them their meaning; ReadFrom or Restore of a
// Detector with the same options reads it back (docs/format.md).
func (dt *Detector) WriteTo(w io.Writer) (int64, error) { return dt.c().WriteTo(w) }

// ReadFrom loads the pattern vectors of a snapshot in place of the kept ones, or
// changes nothing and returns the error, under the neardup.Persister
// contract; a snapshot made with other M, Form, Threshold and MaxPatterns is
// refused (neardup.ErrSnapshotMismatch).
func (dt *Detector) ReadFrom(r io.Reader) (int64, error) { return dt.c().ReadFrom(r) }

// Restore is ReadFrom in two steps (neardup.Persister): the snapshot is
// read and checked now, and installed when install is called.
func (dt *Detector) Restore(r io.Reader) (install func(), n int64, err error) {
	return dt.c().Restore(r)
}

// store is the prefix index of the Detector's kept vectors.
type store struct {
	opts     Options
	compared *atomic.Int64
	docs     map[detector.Handle]*entry
	index    map[uint64][]*entry // prefix pattern key → kept documents
	short    []*entry            // kept documents whose whole vector weighs < Threshold
}

type entry struct {
	h      detector.Handle
	v      *Vector
	prefix int // v.keys[:prefix] are indexed; prefix == v.Len() for short ones
	short  bool
}

func newStore(o Options, compared *atomic.Int64) *store {
	return &store{opts: o, compared: compared, docs: make(map[detector.Handle]*entry), index: make(map[uint64][]*entry)}
}

// Feature returns the vector kept under h.
func (st *store) Feature(h detector.Handle) *Vector { return st.docs[h].v }

// Search finds the kept documents within the threshold of v.
func (st *store) Search(v *Vector, dst []detector.Found) []detector.Found {
	n := v.prefixLen(st.opts.prefixWeight(v))
	seen := make(map[*entry]struct{})
	check := func(e *entry) {
		if _, ok := seen[e]; ok {
			return
		}
		seen[e] = struct{}{}
		st.compared.Add(1)
		if s, ok := st.opts.score(v, e.v); ok {
			dst = append(dst, detector.Found{H: e.h, Dist: s})
		}
	}
	// A common pattern (Options.MaxPostings) is not looked up, unless
	// every pattern of the prefix that some kept page has is common: then
	// MaxPostings pages of the rarest are compared.
	limit := st.opts.MaxPostings
	var rarest []*entry
	looked := false
	for _, key := range v.keys[:n] {
		list := st.index[key]
		if limit != NoLimit && len(list) > limit {
			if rarest == nil || len(list) < len(rarest) {
				rarest = list
			}
			continue
		}
		looked = looked || len(list) > 0
		for _, e := range list {
			check(e)
		}
	}
	if !looked && rarest != nil {
		for _, e := range rarest[:limit] {
			check(e)
		}
	}
	if st.opts.light(v, n) {
		// Two light documents that share no pattern may still be within
		// the threshold: compare with every light kept document.
		for _, e := range st.short {
			check(e)
		}
	}
	return dst
}

// Score returns the dissimilarity of v to the vector kept under h.
func (st *store) Score(v *Vector, h detector.Handle) (float64, bool) {
	st.compared.Add(1)
	return st.opts.score(v, st.docs[h].v)
}

// score returns the dissimilarity of a and b and whether it is below the
// threshold; when it is not, the value may be only a lower bound of it. The
// O(M) lower bound skips most merges, and a merge stops once the patterns
// merged so far put the pair at or beyond the threshold.
func (o Options) score(a, b *Vector) (float64, bool) {
	t := o.Threshold
	lb := lowerBound(a, b)
	switch o.Form {
	case TableForm:
		return lb, lb < t
	case Normalized:
		sum := a.total + b.total
		if lb/sum >= t {
			return lb / sum, false
		}
		if a.sampled() || b.sampled() {
			s := max(estimate(a, b, Normalized), lb/sum) // the true value is ≥ lb/sum
			return s, s < t
		}
		// equationBelow's value is equation's, so s is normalized(a, b).
		d, _ := equationBelow(a, b, t*sum)
		s := d / sum
		return s, s < t
	}
	if lb >= t {
		return lb, false
	}
	if a.sampled() || b.sampled() {
		s := max(estimate(a, b, Equation), lb)
		return s, s < t
	}
	return equationBelow(a, b, t)
}

func (st *store) Insert(h detector.Handle, v *Vector) error {
	if st.opts.MaxPatterns != NoLimit {
		v = v.sample(st.opts.MaxPatterns)
	}
	e := &entry{h: h, v: v, prefix: v.prefixLen(st.opts.prefixWeight(v))}
	e.short = st.opts.light(v, e.prefix)
	st.docs[h] = e
	for _, key := range v.keys[:e.prefix] {
		st.index[key] = append(st.index[key], e)
	}
	if e.short {
		st.short = append(st.short, e)
	}
	return nil
}

func (st *store) Delete(h detector.Handle) error {
	e := st.docs[h]
	delete(st.docs, h)
	for _, key := range e.v.keys[:e.prefix] {
		list := st.index[key]
		if i := slices.Index(list, e); i >= 0 {
			list[i] = list[len(list)-1]
			list[len(list)-1] = nil
			list = list[:len(list)-1]
		}
		if len(list) == 0 {
			delete(st.index, key)
		} else {
			st.index[key] = list
		}
	}
	if e.short {
		i := slices.Index(st.short, e)
		st.short = slices.Delete(st.short, i, i+1)
	}
	return nil
}
