package editdist

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

// NonOverlap is the Measure of this package's matches: 1 − LCC/m =
// edit/m, one minus the overlap factor of the longer feature string
// (Definition 3's OverlapFactor_Dest). 0 for identical feature strings,
// lower is closer.
const NonOverlap neardup.Measure = "editdist-1-overlap"

// Options configures a Detector. The zero value is the paper's method with
// the package defaults.
type Options struct {
	// Thresholds are α, β and ε of Definition 4.
	Thresholds Thresholds
	// Extractor builds the feature strings; the zero value is the paper's
	// (the Han character before each 。); Latin() is for alphabetic
	// scripts.
	Extractor Extractor
	// MaxLength bounds a feature string: only its first MaxLength runes
	// count, so that an enormous page (an 8 MB page of one-character
	// sentences has over a million) costs at most MaxLength²/64 steps per
	// comparison. Zero means DefaultMaxLength; NoLimit keeps every rune;
	// other negative values are invalid.
	MaxLength int
}

// DefaultMaxLength is Options.MaxLength when it is zero: 8,192 runes, far
// above a real page's count of sentences. The time of a comparison grows
// with the product of the two lengths (docs/BENCHMARKS.md).
const DefaultMaxLength = 8192

// NoLimit, as Options.MaxLength, keeps feature strings whole.
const NoLimit = -1

// resolve fills in the defaults and validates o.
func (o Options) resolve() (Options, error) {
	switch {
	case o.MaxLength == 0:
		o.MaxLength = DefaultMaxLength
	case o.MaxLength < NoLimit:
		return o, fmt.Errorf("editdist: Options.MaxLength %d is negative: %w", o.MaxLength, neardup.ErrInvalidOption)
	}
	var err error
	if o.Thresholds, err = o.Thresholds.resolve(); err != nil {
		return o, err
	}
	if o.Extractor, err = o.Extractor.resolve(); err != nil {
		return o, fmt.Errorf("%w: %w", err, neardup.ErrInvalidOption)
	}
	return o, nil
}

// Feature is a page's feature string with what Definition 4 needs beside
// it: the host, and a sketch of the string's symbols for a lower bound of
// the edit distance.
type Feature struct {
	// String is the feature string: one rune per terminator that yields
	// one.
	String []rune
	// Host is the page's host (neardup.Document.Host); pages of one
	// non-empty host need α + ε.
	Host string

	bag bag
}

// bag counts the symbols of a feature string in bagBuckets buckets, 7 bits
// each, packed 8 to a word. Every edit changes at most one count up and one down,
// so the buckets' differences bound the edit distance from below (the bag
// distance). A bucket that would pass 127 marks the bag full, and a full bag
// bounds nothing.
type bag struct {
	w    [bagBuckets / 8]uint64
	full bool
}

// bagBuckets is the number of a bag's buckets: 256, so that the symbols of
// two unrelated strings of a few hundred characters rarely share a bucket
// and the bound rejects them without a distance (with 64 the bound of two
// random 100-character strings is about 0.45 of their length, below what
// α = 0.6 lets through). bagShift maps a 32-bit hash to a bucket.
const (
	bagBuckets = 256
	bagShift   = 24
)

// bagBucket returns the bag bucket of r.
func bagBucket(r rune) uint32 { return (uint32(r) * 0x9E3779B1) >> bagShift }

func bagOf(s []rune) (b bag) {
	var c [bagBuckets]uint8
	for _, r := range s {
		i := bagBucket(r)
		if c[i] == 127 {
			b.full = true
			continue
		}
		c[i]++
	}
	for i, x := range c {
		b.w[i/8] |= uint64(x) << (8 * (i % 8))
	}
	return b
}

const (
	highBits = 0x8080808080808080
	evenByte = 0x00FF00FF00FF00FF
)

// excess returns, byte by byte, max(a − b, 0) of 7-bit counts.
func excess(a, b uint64) uint64 {
	t := (a | highBits) - b // 128 + a − b in each byte: no borrows
	return t &^ highBits & ((t & highBits >> 7) * 0xFF)
}

