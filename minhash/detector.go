package minhash

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/snapshot"
)

// Defaults of Options, chosen on the labelled corpora (docs/BENCHMARKS.md).
const (
	DefaultContentDistance  = 0.62
	DefaultPageDistance     = 0.5
	DefaultContentGuard     = 0.7
	DefaultHostPageDistance = 0.55
	DefaultTemplatePages    = 3
	DefaultSketchSize       = 128
	DefaultPageSketchSize   = 128
	DefaultShingleWidth     = 4
)

// MaxSketchSize is the largest SketchSize and PageSketchSize.
const MaxSketchSize = 256

// JaccardDistance is the Measure of a Detector's matches: one minus the
// Jaccard similarity of two pages' sets of word shingles, estimated from
// their sketches; of the pages' contents and of the whole pages, the
// smaller.
const JaccardDistance neardup.Measure = "minhash-jaccard"

// Options configures a Detector. The zero value is the tuned default; use
// it unless a labelled sample of your own pages says otherwise.
// ContentDistance is then the field to turn (lower for fewer false matches,
// higher to find copies edited more; examples/evaluate -sweep minhash
// measures it); the other fields are for research and for reproducing
// measurements, not for tuning per site.
type Options struct {
	// ContentDistance: pages whose contents are closer than this are
	// near-duplicates. Zero means DefaultContentDistance.
	ContentDistance float64
	// PageDistance and ContentGuard: pages whose whole texts are closer
	// than PageDistance are near-duplicates too when their contents are
	// closer than ContentGuard (so that two pages of one heavy template with
	// different content are not). Zero means the defaults.
	PageDistance, ContentGuard float64
	// HostPageDistance: two pages of one host are near-duplicates only when
	// their whole pages are closer than this too. Pages of one site share
	// its template, so two of them far apart as wholes differ in what their
	// markup calls page furniture (a table of contents, a list of links)
	// however close their remaining content. Zero means
	// DefaultHostPageDistance; 1 turns the rule off.
	HostPageDistance float64
	// TemplatePages is the number of kept pages of a host a block must be
	// in to count as the host's template; zero means DefaultTemplatePages,
	// NoTemplates turns the per-host template model off.
	TemplatePages int
	// SketchSize and PageSketchSize are the hashes kept of a page's content
	// and of the whole page (1..MaxSketchSize); zero means the defaults.
	SketchSize, PageSketchSize int
	// ShingleWidth is the tokens per shingle; zero means
	// DefaultShingleWidth.
	ShingleWidth int
	// Keys and MaxPostings configure the candidate index (IndexOptions);
	// zero means the defaults, MaxPostings NoLimit no bound.
	Keys, MaxPostings int
}

// resolve fills in the defaults and checks o.
func (o Options) resolve() (Options, error) {
	def := func(x *float64, d float64) {
		if *x == 0 {
			*x = d
		}
	}
	def(&o.ContentDistance, DefaultContentDistance)
	def(&o.PageDistance, DefaultPageDistance)
	def(&o.ContentGuard, DefaultContentGuard)
	def(&o.HostPageDistance, DefaultHostPageDistance)
	for _, x := range []float64{o.ContentDistance, o.PageDistance, o.ContentGuard, o.HostPageDistance} {
		if !(x > 0 && x <= 1) {
			return o, fmt.Errorf("minhash: Options: distance %v not in (0, 1]: %w", x, neardup.ErrInvalidOption)
		}
	}
	defInt := func(x *int, d int) {
		if *x == 0 {
			*x = d
		}
	}
	defInt(&o.TemplatePages, DefaultTemplatePages)
	defInt(&o.SketchSize, DefaultSketchSize)
	defInt(&o.PageSketchSize, DefaultPageSketchSize)
	defInt(&o.ShingleWidth, DefaultShingleWidth)
	defInt(&o.Keys, DefaultKeys)
	defInt(&o.MaxPostings, DefaultMaxPostings)
	for _, k := range []int{o.SketchSize, o.PageSketchSize} {
		if k < 1 || k > MaxSketchSize {
			return o, fmt.Errorf("minhash: Options: sketch size %d not in 1..%d: %w", k, MaxSketchSize, neardup.ErrInvalidOption)
		}
	}
	if o.ShingleWidth < 1 || o.ShingleWidth > 16 {
		return o, fmt.Errorf("minhash: Options.ShingleWidth = %d not in 1..16: %w", o.ShingleWidth, neardup.ErrInvalidOption)
	}
	if o.Keys < 1 || o.Keys > o.SketchSize {
		return o, fmt.Errorf("minhash: Options.Keys = %d not in 1..SketchSize: %w", o.Keys, neardup.ErrInvalidOption)
	}
	if o.TemplatePages < 0 && o.TemplatePages != NoTemplates {
		return o, fmt.Errorf("minhash: Options.TemplatePages = %d, want NoTemplates, 0 or more: %w", o.TemplatePages, neardup.ErrInvalidOption)
	}
	if o.MaxPostings < 0 && o.MaxPostings != NoLimit {
		return o, fmt.Errorf("minhash: Options.MaxPostings = %d, want NoLimit, 0 or more: %w", o.MaxPostings, neardup.ErrInvalidOption)
	}
	return o, nil
}

