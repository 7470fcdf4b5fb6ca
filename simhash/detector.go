package simhash

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/snapshot"
	"github.com/neardup/neardup/simhash/hamming"
)

// DefaultMaxDistance is the threshold T_B used when Options.MaxDistance is
// zero: 8 bits. Kumar and Govindarajulu's §3.3 example uses 3 bits, as do
// Manku, Jain and Das Sarma (WWW 2007) for 64-bit fingerprints of crawled
// pages; with this package's preprocessing 3 bits misses many duplicates of
// labelled crawls, whose best T_B lies between 5 and 10 bits
// (docs/DEPARTURES.md).
const DefaultMaxDistance = 8

// Identical, as Options.MaxDistance, sets T_B = 0: only identical
// fingerprints match.
const Identical = -1

// Options configures a Detector. The zero value gives the package defaults.
type Options struct {
	// MaxDistance is T_B: a kept page is a near-duplicate of a new page when
	// the Hamming distance b_f of their fingerprints is ≤ MaxDistance
	// (Kumar and Govindarajulu §3.3). Zero means DefaultMaxDistance;
	// Identical means T_B = 0; otherwise valid values are 1 to 64.
	MaxDistance int
	// ExpectedSize is the number of documents the Detector expects to keep;
	// it sizes the k-bit index (see hamming.Options.ExpectedSize). Zero means
	// DefaultExpectedSize. The index stays exact at any size; far beyond
	// ExpectedSize it gets slower.
	ExpectedSize int
	// IndexBytesPerEntry is the memory budget per document of the k-bit
	// index (hamming.Options.MaxBytesPerEntry). Zero means
	// DefaultIndexBytesPerEntry.
	IndexBytesPerEntry int
}

// DefaultExpectedSize is the Options.ExpectedSize used when it is zero.
const DefaultExpectedSize = 1 << 16

// DefaultIndexBytesPerEntry is the Options.IndexBytesPerEntry used when it is
// zero: 64 bytes per kept page. For repositories of 10^4 to 10^5 pages it
// lets the index take its faster layouts, exact-block tables at T_B = 3 and
// fewer probes per query at T_B = 8, which hamming's own default of 48 bytes
// does not allow. When no layout fits it, as for a tiny ExpectedSize, the
// index takes its smallest layout.
const DefaultIndexBytesPerEntry = 64

// Bits is the Measure of this package's matches: the Hamming distance b_f of
// two fingerprints, in bits.
const Bits neardup.Measure = "simhash-bits"

// resolve fills in defaults and validates o.
func (o Options) resolve() (Options, error) {
	switch {
	case o.MaxDistance == 0:
		o.MaxDistance = DefaultMaxDistance
	case o.MaxDistance == Identical:
		o.MaxDistance = 0
	case o.MaxDistance < 0 || o.MaxDistance > 64:
		return o, fmt.Errorf("Options.MaxDistance = %d, want Identical, 0 or 1..64: %w", o.MaxDistance, neardup.ErrInvalidOption)
	}
	switch {
	case o.ExpectedSize == 0:
		o.ExpectedSize = DefaultExpectedSize
	case o.ExpectedSize < 0:
		return o, fmt.Errorf("Options.ExpectedSize %d is negative: %w", o.ExpectedSize, neardup.ErrInvalidOption)
	}
	if o.IndexBytesPerEntry < 0 {
		return o, fmt.Errorf("Options.IndexBytesPerEntry %d is negative: %w", o.IndexBytesPerEntry, neardup.ErrInvalidOption)
	}
	return o, nil
}