// lowerBound returns a lower bound of the edit distance between the strings
// of bags a and b: max(Σ (a−b)⁺, Σ (b−a)⁺) over the buckets.
func (a *bag) lowerBound(b *bag) int {
	if a.full || b.full {
		return 0
	}
	var plus, minus uint64 // four 16-bit lanes each
	for i := range a.w {
		x, y := excess(a.w[i], b.w[i]), excess(b.w[i], a.w[i])
		plus += x&evenByte + x>>8&evenByte
		minus += y&evenByte + y>>8&evenByte
	}
	const lanes = 0x0001000100010001
	return int(max(plus*lanes>>48, minus*lanes>>48))
}

type featureKey struct {
	terminators, name string
	max               int
}

// Detector keeps the feature strings of pages and finds the kept ones that
// a new page nearly duplicates by Definition 4. It implements
// neardup.Detector, neardup.Verifier, neardup.Remover,
// neardup.MatchAdder, neardup.Replacer and neardup.Persister. Scores are
// NonOverlap (edit/m, lower is closer).
//
// Kept pages are indexed by the length of their feature strings: a new page
// of length L is compared only with kept pages of lengths in [βL, L/β],
// and of those only with pages whose symbol counts allow an edit distance
// within the bound Definition 4 sets; the distance itself is the bounded
// bit-parallel one (Pattern.Within).
//
// A Detector is safe for concurrent use: Match and Verify run in parallel,
// Add, Replace, Remove and MatchOrAdd exclusively. The zero Detector is ready
// to use with the default Options.
type Detector struct {
	opts Options // resolved
	core detector.Lazy[Feature, neardup.Document, neardup.Match]
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

func (det *Detector) build(o Options) *detector.Core[Feature, neardup.Document, neardup.Match] {
	det.opts = o
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return detector.NewCore(detector.Config[Feature, neardup.Document, neardup.Match]{
		Name:  "editdist",
		Check: neardup.Check,
		ID:    func(d *neardup.Document) string { return d.ID },
		Match: func(id string, dist float64) neardup.Match {
			return neardup.Match{ID: id, Score: dist, Measure: NonOverlap}
		},
		Candidate: func(m neardup.Match) string { return m.ID },
		Extract:   det.extract,
		NewStore: func() detector.Store[Feature] {
			return &store{th: o.Thresholds, kept: make(map[detector.Handle]place), byLen: make(map[int]*bucket)}
		},
		Kind: "editdist.Detector",
		Params: []snapshot.Param{
			{Name: "Alpha", Value: f(o.Thresholds.Alpha)},
			{Name: "Beta", Value: f(o.Thresholds.Beta)},
			{Name: "Epsilon", Value: f(o.Thresholds.Epsilon)},
			{Name: "Terminators", Value: o.Extractor.Terminators},
			{Name: "Feature", Value: o.Extractor.Name},
			{Name: "MaxLength", Value: strconv.Itoa(o.MaxLength)},
		},
		Encode: func(sw *snapshot.Writer, f Feature) {
			sw.Text(f.Host)
			sw.Varint(int64(len(f.String)))
			for _, r := range f.String {
				sw.Varint(int64(r))
			}
		},
		Decode: func(sr *snapshot.Reader) Feature {
			var f Feature
			f.Host = sr.Text()
			limit := int64(math.MaxInt32)
			if o.MaxLength != NoLimit {
				limit = int64(o.MaxLength)
			}
			n := sr.Int(1, limit)
			for range n {
				if sr.Err() != nil {
					break
				}
				f.String = append(f.String, rune(sr.Int(0, 0x10FFFF)))
			}
			f.bag = bagOf(f.String)
			return f
		},
	})
}

// c returns the detector's Core, made with the default Options for a zero
// Detector.
func (det *Detector) c() *detector.Core[Feature, neardup.Document, neardup.Match] {
	return det.core.Get(func() *detector.Core[Feature, neardup.Document, neardup.Match] {
		o, _ := Options{}.resolve() // the defaults are valid
		return det.build(o)
	})
}

// Options returns the detector's options with the defaults filled in and
// ε = 0 as NoHostRule (NoLimit stays NoLimit), so that New(det.Options())
// makes the same detector.
func (det *Detector) Options() Options {
	det.c()
	o := det.opts
	if o.Thresholds.Epsilon == 0 {
		// Zero would ask New for the default ε; NoHostRule asks for 0.
		o.Thresholds.Epsilon = NoHostRule
	}
	return o
}

// FeatureOf returns d's feature string and host as the detector sees them,
// computed once per Document and Extractor. A nil document or page returns
// an error wrapping neardup.ErrNilDocument; a page whose feature string is
// empty (no terminator after a Han character, a page of images) one wrapping
// neardup.ErrNoFeatures: the method cannot decide it, and never calls it a
// duplicate.
func (det *Detector) FeatureOf(d *neardup.Document) (Feature, error) { return det.c().Feature(d) }

func (det *Detector) extract(d *neardup.Document) (Feature, error) {
	e, max := det.opts.Extractor, det.opts.MaxLength
	return neardup.Feature(d, featureKey{e.Terminators, e.Name, max}, func(d *neardup.Document) (Feature, error) {
		s := e.appendN(nil, d.Page.Text, max)
		if len(s) == 0 {
			return Feature{}, fmt.Errorf("editdist: document %q has an empty feature string (no %s feature before any of %q): %w",
				d.ID, e.Name, e.Terminators, neardup.ErrNoFeatures)
		}
		return Feature{String: slices.Clip(s), Host: d.Host, bag: bagOf(s)}, nil
	})
}

// Len returns the number of kept pages.
func (det *Detector) Len() int { return det.c().Len() }

// Lookup returns the feature kept for id, and whether id is kept.
func (det *Detector) Lookup(id string) (Feature, bool) { return det.c().Lookup(id) }

// Match returns the kept pages d nearly duplicates by Definition 4, closest
// first (ties by ID), with Score = 1 − LCC/m.
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	return det.c().Match(ctx, d)
}

