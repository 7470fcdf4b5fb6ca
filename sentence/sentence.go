package sentence

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/snapshot"
)

// DefaultThreshold is T_s when Options.Threshold is zero: 24 sentences.
// The paper's worked example uses
// T_s = 1 (Table 4) but the paper does not print the value behind its
// evaluation. Whole pages in site templates vary by many "sentences"
// (navigation lines, footers), which a small T_s turns into missed
// duplicates.
const DefaultThreshold = 24

// DefaultRelative is Options.Relative when it is zero: pages with S_d and
// S_k sentences are candidates when |S_d − S_k| ≤ max(T_s,
// ⌊DefaultRelative·max(S_d, S_k)⌋), so the filter's tolerance grows with the
// pages (package documentation, "Defaults").
const DefaultRelative = 0.6

// SameCount, as Options.Threshold, sets T_s = 0: with Relative Absolute only
// pages with the same number of sentences are candidates; otherwise the
// relative tolerance alone applies.
const SameCount = -1

// Absolute, as Options.Relative, turns the relative tolerance off: a kept page
// is a candidate when |S_d − S_k| ≤ T_s, the paper's rule.
const Absolute = -1.0

// CountDifference is the Measure of this package's matches: |S_d − S_k|, in
// sentences.
const CountDifference neardup.Measure = "sentence-count-difference"

// Options configures a Detector. The zero value gives the package defaults:
// T_s = DefaultThreshold and Relative = DefaultRelative.
type Options struct {
	// Threshold is T_s: a kept page d is a candidate for a new page k when
	// |S_d − S_k| ≤ Threshold. Zero means DefaultThreshold; SameCount
	// means T_s = 0; other negative values are invalid.
	Threshold int
	// Relative widens the tolerance for long pages beyond the paper: a kept
	// page d is a candidate for a new page k when
	// |S_d − S_k| ≤ max(T_s, ⌊Relative·max(S_d, S_k)⌋) (symmetric: with
	// Relative = 0.6 the longer page has at most 2.5 times the sentences of
	// the shorter, or T_s more). Zero means DefaultRelative; Absolute (any
	// negative value) turns the relative tolerance off, for the paper's rule
	// |S_d − S_k| ≤ T_s; above 1 is invalid.
	Relative float64
}

// resolve fills in defaults and validates o.
func (o Options) resolve() (Options, error) {
	switch {
	case o.Threshold == 0:
		o.Threshold = DefaultThreshold
	case o.Threshold == SameCount:
		o.Threshold = 0
	case o.Threshold < 0:
		return o, fmt.Errorf("Options.Threshold = %d, want SameCount, 0 or more: %w", o.Threshold, neardup.ErrInvalidOption)
	}
	switch {
	case o.Relative != o.Relative || o.Relative > 1: // NaN or too large
		return o, fmt.Errorf("Options.Relative %v above 1: %w", o.Relative, neardup.ErrInvalidOption)
	case o.Relative == 0:
		o.Relative = DefaultRelative
	case o.Relative < 0:
		o.Relative = 0
	}
	return o, nil
}

type featureKey struct{}

// Count returns S, the number of sentences of d's page
// (len(d.Page.Sentences)), computed once per Document through
// neardup.Feature. A nil document or page returns an error wrapping
// neardup.ErrNilDocument; a page with no sentence, one wrapping
// neardup.ErrNoFeatures.
func Count(d *neardup.Document) (int, error) {
	if err := neardup.Check(d); err != nil {
		return 0, fmt.Errorf("sentence: %w", err)
	}
	return neardup.Feature(d, featureKey{}, func(d *neardup.Document) (int, error) {
		n := len(d.Page.Sentences)
		if n == 0 {
			return 0, fmt.Errorf("sentence: document %q has no sentences: %w", d.ID, neardup.ErrNoFeatures)
		}
		return n, nil
	})
}

// Detector keeps the sentence counts of documents and finds the kept ones
// whose count is within the tolerance of a new document's. It implements
// neardup.Detector, neardup.Verifier, neardup.Remover and neardup.MatchAdder.
// Scores are |S_d − S_k| in sentences (CountDifference); lower is closer.
//
// A Detector is safe for concurrent use: Match and Verify run in parallel,
// Add, Replace, Remove and MatchOrAdd exclusively. The zero Detector is ready
// to use with the default Options.
type Detector struct {
	opts Options // resolved
	core detector.Lazy[int, neardup.Document, neardup.Match]
}