// newIndex returns the index for resolved options o, or nil when T_B is
// beyond hamming.MaxDistance and the detector scans.
func newIndex(o Options) (*hamming.Index, error) {
	if o.MaxDistance > hamming.MaxDistance {
		return nil, nil
	}
	io := hamming.Options{MaxDistance: max(o.MaxDistance, 1), ExpectedSize: o.ExpectedSize, MaxBytesPerEntry: o.IndexBytesPerEntry}
	if io.MaxBytesPerEntry == 0 {
		io.MaxBytesPerEntry = DefaultIndexBytesPerEntry
	}
	ix, err := hamming.New(io)
	if err != nil && o.IndexBytesPerEntry == 0 {
		// The default budget is a preference: small repositories (whose
		// directories cost more per entry) take the smallest layout instead.
		io.MaxBytesPerEntry = 0
		ix, err = hamming.New(io)
	}
	return ix, err
}

// Detector keeps the fingerprints of documents and finds the kept ones within
// T_B bits of a new document's fingerprint. It implements neardup.Detector,
// neardup.Verifier, neardup.Remover and neardup.MatchAdder. Scores are
// Hamming distances in bits (Bits).
//
// A document's fingerprint is Sum over its Page.Terms, computed once per
// Document (see Of). When T_B ≤ hamming.MaxDistance, Match asks a k-bit index
// (permuted block tables, Manku et al.) for the fingerprints within T_B bits
// instead of comparing with every kept one; for larger T_B it compares with
// every kept fingerprint. For each kept document a Detector keeps its index
// entry (see hamming.Index.MemoryUsage) and the document's ID with a map
// entry and a slot in a table of IDs.
//
// A Detector is safe for concurrent use: Match and Verify run in parallel,
// Add, Replace, Remove and MatchOrAdd exclusively. The zero Detector is ready
// to use with the default Options.
type Detector struct {
	opts Options // resolved
	core detector.Lazy[Fingerprint, neardup.Document, neardup.Match]
}

// New returns a Detector configured by opts. Options out of range (a
// MaxDistance other than Identical, 0 and 1..64, a negative size or budget,
// a budget no index layout fits) return an error wrapping
// neardup.ErrInvalidOption.
func New(opts Options) (*Detector, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, fmt.Errorf("simhash: New: %w", err)
	}
	ix, err := newIndex(o)
	if err != nil {
		return nil, fmt.Errorf("simhash: New: %w", err)
	}
	det := new(Detector)
	det.core.Set(det.build(o, ix))
	return det, nil
}

// WriteTo writes a snapshot of the kept documents (IDs and fingerprints) to w,
// with the options that give them their meaning; ReadFrom or Restore of a
// Detector with the same options reads it back (docs/format.md).
func (det *Detector) WriteTo(w io.Writer) (int64, error) { return det.c().WriteTo(w) }

// ReadFrom loads the fingerprints of a snapshot in place of the kept ones, or
// changes nothing and returns the error, under the neardup.Persister
// contract; a snapshot made with other T_B is
// refused (neardup.ErrSnapshotMismatch).
func (det *Detector) ReadFrom(r io.Reader) (int64, error) { return det.c().ReadFrom(r) }

// Restore is ReadFrom in two steps (neardup.Persister): the snapshot is
// read and checked now, and installed when install is called.
func (det *Detector) Restore(r io.Reader) (install func(), n int64, err error) {
	return det.c().Restore(r)
}

// build makes the Core for resolved options o; ix is the index of its first
// store (nil when T_B is beyond hamming.MaxDistance).
func (det *Detector) build(o Options, ix *hamming.Index) *detector.Core[Fingerprint, neardup.Document, neardup.Match] {
	det.opts = o
	first := &store{maxDist: o.MaxDistance, ix: ix}
	return detector.NewCore(detector.Config[Fingerprint, neardup.Document, neardup.Match]{
		Name:      "simhash",
		Check:     neardup.Check,
		ID:        func(d *neardup.Document) string { return d.ID },
		Match:     func(id string, dist float64) neardup.Match { return neardup.Match{ID: id, Score: dist, Measure: Bits} },
		Candidate: func(m neardup.Match) string { return m.ID },
		Extract:   Of,
		NewStore: func() detector.Store[Fingerprint] {
			if first != nil { // made by New, which checked the options
				st := first
				first = nil
				return st
			}
			ix, err := newIndex(o)
			if err != nil { // unreachable: New built an index with these options
				panic("simhash: options that built an index build none: " + err.Error())
			}
			return &store{maxDist: o.MaxDistance, ix: ix}
		},
		Kind:   "simhash.Detector",
		Params: []snapshot.Param{{Name: "MaxDistance", Value: strconv.Itoa(o.MaxDistance)}},
		Encode: func(sw *snapshot.Writer, fp Fingerprint) { sw.Uint64(uint64(fp)) },
		Decode: func(sr *snapshot.Reader) Fingerprint { return Fingerprint(sr.Uint64()) },
	})
}