// Verify returns the candidates that d nearly duplicates by Definition 4,
// closest first (ties by ID), scored with 1 − LCC/m. The candidates'
// incoming scores are ignored; candidates this detector does not keep are
// dropped, and a repeated candidate is reported once.
func (det *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	return det.c().Verify(ctx, d, candidates)
}

// Add keeps d's feature string. An ID already kept returns an error wrapping
// neardup.ErrDuplicateID; a page with an empty feature string one wrapping
// neardup.ErrNoFeatures.
func (det *Detector) Add(ctx context.Context, d *neardup.Document) error {
	return det.c().Add(ctx, d)
}

// MatchOrAdd is Match, and when no kept page matches, Add, in one step under
// the write lock (added = true).
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	return det.c().MatchOrAdd(ctx, d)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): the feature kept under d.ID is forgotten and d's is
// kept unless another kept page matches it.
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) (matches []neardup.Match, kept bool, err error) {
	return det.c().Replace(ctx, d)
}

// Remove forgets the page kept under id; an ID that is not kept returns an
// error wrapping neardup.ErrUnknownID.
func (det *Detector) Remove(ctx context.Context, id string) error {
	return det.c().Remove(ctx, id)
}

// WriteTo writes a snapshot of the kept pages (IDs, hosts and feature
// strings) to w, with the options that give them their meaning; ReadFrom or
// Restore of a Detector with the same options reads it back
// (docs/format.md).
func (det *Detector) WriteTo(w io.Writer) (int64, error) { return det.c().WriteTo(w) }

// ReadFrom loads the hosts and feature strings of a snapshot in place of the kept ones, or
// changes nothing and returns the error, under the neardup.Persister
// contract; a snapshot made with other α, β, ε, terminators or feature is
// refused (neardup.ErrSnapshotMismatch).
func (det *Detector) ReadFrom(r io.Reader) (int64, error) { return det.c().ReadFrom(r) }