// Detector is the detector to use when in doubt: it needs no tuning and
// takes pages whose near-duplicates differ by site templates, ads, edits or
// a few sentences. See the package documentation for the method.
//
// A Detector is safe for concurrent use: Match and Verify run in parallel;
// Add, MatchOrAdd, Replace and Remove exclusively. The zero Detector is
// ready to use with the default Options.
type Detector struct {
	opts     Options
	core     detector.Lazy[feature]
	compared atomic.Int64
	builders sync.Pool // of *builders for opts' sizes
}

// New returns an empty Detector configured by opts. Options out of range
// return an error wrapping neardup.ErrInvalidOption.
func New(opts Options) (*Detector, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	det := new(Detector)
	det.core.Set(det.build(o))
	return det, nil
}

func (det *Detector) build(o Options) *detector.Core[feature] {
	det.opts = o
	return detector.NewCore(detector.Config[feature]{
		Name:      "minhash",
		Measure:   JaccardDistance,
		Extract:   func(d *neardup.Document) (feature, error) { return extract(d, o, &det.builders) },
		NewStore:  func() detector.Store[feature] { return newStore(o, &det.compared) },
		Kind:      "minhash.Detector",
		Params:    o.params(),
		Encode:    encodeFeature,
		Decode:    func(sr *snapshot.Reader) feature { return decodeFeature(sr, o) },
		Extra:     func(s detector.Store[feature]) func(*snapshot.Writer) { return s.(*store).writeVerdicts() },
		ReadExtra: func(sr *snapshot.Reader, s detector.Store[feature]) { s.(*store).readVerdicts(sr) },
	})
}

func (o Options) params() []snapshot.Param {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	i := strconv.Itoa
	return []snapshot.Param{
		{Name: "ContentDistance", Value: f(o.ContentDistance)},
		{Name: "PageDistance", Value: f(o.PageDistance)},
		{Name: "ContentGuard", Value: f(o.ContentGuard)},
		{Name: "HostPageDistance", Value: f(o.HostPageDistance)},
		{Name: "TemplatePages", Value: i(o.TemplatePages)},
		{Name: "Sketch", Value: fmt.Sprintf("%d/%dx%d", o.SketchSize, o.PageSketchSize, o.ShingleWidth)},
		{Name: "Index", Value: fmt.Sprintf("%d/%d", o.Keys, o.MaxPostings)},
	}
}

func (det *Detector) c() *detector.Core[feature] {
	return det.core.Get(func() *detector.Core[feature] {
		o, _ := Options{}.resolve() // the defaults are valid
		return det.build(o)
	})
}

// Options returns the detector's options with the defaults filled in.
func (det *Detector) Options() Options {
	det.c()
	return det.opts
}

// Comparisons returns how many kept pages the detector has compared a page
// with (in Match, Verify, MatchOrAdd and Replace) since it was made: the
// work the candidate index leaves.
func (det *Detector) Comparisons() int64 {
	det.c()
	return det.compared.Load()
}

// Len returns the number of kept pages.
func (det *Detector) Len() int { return det.c().Len() }

// Contains reports whether a page is kept under id.
func (det *Detector) Contains(id string) bool { return det.c().Contains(id) }

// Match returns the kept pages that d nearly duplicates, closest first (ties
// by ID). It does not change the detector. Errors wrap
// neardup.ErrNilDocument or neardup.ErrNoFeatures (a page without words).
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	return det.c().Match(ctx, d)
}

// Verify returns those of candidates that are kept and near d, closest first.
func (det *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	return det.c().Verify(ctx, d, candidates)
}

// Add keeps d; an ID already kept returns an error wrapping
// neardup.ErrDuplicateID.
func (det *Detector) Add(ctx context.Context, d *neardup.Document) error {
	return det.c().Add(ctx, d)
}

// MatchOrAdd is Match, and when no kept page is near, Add, in one step (an
// atomic "add if new").
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	return det.c().MatchOrAdd(ctx, d)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer).
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) (matches []neardup.Match, kept bool, err error) {
	return det.c().Replace(ctx, d)
}

// Remove forgets the page kept under id; an unknown ID returns an error
// wrapping neardup.ErrUnknownID.
func (det *Detector) Remove(ctx context.Context, id string) error {
	return det.c().Remove(ctx, id)
}

// WriteTo writes a snapshot of the kept pages (docs/format.md). The
// template model is not written: it is a function of the kept pages and is
// rebuilt when the snapshot is read.
func (det *Detector) WriteTo(w io.Writer) (int64, error) { return det.c().WriteTo(w) }

// ReadFrom loads a snapshot in place of the kept pages, or changes nothing
// and returns the error (neardup.Persister); a snapshot of a Detector with
// other Options is refused (neardup.ErrSnapshotMismatch).
func (det *Detector) ReadFrom(r io.Reader) (int64, error) { return det.c().ReadFrom(r) }

