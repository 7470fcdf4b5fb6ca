package shingle

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/verify"
)

// DefaultThreshold is the dissimilarity below which two documents are
// near-duplicates when Options.Threshold is zero (seed 004 §3.2, Fig. 6).
const DefaultThreshold = 0.2

// DefaultNormalizedThreshold is the threshold used when Options.Form is
// Normalized and Options.Threshold is zero. It is not from the paper: it was
// chosen by sweeping the dev corpora (package documentation, "Normalized
// form").
const DefaultNormalizedThreshold = 0.35

// Options configures a Detector and Dedup. The zero value gives the paper's
// method: M = 4, Threshold = 0.2, Form = Equation. For pages of real length,
// Form Normalized with its default threshold is the better choice (package
// documentation, "Thresholds").
type Options struct {
	// M is the largest shingle size: patterns are the k-shingles for
	// k = 1..M. Zero means DefaultM (4); the paper suggests 2 for short texts
	// and 3 for news. Valid: 1..MaxM.
	M int
	// Threshold: two documents are near-duplicates iff their dissimilarity
	// is < Threshold. Zero means DefaultThreshold (0.2), or
	// DefaultNormalizedThreshold when Form is Normalized. Valid: any finite
	// value > 0, and at most 1 with Form Normalized (whose values lie in
	// [0, 1]; 1 makes every two pages that share a pattern near-duplicates).
	// With Equation and TableForm, values above 1 are meaningful: Eq. (1)
	// grows with the square root of a page's pattern count (see the package
	// documentation, "Thresholds"), so pages of a few hundred words need a
	// larger threshold than the paper's short examples.
	Threshold float64
	// Form selects Eq. (1) as printed (Equation, the zero value), the form
	// that reproduces Table 4 (TableForm), or Eq. (1) divided by the two
	// pages' total weights (Normalized, scale-free).
	Form Form
}