// Restore is ReadFrom in two steps (neardup.Persister): the snapshot is
// read and checked now, and installed when install is called.
func (det *Detector) Restore(r io.Reader) (install func(), n int64, err error) {
	return det.c().Restore(r)
}

// store keeps the feature strings by length: the features of each length
// side by side with their handles, and the sorted distinct lengths, so that
// the lengths a new page can match are a range scanned in memory order.
type store struct {
	th    Thresholds
	kept  map[detector.Handle]place
	byLen map[int]*bucket
	lens  []int // distinct lengths in byLen, ascending
}

// place is where a handle's feature is kept: byLen[l].fs[pos].
type place struct{ l, pos int }

// bucket holds the kept features of one length: fs[i] is kept under hs[i].
type bucket struct {
	hs []detector.Handle
	fs []Feature
}

// Search compares f with the kept strings whose lengths can pass
// Definition 4: for L = len(f.String), lengths in [βL, L/β].
func (st *store) Search(f Feature, dst []detector.Found) []detector.Found {
	l := len(f.String)
	lo := int(st.th.Beta*float64(l)) - 1
	hi := int(float64(l)/st.th.Beta) + 1
	var p *Pattern
	i, _ := slices.BinarySearch(st.lens, lo)
	for ; i < len(st.lens) && st.lens[i] <= hi; i++ {
		kl := st.lens[i]
		n, m := min(l, kl), max(l, kl)
		other, same := st.th.maxEdit(n, m, false), st.th.maxEdit(n, m, true)
		if other < m-n {
			continue // the length filter: n/m too small for β or α
		}
		b := st.byLen[kl]
		for j := range b.fs {
			kf := &b.fs[j]
			k := other
			if f.Host != "" && f.Host == kf.Host {
				k = same
			}
			if k < m-n || f.bag.lowerBound(&kf.bag) > k {
				continue
			}
			if p == nil {
				p = Compile(f.String)
			}
			if d, ok := p.Within(kf.String, k); ok {
				dst = append(dst, detector.Found{H: b.hs[j], Dist: float64(d) / float64(m)})
			}
		}
	}
	return dst
}

func (st *store) Score(f Feature, h detector.Handle) (float64, bool) {
	kf := st.Feature(h)
	m := max(len(f.String), len(kf.String))
	dup, d := st.th.decide(f.String, kf.String, f.Host != "" && f.Host == kf.Host)
	if !dup {
		return 1, false
	}
	return float64(d) / float64(m), true
}

func (st *store) Feature(h detector.Handle) Feature {
	at := st.kept[h]
	return st.byLen[at.l].fs[at.pos]
}

func (st *store) Insert(h detector.Handle, f Feature) error {
	l := len(f.String)
	b, ok := st.byLen[l]
	if !ok {
		i, _ := slices.BinarySearch(st.lens, l)
		st.lens = slices.Insert(st.lens, i, l)
		b = new(bucket)
		st.byLen[l] = b
	}
	st.kept[h] = place{l, len(b.hs)}
	b.hs = append(b.hs, h)
	b.fs = append(b.fs, f)
	return nil
}

func (st *store) Delete(h detector.Handle) error {
	at := st.kept[h]
	l, pos := at.l, at.pos
	delete(st.kept, h)
	b := st.byLen[l]
	last := len(b.hs) - 1
	if pos != last {
		b.hs[pos], b.fs[pos] = b.hs[last], b.fs[last]
		st.kept[b.hs[pos]] = place{l, pos}
	}
	b.fs[last] = Feature{} // let the string go
	b.hs, b.fs = b.hs[:last], b.fs[:last]
	if last > 0 {
		return nil
	}
	delete(st.byLen, l)
	if i, found := slices.BinarySearch(st.lens, l); found {
		st.lens = slices.Delete(st.lens, i, i+1)
	}
	return nil
}