// Restore is ReadFrom in two steps (neardup.Persister).
func (det *Detector) Restore(r io.Reader) (install func(), n int64, err error) {
	return det.c().Restore(r)
}

// encodeFeature writes a kept page's feature: host, text hash, the two
// sketches (ascending, as gaps), the content hashes' block indexes, the
// content's share of the page and the block keys.
func encodeFeature(sw *snapshot.Writer, f feature) {
	sw.Text(f.host)
	sw.Uint64(f.exact)
	writeSketch(sw, f.page)
	writeSketch(sw, f.content)
	sw.Raw(f.tags)
	sw.Raw([]byte{f.share})
	sw.Uvarint(uint64(len(f.blocks)))
	for _, b := range f.blocks {
		sw.Uvarint(uint64(b))
	}
}

func decodeFeature(sr *snapshot.Reader, o Options) feature {
	f := feature{host: sr.Text(), exact: sr.Uint64()}
	f.page = readSketch(sr, o.PageSketchSize)
	f.content = readSketch(sr, o.SketchSize)
	if sr.Err() != nil {
		return feature{}
	}
	if len(f.page) == 0 {
		sr.Fail("empty page sketch")
		return feature{}
	}
	f.tags = append([]uint8(nil), sr.Raw(len(f.content))...)
	if sh := sr.Raw(1); len(sh) == 1 {
		f.share = sh[0]
	}
	nb := sr.Count()
	if nb > uint64(len(f.content)) || (nb == 0) != (len(f.content) == 0) {
		sr.Fail("%d blocks for %d content hashes", nb, len(f.content))
		return feature{}
	}
	f.blocks = make([]uint32, 0, nb)
	for i := uint64(0); i < nb && sr.Err() == nil; i++ {
		b := sr.Uvarint()
		if b > math.MaxUint32 || i > 0 && uint32(b) <= f.blocks[i-1] {
			sr.Fail("block keys not ascending")
			return feature{}
		}
		f.blocks = append(f.blocks, uint32(b))
	}
	for _, t := range f.tags {
		if int(t) >= len(f.blocks) {
			sr.Fail("block index %d of %d", t, len(f.blocks))
			return feature{}
		}
	}
	return f
}

func writeSketch(sw *snapshot.Writer, s Sketch) {
	sw.Uvarint(uint64(len(s)))
	var prev uint32
	for _, h := range s {
		sw.Uvarint(uint64(h - prev))
		prev = h
	}
}

func readSketch(sr *snapshot.Reader, k int) Sketch {
	n := sr.Count()
	if n > uint64(k) {
		sr.Fail("sketch of %d hashes, more than %d", n, k)
		return nil
	}
	s := make(Sketch, 0, n)
	var h uint64
	for i := uint64(0); i < n && sr.Err() == nil; i++ {
		d := sr.Uvarint()
		if (i > 0 && d == 0) || h+d >= math.MaxUint32 {
			sr.Fail("sketch hashes not ascending")
			return nil
		}
		h += d
		s = append(s, uint32(h))
	}
	return s
}

// The Detector implements every interface of a method.
var _ detector.Full = (*Detector)(nil)

// Explanation says how a page compares with a kept one: the distances the
// verdict is made of and the rule that made it.
type Explanation struct {
	// Content and Page are the Jaccard distances of the two pages'
	// contents (each less its host's template) and of the whole pages.
	Content, Page float64
	// ContentHashes and KeptContentHashes are the sizes of the two content
	// sketches compared (after the template is taken out).
	ContentHashes, KeptContentHashes int
	// ContentShare and KeptContentShare are the shares of the two pages'
	// tokens that their markup leaves as content (0 to 1).
	ContentShare, KeptContentShare float64
	// Rule is "exact" (the same text), "content" (contents closer than
	// ContentDistance), "page" (whole pages closer than PageDistance and
	// contents closer than ContentGuard), or "" when the pages are not
	// near-duplicates ("host" when they would be but are pages of one host
	// whose whole pages are not closer than HostPageDistance).
	Rule string
}

// String formats e for a person.
func (e Explanation) String() string {
	rule := e.Rule
	if rule == "" {
		rule = "not near"
	}
	return fmt.Sprintf("content %.3f (%d/%d hashes, share %.2f/%.2f), page %.3f: %s", e.Content, e.ContentHashes, e.KeptContentHashes, e.ContentShare, e.KeptContentShare, e.Page, rule)
}

// Explain compares d with the page kept under id, whether or not they are
// near-duplicates, and says why. An ID that is not kept returns an error
// wrapping neardup.ErrUnknownID.
func (det *Detector) Explain(d *neardup.Document, id string) (Explanation, error) {
	c := det.c()
	f, err := c.Feature(d)
	if err != nil {
		return Explanation{}, err
	}
	var e Explanation
	if !c.Inspect(id, func(s detector.Store[feature], h detector.Handle) { e = s.(*store).explain(&f, h) }) {
		return Explanation{}, fmt.Errorf("minhash: Explain %q: %w", id, neardup.ErrUnknownID)
	}
	return e, nil
}
