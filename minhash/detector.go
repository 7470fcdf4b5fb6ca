package minhash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/snapshot"
	"github.com/neardup/neardup/minhash/internal/judge"
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
	DefaultKeys             = 8
	DefaultMaxPostings      = 256
)

// Named negative values of options, whose zero means their default.
const (
	// NoLimit, as Options.MaxPostings, files any number of pages under a
	// key of the candidate index: a key is never dropped.
	NoLimit = -1
	// NoTemplates, as Options.TemplatePages, turns the per-host template
	// model off: no block counts as a host's template.
	NoTemplates = -1
)

// MaxSketchSize is the largest SketchSize and PageSketchSize, and the most
// hashes SketchOf keeps.
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
	// Keys is the number of a kept page's smallest content hashes it is
	// filed under in the candidate index; zero means DefaultKeys.
	// MaxPostings bounds the pages filed under one key: a key filed under
	// more stops being a key (it is dropped and never searched again), so
	// that the hashes of text that many pages share cannot make every page
	// compare with a growing part of the repository. Zero means
	// DefaultMaxPostings; NoLimit means no bound.
	Keys, MaxPostings int
}

// resolve fills in the defaults and checks o.
func (o Options) resolve() (Options, error) {
	r, err := judge.Options(o).Resolve()
	return Options(r), err
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
	core     detector.Lazy[judge.Feature, neardup.Document, neardup.Match]
	compared atomic.Int64
	builders sync.Pool // judge.Extract's, for opts' sizes
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

func (det *Detector) build(o Options) *detector.Core[judge.Feature, neardup.Document, neardup.Match] {
	det.opts = o
	jo := judge.Options(o)
	return detector.NewCore(detector.Config[judge.Feature, neardup.Document, neardup.Match]{
		Name:  "minhash",
		Check: neardup.Check,
		ID:    func(d *neardup.Document) string { return d.ID },
		Match: func(id string, dist float64) neardup.Match {
			return neardup.Match{ID: id, Score: dist, Measure: JaccardDistance}
		},
		Candidate: func(m neardup.Match) string { return m.ID },
		Extract:   func(d *neardup.Document) (judge.Feature, error) { return judge.Extract(d, jo, &det.builders) },
		NewStore:  func() detector.Store[judge.Feature] { return newStore(jo, &det.compared) },
		Kind:      "minhash.Detector",
		Params:    o.params(),
		Encode:    judge.EncodeFeature,
		Decode:    func(sr *snapshot.Reader) judge.Feature { return judge.DecodeFeature(sr, jo) },
		Extra:     func(s detector.Store[judge.Feature]) func(*snapshot.Writer) { return s.(*store).writeVerdicts() },
		ReadExtra: func(sr *snapshot.Reader, s detector.Store[judge.Feature]) { s.(*store).readVerdicts(sr) },
	})
}

// ErrFull is returned (wrapped) by a Detector's Add and MatchOrAdd when its
// candidate index holds as many entries as it can address, about 2.7 × 10⁸
// pages at the default Options.Keys: the page is not kept. Pages beyond
// that belong in more than one Detector (cluster.Detector) or in a
// repository (minhash/redisindex).
var ErrFull = errors.New("minhash: candidate index full")

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

func (det *Detector) c() *detector.Core[judge.Feature, neardup.Document, neardup.Match] {
	return det.core.Get(func() *detector.Core[judge.Feature, neardup.Document, neardup.Match] {
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
	if !c.Inspect(id, func(s detector.Store[judge.Feature], h detector.Handle) { e = s.(*store).explain(&f, h) }) {
		return Explanation{}, fmt.Errorf("minhash: Explain %q: %w", id, neardup.ErrUnknownID)
	}
	return e, nil
}