// c returns the detector's Core, made with the default Options for a zero
// Detector.
func (det *Detector) c() *detector.Core[Fingerprint, neardup.Document, neardup.Match] {
	return det.core.Get(func() *detector.Core[Fingerprint, neardup.Document, neardup.Match] {
		o, _ := Options{}.resolve() // the defaults are valid
		ix, err := newIndex(o)
		if err != nil {
			panic("simhash: the default options build no index: " + err.Error()) // unreachable: the smallest layout always fits
		}
		return det.build(o, ix)
	})
}

// Options returns the detector's options with the defaults filled in; T_B = 0
// is returned as Identical, so that New(det.Options()) makes a Detector with
// the same options.
func (det *Detector) Options() Options {
	det.c()
	o := det.opts
	if o.MaxDistance == 0 {
		o.MaxDistance = Identical
	}
	return o
}

// Len returns the number of kept documents.
func (det *Detector) Len() int { return det.c().Len() }

// Lookup returns the fingerprint kept for id, and whether id is kept.
func (det *Detector) Lookup(id string) (Fingerprint, bool) { return det.c().Lookup(id) }

type featureKey struct{}

// Of returns the fingerprint of d: Sum over d.Page.Terms, computed on the
// first call and shared by every later caller and detector (neardup.Feature).
// A nil document or page returns an error wrapping neardup.ErrNilDocument; a
// page without terms, one wrapping neardup.ErrNoFeatures.
func Of(d *neardup.Document) (Fingerprint, error) {
	if err := neardup.Check(d); err != nil {
		return 0, fmt.Errorf("simhash: %w", err)
	}
	return neardup.Feature(d, featureKey{}, func(d *neardup.Document) (Fingerprint, error) {
		f, err := Sum(d.Page.Terms)
		if err != nil { // only a page without terms has no fingerprint
			return 0, fmt.Errorf("simhash: document %q has no terms: %w", d.ID, neardup.ErrNoFeatures)
		}
		return f, nil
	})
}

// Match returns the kept documents whose fingerprints are within T_B bits of
// d's, closest first (ties by ID), with Score = the distance b_f in bits.
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	return det.c().Match(ctx, d)
}

// Verify returns the candidates whose kept fingerprints are within T_B bits
// of d's, closest first (ties by ID), scored with the distance in bits. The
// candidates' incoming scores are ignored; candidates this detector does not
// keep are dropped, since they cannot be compared, and a repeated candidate
// is reported once.
func (det *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	return det.c().Verify(ctx, d, candidates)
}

// Add keeps d's fingerprint. An ID already kept returns an error wrapping
// neardup.ErrDuplicateID.
func (det *Detector) Add(ctx context.Context, d *neardup.Document) error {
	return det.c().Add(ctx, d)
}

// AddFingerprint keeps fp under id, as Add does for a document whose
// fingerprint is fp: a caller that stored fingerprints keeps them again
// without their pages.
func (det *Detector) AddFingerprint(id string, fp Fingerprint) error {
	return det.c().AddFeature(id, fp)
}