// New returns a Detector configured by opts. Options out of range return an
// error wrapping neardup.ErrInvalidOption.
func New(opts Options) (*Detector, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, fmt.Errorf("sentence: New: %w", err)
	}
	det := new(Detector)
	det.core.Set(det.build(o))
	return det, nil
}

// build makes the Core for resolved options o.
func (det *Detector) build(o Options) *detector.Core[int, neardup.Document, neardup.Match] {
	det.opts = o
	return detector.NewCore(detector.Config[int, neardup.Document, neardup.Match]{
		Name:  "sentence",
		Check: neardup.Check,
		ID:    func(d *neardup.Document) string { return d.ID },
		Match: func(id string, dist float64) neardup.Match {
			return neardup.Match{ID: id, Score: dist, Measure: CountDifference}
		},
		Candidate: func(m neardup.Match) string { return m.ID },
		Extract:   Count,
		NewStore: func() detector.Store[int] {
			return &store{opts: o, kept: make(map[detector.Handle]slot), byCount: make(map[int][]detector.Handle)}
		},
		Kind: "sentence.Detector",
		Params: []snapshot.Param{
			{Name: "Threshold", Value: strconv.Itoa(o.Threshold)},
			{Name: "Relative", Value: strconv.FormatFloat(o.Relative, 'g', -1, 64)},
		},
		Encode: func(sw *snapshot.Writer, s int) { sw.Varint(int64(s)) },
		Decode: func(sr *snapshot.Reader) int { return int(sr.Int(1, math.MaxInt32)) },
	})
}

// c returns the detector's Core, made with the default Options for a zero
// Detector.
func (det *Detector) c() *detector.Core[int, neardup.Document, neardup.Match] {
	return det.core.Get(func() *detector.Core[int, neardup.Document, neardup.Match] {
		o, _ := Options{}.resolve() // the defaults are valid
		return det.build(o)
	})
}

// Options returns the detector's options with the defaults filled in; T_s = 0
// is returned as SameCount and a relative tolerance that is off as Absolute,
// so that New(det.Options()) makes a Detector with the same options.
func (det *Detector) Options() Options {
	det.c()
	o := det.opts
	if o.Threshold == 0 {
		o.Threshold = SameCount
	}
	if o.Relative == 0 {
		o.Relative = Absolute
	}
	return o
}

// Near reports whether pages with a and b sentences are candidates for each
// other: |a − b| ≤ max(T_s, ⌊Relative·max(a, b)⌋). The rule is symmetric, so
// a re-templated copy is found whether it or its original came first.
func (det *Detector) Near(a, b int) bool {
	det.c()
	return det.opts.near(a, b)
}

func (o Options) near(a, b int) bool {
	return abs(a-b) <= max(o.Threshold, int(o.Relative*float64(max(a, b))))
}

// span returns the range of counts [lo, hi] that may be near s; every count
// near s lies in it (hi is clamped to MaxInt when Relative is 1).
func (o Options) span(s int) (lo, hi int) {
	lo = s - max(o.Threshold, int(o.Relative*float64(s)))
	hi = s + o.Threshold
	if o.Relative >= 1 {
		return lo, math.MaxInt
	}
	// b − s ≤ Relative·b  ⇔  b ≤ s/(1 − Relative)
	return lo, max(hi, int(float64(s)/(1-o.Relative))+1)
}

// Len returns the number of kept documents.
func (det *Detector) Len() int { return det.c().Len() }

// Lookup returns the sentence count kept for id, and whether id is kept.
func (det *Detector) Lookup(id string) (int, bool) { return det.c().Lookup(id) }

// Match returns the kept documents whose counts are Near d's,
// closest first (ties by ID), with Score = |S_d − S_k|.
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	return det.c().Match(ctx, d)
}

// Verify returns the candidates whose kept sentence counts are within the
// tolerance of d's, closest first (ties by ID), scored with |S_d − S_k|. The
// candidates' incoming scores are ignored; candidates this detector does not
// keep are dropped, since they cannot be compared, and a repeated candidate
// is reported once.
func (det *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	return det.c().Verify(ctx, d, candidates)
}