// resolve fills in defaults and validates o.
func (o Options) resolve() (Options, error) {
	if o.M == 0 {
		o.M = DefaultM
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
		if o.Form == Normalized {
			o.Threshold = DefaultNormalizedThreshold
		}
	}
	if o.M < 1 || o.M > MaxM {
		return o, fmt.Errorf("shingle: Options.M = %d not in 1..%d: %w", o.M, MaxM, neardup.ErrInvalidOption)
	}
	if !(o.Threshold > 0) || math.IsInf(o.Threshold, 0) {
		return o, fmt.Errorf("shingle: Options.Threshold = %v, want a finite value > 0: %w", o.Threshold, neardup.ErrInvalidOption)
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
		return 2 * o.Threshold * v.total / (1 + o.Threshold)
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
//
// It does not compare a new document with every kept one. Each kept document
// is indexed under the first patterns of its vector (in key order) whose
// weights add up to the threshold (2t·S/(1+t) of its total weight S with
// Normalized) — its prefix — and a new document is compared only with the
// kept documents whose prefix shares a pattern with its own. With Form
// Equation or Normalized this finds every kept document within the threshold,
// exactly as a comparison with all of them would (package documentation,
// "Candidates").
//
// A Detector is safe for concurrent use: Match and Verify run in parallel with
// each other; Add, Remove and MatchOrAdd are serialised with everything else.
type Detector struct {
	opts Options

	mu    sync.RWMutex
	docs  map[string]*entry
	index map[uint64][]*entry // prefix pattern key → kept documents
	short []*entry            // kept documents whose whole vector weighs < Threshold
}

type entry struct {
	id     string
	v      *Vector
	prefix int // v.keys[:prefix] are indexed; prefix == v.Len() for short ones
	short  bool
}

// New returns an empty Detector. It returns an error wrapping
// neardup.ErrInvalidOption when an option is out of range.
func New(o Options) (*Detector, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, err
	}
	return &Detector{opts: o, docs: make(map[string]*entry), index: make(map[uint64][]*entry)}, nil
}

// Options returns the options of dt with defaults filled in.
func (dt *Detector) Options() Options { return dt.opts }

// Len returns the number of kept documents.
func (dt *Detector) Len() int {
	dt.mu.RLock()
	defer dt.mu.RUnlock()
	return len(dt.docs)
}

// Match returns the kept documents whose dissimilarity to d is below the
// threshold, closest first (ties by ID). Score is the dissimilarity in the
// detector's Form. Errors wrap neardup.ErrNilDocument (nil d or no Page) or
// neardup.ErrNoFeatures (no tokens).
func (dt *Detector) Match(d *neardup.Document) ([]neardup.Match, error) {
	v, err := VectorOf(d, dt.opts.M)
	if err != nil {
		return nil, err
	}
	dt.mu.RLock()
	defer dt.mu.RUnlock()
	return dt.match(v), nil
}

// match finds the kept documents within the threshold of v. dt.mu is held.
func (dt *Detector) match(v *Vector) []neardup.Match {
	n := v.prefixLen(dt.opts.prefixWeight(v))
	short := dt.opts.light(v, n)
	seen := make(map[*entry]struct{})
	var out []neardup.Match
	check := func(e *entry) {
		if _, ok := seen[e]; ok {
			return
		}
		seen[e] = struct{}{}
		if s, ok := dt.score(v, e.v); ok {
			out = append(out, neardup.Match{ID: e.id, Score: s})
		}
	}
	for _, key := range v.keys[:n] {
		for _, e := range dt.index[key] {
			check(e)
		}
	}
	if short {
		// Two light documents that share no pattern may still be within
		// the threshold: compare with every light kept document.
		for _, e := range dt.short {
			check(e)
		}
	}
	neardup.SortMatches(out)
	return out
}

// score returns the dissimilarity of a and b and whether it is below the
// threshold; when it is not, the value may be only a lower bound of it. The
// O(M) lower bound skips most merges, and a merge stops once the patterns
// merged so far put the pair at or beyond the threshold.
func (dt *Detector) score(a, b *Vector) (float64, bool) {
	t := dt.opts.Threshold
	lb := lowerBound(a, b)
	switch dt.opts.Form {
	case TableForm:
		return lb, lb < t
	case Normalized:
		sum := a.total + b.total
		if lb/sum >= t {
			return lb / sum, false
		}
		// equationBelow's value is equation's, so s is normalized(a, b).
		d, _ := equationBelow(a, b, t*sum)
		s := d / sum
		return s, s < t
	}
	if lb >= t {
		return lb, false
	}
	s, ok := equationBelow(a, b, t)
	return s, ok
}

// Add keeps d. Errors wrap neardup.ErrNilDocument, neardup.ErrNoFeatures, or
// neardup.ErrDuplicateID when d.ID is already kept.
func (dt *Detector) Add(d *neardup.Document) error {
	v, err := VectorOf(d, dt.opts.M)
	if err != nil {
		return err
	}
	dt.mu.Lock()
	defer dt.mu.Unlock()
	return dt.add(d.ID, v)
}

func (dt *Detector) add(id string, v *Vector) error {
	if _, ok := dt.docs[id]; ok {
		return fmt.Errorf("shingle: Add %q: %w", id, neardup.ErrDuplicateID)
	}
	e := &entry{id: id, v: v, prefix: v.prefixLen(dt.opts.prefixWeight(v))}
	e.short = dt.opts.light(v, e.prefix)
	dt.docs[id] = e
	for _, key := range v.keys[:e.prefix] {
		dt.index[key] = append(dt.index[key], e)
	}
	if e.short {
		dt.short = append(dt.short, e)
	}
	return nil
}

// MatchOrAdd returns the matches of d and, when there are none, keeps d, with
// no other Add in between: two concurrent near-duplicates are never both kept.
func (dt *Detector) MatchOrAdd(d *neardup.Document) ([]neardup.Match, bool, error) {
	v, err := VectorOf(d, dt.opts.M)
	if err != nil {
		return nil, false, err
	}
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if ms := dt.match(v); len(ms) > 0 {
		return ms, false, nil
	}
	if err := dt.add(d.ID, v); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Remove forgets the kept document id. It returns an error wrapping
// neardup.ErrUnknownID when id is not kept.
func (dt *Detector) Remove(id string) error {
	dt.mu.Lock()
	defer dt.mu.Unlock()
	e, ok := dt.docs[id]
	if !ok {
		return fmt.Errorf("shingle: Remove %q: %w", id, neardup.ErrUnknownID)
	}
	delete(dt.docs, id)
	for _, key := range e.v.keys[:e.prefix] {
		list := dt.index[key]
		if i := slices.Index(list, e); i >= 0 {
			list[i] = list[len(list)-1]
			list[len(list)-1] = nil
			list = list[:len(list)-1]
		}
		if len(list) == 0 {
			delete(dt.index, key)
		} else {
			dt.index[key] = list
		}
	}
	if e.short {
		i := slices.Index(dt.short, e)
		dt.short = slices.Delete(dt.short, i, i+1)
	}
	return nil
}

// Verify returns those of candidates that are kept and whose dissimilarity to
// d is below the threshold, with this detector's scores, closest first.
// Candidates that are not kept, or given twice, are ignored; the candidates'
// own scores are not read. It lets a Detector be a later stage of a
// neardup.Cascade.
func (dt *Detector) Verify(d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	v, err := VectorOf(d, dt.opts.M)
	if err != nil {
		return nil, err
	}
	dt.mu.RLock()
	defer dt.mu.RUnlock()
	return verify.Candidates(candidates, func(id string) (float64, bool) {
		e, ok := dt.docs[id]
		if !ok {
			return 0, false
		}
		return dt.score(v, e.v)
	}), nil
}

// Interface checks.
var (
	_ neardup.Detector   = (*Detector)(nil)
	_ neardup.Verifier   = (*Detector)(nil)
	_ neardup.Remover    = (*Detector)(nil)
	_ neardup.MatchAdder = (*Detector)(nil)
)