// MatchOrAdd returns the kept documents within T_B bits of d, as Match does;
// when there are none it keeps d's fingerprint before any other change can
// come in between, and reports added = true.
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	return det.c().MatchOrAdd(ctx, d)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): in one step the fingerprint kept under d.ID is
// forgotten and d's is kept, unless d is within T_B bits of another kept
// page, whose matches it then returns.
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) (matches []neardup.Match, kept bool, err error) {
	return det.c().Replace(ctx, d)
}

// Remove forgets id's fingerprint, in one step of the index. An ID that is
// not kept returns an error wrapping neardup.ErrUnknownID.
func (det *Detector) Remove(ctx context.Context, id string) error {
	return det.c().Remove(ctx, id)
}

// store keeps the fingerprints: in the k-bit index under their handles, or,
// when T_B is too large for an index, in a dense slice that Search scans.
type store struct {
	maxDist int
	ix      *hamming.Index // nil: scan fps

	fps     []Fingerprint           // scan only: kept fingerprints, dense
	handles []detector.Handle       // scan only: handles[i] keeps fps[i]
	pos     map[detector.Handle]int // scan only: handle -> index in fps
}

func (st *store) Feature(h detector.Handle) Fingerprint {
	if st.ix != nil {
		fp, _ := st.ix.Code(uint64(h))
		return Fingerprint(fp)
	}
	return st.fps[st.pos[h]]
}

func (st *store) Search(fp Fingerprint, dst []detector.Found) []detector.Found {
	if st.ix == nil {
		return st.scan(fp, dst)
	}
	var buf [8]hamming.Hit // most queries find fewer: no allocation
	// k is within the index's range by construction.
	hits, _ := st.ix.Query(uint64(fp), st.maxDist, buf[:0])
	for _, h := range hits {
		dst = append(dst, detector.Found{H: detector.Handle(h.ID), Dist: float64(h.Distance)})
	}
	return dst
}

// scan compares fp with every kept fingerprint, four at a time: the four
// popcounts are independent, and most groups have no match, so the loop
// takes one branch per group.
func (st *store) scan(fp Fingerprint, dst []detector.Found) []detector.Found {
	fps, handles, k := st.fps, st.handles[:len(st.fps)], st.maxDist
	i := 0
	for ; i+4 <= len(fps); i += 4 {
		g := fps[i : i+4 : i+4]
		d0, d1, d2, d3 := Distance(fp, g[0]), Distance(fp, g[1]), Distance(fp, g[2]), Distance(fp, g[3])
		if min(d0, d1, d2, d3) > k {
			continue
		}
		for j, d := range [4]int{d0, d1, d2, d3} {
			if d <= k {
				dst = append(dst, detector.Found{H: handles[i+j], Dist: float64(d)})
			}
		}
	}
	for ; i < len(fps); i++ {
		if d := Distance(fp, fps[i]); d <= k {
			dst = append(dst, detector.Found{H: handles[i], Dist: float64(d)})
		}
	}
	return dst
}

func (st *store) Score(fp Fingerprint, h detector.Handle) (float64, bool) {
	dist := Distance(fp, st.Feature(h))
	return float64(dist), dist <= st.maxDist
}

func (st *store) Insert(h detector.Handle, fp Fingerprint) error {
	if st.ix != nil {
		return st.ix.Add(uint64(h), uint64(fp))
	}
	if st.pos == nil {
		st.pos = make(map[detector.Handle]int)
	}
	st.pos[h] = len(st.fps)
	st.fps = append(st.fps, fp)
	st.handles = append(st.handles, h)
	return nil
}

func (st *store) Delete(h detector.Handle) error {
	if st.ix != nil {
		return st.ix.Remove(uint64(h))
	}
	i, last := st.pos[h], len(st.fps)-1
	if i != last {
		st.fps[i], st.handles[i] = st.fps[last], st.handles[last]
		st.pos[st.handles[i]] = i
	}
	st.fps, st.handles = st.fps[:last], st.handles[:last]
	delete(st.pos, h)
	return nil
}