// Add keeps d's sentence count. An ID already kept returns an error wrapping
// neardup.ErrDuplicateID.
func (det *Detector) Add(ctx context.Context, d *neardup.Document) error {
	return det.c().Add(ctx, d)
}

// MatchOrAdd is Match, and when no kept page is within the tolerance, Add,
// in one step under the write lock (added = true): of two pages with equal
// counts offered at once, one is kept.
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	return det.c().MatchOrAdd(ctx, d)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): the count kept under d.ID is forgotten and d's is kept
// unless another kept page is within the tolerance of it.
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) (matches []neardup.Match, kept bool, err error) {
	return det.c().Replace(ctx, d)
}

// Remove forgets the sentence count kept under id; an ID that is not kept
// returns an error wrapping neardup.ErrUnknownID.
func (det *Detector) Remove(ctx context.Context, id string) error {
	return det.c().Remove(ctx, id)
}

// WriteTo writes a snapshot of the kept documents (IDs and sentence counts) to w,
// with the options that give them their meaning; ReadFrom or Restore of a
// Detector with the same options reads it back (docs/format.md).
func (det *Detector) WriteTo(w io.Writer) (int64, error) { return det.c().WriteTo(w) }

// ReadFrom loads the sentence counts of a snapshot in place of the kept ones, or
// changes nothing and returns the error, under the neardup.Persister
// contract; a snapshot made with other T_s and Relative is
// refused (neardup.ErrSnapshotMismatch).
func (det *Detector) ReadFrom(r io.Reader) (int64, error) { return det.c().ReadFrom(r) }

// Restore is ReadFrom in two steps (neardup.Persister): the snapshot is
// read and checked now, and installed when install is called.
func (det *Detector) Restore(r io.Reader) (install func(), n int64, err error) {
	return det.c().Restore(r)
}

// store keeps the counts: the handles of each count in a slice, and the
// sorted distinct counts, so that a range query needs no scan and Delete is
// O(1) but for a count that disappears.
type store struct {
	opts    Options
	kept    map[detector.Handle]slot  // handle -> its count and place
	byCount map[int][]detector.Handle // S -> handles with that count
	counts  []int                     // distinct counts in byCount, ascending
}

// slot is where a handle is kept: byCount[s][pos].
type slot struct{ s, pos int }

// Search answers the range query of the counts near s from the sorted counts.
func (st *store) Search(s int, dst []detector.Found) []detector.Found {
	lo, hi := st.opts.span(s)
	i, _ := slices.BinarySearch(st.counts, lo)
	for ; i < len(st.counts) && st.counts[i] <= hi; i++ {
		c := st.counts[i]
		if !st.opts.near(s, c) {
			continue
		}
		for _, h := range st.byCount[c] {
			dst = append(dst, detector.Found{H: h, Dist: float64(abs(c - s))})
		}
	}
	return dst
}

func (st *store) Score(s int, h detector.Handle) (float64, bool) {
	c := st.kept[h].s
	return float64(abs(c - s)), st.opts.near(s, c)
}

func (st *store) Feature(h detector.Handle) int { return st.kept[h].s }

func (st *store) Insert(h detector.Handle, s int) error {
	hs, ok := st.byCount[s]
	if !ok {
		i, _ := slices.BinarySearch(st.counts, s)
		st.counts = slices.Insert(st.counts, i, s)
	}
	st.kept[h] = slot{s, len(hs)}
	st.byCount[s] = append(hs, h)
	return nil
}

func (st *store) Delete(h detector.Handle) error {
	at := st.kept[h]
	delete(st.kept, h)
	hs := st.byCount[at.s]
	last := len(hs) - 1
	if at.pos != last {
		moved := hs[last]
		hs[at.pos] = moved
		st.kept[moved] = slot{at.s, at.pos}
	}
	if hs = hs[:last]; len(hs) > 0 {
		st.byCount[at.s] = hs
		return nil
	}
	delete(st.byCount, at.s)
	if i, found := slices.BinarySearch(st.counts, at.s); found {
		st.counts = slices.Delete(st.counts, i, i+1)
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
