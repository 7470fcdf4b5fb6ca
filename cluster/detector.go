package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
)

// DefaultFitAt is the repository size at which a Detector first clusters
// its kept pages, when Options.FitAt is zero: 256. Below that one
// detector holding every page is cheap to search anyway, and earlier fits
// did no better (docs/cluster.md).
const DefaultFitAt = 256

// Never, as Options.FitAt, means no automatic fit (call Refit); as
// Options.Growth, no automatic refit after the first fit. Any negative value
// means the same.
const Never = -1

// DefaultGrowth is Options.Growth when it is zero: the Detector
// refits when the repository has doubled since the last fit, so that the
// fits cost O(n) amortised per kept page and a Detector of n pages has about
// log2(n/FitAt) generations.
const DefaultGrowth = 2.0

// Options configures a Detector. NewDetector is required; every other zero
// field means its default: KModes at its defaults, the first fit at
// DefaultFitAt pages and a refit at every doubling.
type Options struct {
	// Partitioner, when set, gives the parts of the repository a page goes to
	// in place of fitted clusters: a fixed partition (an ssm.Partitioner's
	// domain × size buckets, a KModes fitted on a sample, a site's sections).
	// The first part is the page's home, where it is kept; the others are only
	// probed by Match (a neighbouring size bucket, a second-nearest cluster),
	// trading speed for recall. Parts are numbered from 0 to 65,535; a part out
	// of that range, or no part, is an error (wrapping
	// neardup.ErrInvalidOption, or neardup.ErrNoFeatures for none). Partition
	// is called without the Detector's lock, possibly from several goroutines
	// at once. A Partitioner that is a neardup.Persister (KModes,
	// ssm.Partitioner) is saved in the Detector's snapshots and read back with
	// them, so that a snapshot is read back only by a Partitioner that places
	// pages the same way. With a Partitioner there is nothing to fit: KModes,
	// FitAt, Growth, Incremental and Source must be zero, and Refit does
	// nothing.
	Partitioner interface {
		Partition(d *neardup.Document) ([]int, error)
	}
	// KModes configures the clustering: K, Keywords (f), ModeKeywords,
	// Similarity, Init, NInit, Seed, MaxIter, and Probes (p), the number of
	// clusters of each generation a new page is compared within.
	KModes KModesOptions
	// NewDetector returns the empty detector a cluster keeps; expected is
	// the number of pages the cluster should hold by the next fit, a hint
	// for detectors that size an index (simhash.Options.ExpectedSize). It
	// is required: the package holds no method of its own. The paper's
	// choice is neardup.NewCascade of a sentence-count detector and a
	// SimHash detector (see the Detector example). NewDetector is called
	// for every cluster of every fit (and for cluster 0 before the first
	// fit, and when a snapshot is read), and must return detectors that are
	// Removers (for Remove and Replace), Verifiers (for Verify) and
	// Persisters (for snapshots) when those are used.
	NewDetector func(cluster, expected int) (neardup.Detector, error)
	// FitAt is the number of kept pages at which the Detector first fits
	// KModes on them and moves each into its cluster; until then every page
	// is kept in one detector. Zero means DefaultFitAt; Never means never
	// automatically (call Refit).
	FitAt int
	// Growth makes the Detector refit when the number of kept pages reaches
	// Growth times the number at the last fit. It must be above 1; zero
	// means DefaultGrowth; Never means no automatic refit after the first
	// fit.
	Growth float64
	// Incremental folds each page kept after a fit into its cluster's mode
	// (online k-modes) instead of keeping the fitted modes until the next
	// fit. The modes then follow new topics, but a kept page's cluster may
	// stop being the one its keywords are assigned to, so that a
	// near-duplicate of it with the same keywords is sent elsewhere
	// (docs/cluster.md has the measured cost).
	Incremental bool
	// Source returns a kept page by its ID. With a Source every refit moves
	// every kept page into its new cluster (adding it to that cluster's new
	// detector): one generation, clustered by a model of the whole
	// repository. Without one the Detector keeps the pages it is given only
	// until its first fit, which moves them; later fits start a new
	// generation (see Detector).
	Source func(id string) (*neardup.Document, error)
}

// maxParts bounds the part numbers of Options.Partitioner.
const maxParts = 1 << 16

// resolve fills in defaults and validates o.
func (o Options) resolve() (Options, error) {
	if o.Partitioner != nil {
		if o.KModes != (KModesOptions{}) || o.FitAt != 0 || o.Growth != 0 || o.Incremental || o.Source != nil {
			return o, fmt.Errorf("cluster: Options.Partitioner with KModes, FitAt, Growth, Incremental or Source (a fixed partition is not fitted): %w", neardup.ErrInvalidOption)
		}
		if o.NewDetector == nil {
			return o, fmt.Errorf("cluster: Options.NewDetector is nil (want the factory of the parts' detectors): %w", neardup.ErrInvalidOption)
		}
		return o, nil
	}
	km, err := o.KModes.resolve()
	if err != nil {
		return o, err
	}
	o.KModes = km
	if o.NewDetector == nil {
		return o, fmt.Errorf("cluster: Options.NewDetector is nil (want the factory of the clusters' detectors): %w", neardup.ErrInvalidOption)
	}
	if o.FitAt == 0 {
		o.FitAt = DefaultFitAt
	}
	switch {
	case o.Growth == 0:
		o.Growth = DefaultGrowth
	case math.IsNaN(o.Growth) || o.Growth > 0 && o.Growth <= 1:
		return o, fmt.Errorf("cluster: Options.Growth %v: want above 1, or negative for no refit: %w", o.Growth, neardup.ErrInvalidOption)
	}
	return o, nil
}

// Detector is the clustered detector of Kumar and Govindarajulu (§4): the
// kept pages are split into k clusters by KModes over their top keywords,
// each cluster keeps its own detector (Options.NewDetector; the paper's is
// the sentence-count → SimHash cascade), and a new page is compared only within its p most similar
// clusters; when it is kept, it is kept in the most similar one.
//
// The repository grows, so the Detector fits again at FitAt pages and at
// every Growth-fold growth, without losing a kept page. The first fit moves
// every page into its cluster. A later fit moves every page again when
// Options.Source can give it back; otherwise it starts a new
// generation: a model fitted on the keywords of every kept page, with empty
// cluster detectors for the pages to come, while the pages already kept stay
// in the clusters of the generation that placed them. A new page is compared
// within its p nearest clusters of every generation, each generation's
// clusters chosen by that generation's model, so a near-duplicate is sent
// where its original was sent. The generations partition the repository:
// a page meets about p·n/k kept pages whatever their number (each
// generation adds one placing, k·f bit tests).
//
// With Options.Partitioner the parts are fixed instead: a page is kept in the
// first part Partition gives it and compared within all of them, one
// detector per part, made on first use; nothing is fitted or moved. This is
// how a partition of another package (ssm.Partitioner's domain × size
// buckets, a KModes fitted on a sample) keeps a detector per part.
//
// Scores and Measures are those of the cluster detectors. A Detector
// implements neardup.Detector, Verifier, Remover, MatchAdder, Replacer and
// Persister (the last four when its cluster detectors do).
//
// A Detector is safe for concurrent use: Match and Verify run in parallel;
// Add, MatchOrAdd, Replace, Remove and Refit exclusively (an automatic refit
// runs inside the Add that triggers it). Make one with New: the zero
// Detector has no cluster detectors, and its Match and Add return an error
// wrapping neardup.ErrInvalidOption.
type Detector struct {
	once sync.Once
	s    *state
}

// New returns an empty Detector configured by opts. A nil
// opts.NewDetector and options out of range return an error wrapping
// neardup.ErrInvalidOption.
func New(opts Options) (*Detector, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	s, err := newState(o)
	if err != nil {
		return nil, err
	}
	return &Detector{s: s}, nil
}

// get returns the detector's state. A zero Detector gets a state whose one
// cluster detector refuses every page (errZero).
func (det *Detector) get() *state {
	det.once.Do(func() {
		if det.s == nil {
			o, _ := Options{NewDetector: func(int, int) (neardup.Detector, error) { return unset{}, nil }}.resolve()
			det.s, _ = newState(o) // unset never fails
		}
	})
	return det.s
}

// errZero is the error of a zero Detector, which has no NewDetector.
var errZero = fmt.Errorf("cluster: zero Detector (make one with New and Options.NewDetector): %w", neardup.ErrInvalidOption)

// unset is the cluster detector of a zero Detector.
type unset struct{}

func (unset) Match(context.Context, *neardup.Document) ([]neardup.Match, error) { return nil, errZero }
func (unset) Add(context.Context, *neardup.Document) error                      { return errZero }

// place is where a page is kept or compared: a cluster of a generation.
// Generation 0 is the oldest.
type place struct {
	gen, cluster int
}

// generation is one fit: its model (nil before the first fit: one cluster)
// and a detector per cluster.
type generation struct {
	md    *model
	parts []neardup.Detector
}

// kept is what the Detector keeps per page besides the cluster detector's
// own record: its place, its keyword ids (to fit without the page) and,
// until the first fit, the page itself (to move it).
type kept struct {
	at  place
	ids []uint32
	doc *neardup.Document
}

type state struct {
	o       Options
	newPart func(j, expected int) (neardup.Detector, error)

	mu      sync.RWMutex
	words   vocab[string]
	gens    []*generation // at least one
	kept    map[string]*kept
	retain  bool // keep the pages' Documents: no Source and no fit yet
	fits    int
	nextFit int // the size at which the next automatic fit runs; 0: none
	lastErr error
}

func newState(o Options) (*state, error) {
	s := &state{o: o, words: newVocab[string](), kept: make(map[string]*kept), retain: o.Source == nil}
	s.newPart = func(j, expected int) (neardup.Detector, error) {
		det, err := o.NewDetector(j, expected)
		if err == nil && det == nil {
			err = fmt.Errorf("returned a nil detector: %w", neardup.ErrInvalidOption)
		}
		if err != nil {
			return nil, fmt.Errorf("cluster: Options.NewDetector(%d): %w", j, err)
		}
		return det, nil
	}
	if o.FitAt > 0 {
		s.nextFit = o.FitAt
	}
	p0, err := s.newPart(0, max(o.FitAt, 1024))
	if err != nil {
		return nil, err
	}
	s.gens = []*generation{{parts: []neardup.Detector{p0}}}
	return s, nil
}

// loc is what places a page: its keywords, or with Options.Partitioner its
// parts.
type loc struct {
	words []string
	parts []int
}

// locate checks d and returns its keywords, or its parts (each once, in
// the order Partition gave them).
func (s *state) locate(d *neardup.Document) (loc, error) {
	if err := neardup.Check(d); err != nil {
		return loc{}, fmt.Errorf("cluster: %w", err)
	}
	if s.o.Partitioner == nil {
		words, err := KeywordsOf(d, s.o.KModes.Keywords)
		return loc{words: words}, err
	}
	parts, err := s.o.Partitioner.Partition(d)
	if err != nil {
		return loc{}, fmt.Errorf("cluster: Options.Partitioner: %w", err)
	}
	if len(parts) == 0 {
		return loc{}, fmt.Errorf("cluster: Options.Partitioner gave page %s no part: %w", detector.QuoteID(d.ID), neardup.ErrNoFeatures)
	}
	var out []int
	for _, p := range parts {
		if p < 0 || p >= maxParts {
			return loc{}, fmt.Errorf("cluster: Options.Partitioner gave page %s part %d, want 0..%d: %w", detector.QuoteID(d.ID), p, maxParts-1, neardup.ErrInvalidOption)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return loc{parts: out}, nil
}

// probes returns the places a page is compared within: its parts, or its p
// nearest clusters in each generation, the latest generation first, so
// that the first place is the page's home. The caller holds s.mu.
func (s *state) probes(l loc) []place {
	if s.o.Partitioner != nil {
		out := make([]place, len(l.parts))
		for i, p := range l.parts {
			out[i] = place{0, p}
		}
		return out
	}
	it := s.words.lookupItem(l.words)
	var out []place
	for g := len(s.gens) - 1; g >= 0; g-- {
		if md := s.gens[g].md; md != nil {
			for _, j := range md.nearestP(it, s.o.KModes.Probes) {
				out = append(out, place{g, j})
			}
		} else {
			out = append(out, place{g, 0})
		}
	}
	return out
}

// done returns the context's error, prefixed "cluster: " and op, once ctx
// is done: checked before each call to a cluster detector, so that a
// cancelled call stops at the next one.
func done(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cluster: %s%w", op, err)
	}
	return nil
}

// part returns the detector at a place; nil for a part of Options.Partitioner
// that no page was kept in yet.
func (s *state) part(at place) neardup.Detector {
	if parts := s.gens[at.gen].parts; at.cluster < len(parts) {
		return parts[at.cluster]
	}
	return nil
}

// grow makes the detectors of Options.Partitioner's parts up to the one at
// (parts are dense: an empty detector costs little). The caller holds s.mu
// for writing.
func (s *state) grow(at place) error {
	g := s.gens[at.gen]
	for j := len(g.parts); j <= at.cluster; j++ {
		p, err := s.newPart(j, 0)
		if err != nil {
			return err
		}
		g.parts = append(g.parts, p)
	}
	return nil
}

// match returns d's matches in the probed places. The caller holds s.mu.
func (s *state) match(ctx context.Context, d *neardup.Document, probes []place) ([]neardup.Match, error) {
	var all []neardup.Match
	for _, at := range probes {
		part := s.part(at)
		if part == nil {
			continue
		}
		if err := done(ctx, ""); err != nil {
			return nil, err
		}
		ms, err := part.Match(ctx, d)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	if len(probes) > 1 {
		neardup.SortMatches(all)
	}
	return all, nil
}

// Match returns the kept pages that d nearly duplicates within its p most
// similar clusters (of each generation), best first (by the cluster
// detectors' Score, then ID). A page without keywords returns an error
// wrapping neardup.ErrNoFeatures.
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	s := det.get()
	l, err := s.locate(d)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.match(ctx, d, s.probes(l))
}

// Verify returns those of candidates that d nearly duplicates by the cluster
// detectors' measure, best first. Only candidates kept in the places Match
// would search are compared (the others are not matches, as Match would
// never reach them); the cluster detectors must be Verifiers.
func (det *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	s := det.get()
	l, err := s.locate(d)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	byPlace := make(map[place][]neardup.Match)
	for _, at := range s.probes(l) {
		byPlace[at] = nil
	}
	for _, c := range candidates {
		if k, ok := s.kept[c.ID]; ok {
			if group, probed := byPlace[k.at]; probed {
				byPlace[k.at] = append(group, c)
			}
		}
	}
	var all []neardup.Match
	for at, group := range byPlace {
		if len(group) == 0 {
			continue
		}
		v, ok := s.part(at).(neardup.Verifier)
		if !ok {
			return nil, fmt.Errorf("cluster: Verify: cluster detector %T is not a Verifier: %w", s.part(at), neardup.ErrInvalidOption)
		}
		if err := done(ctx, ""); err != nil {
			return nil, err
		}
		ms, err := v.Verify(ctx, d, group)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	neardup.SortMatches(all)
	return slices.CompactFunc(all, func(a, b neardup.Match) bool { return a.ID == b.ID }), nil
}

// Add keeps d in its most similar cluster of the latest generation (in the
// one detector before the first fit). An ID already kept returns an error
// wrapping neardup.ErrDuplicateID. When the repository reaches the next fit
// size, Add refits before it returns (see Refit); a refit that fails does not
// fail the Add (Stats reports it).
func (det *Detector) Add(ctx context.Context, d *neardup.Document) error {
	s := det.get()
	l, err := s.locate(d)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(ctx, d, l, s.probes(l)[0])
}

// add keeps d at home. The caller holds s.mu for writing.
func (s *state) add(ctx context.Context, d *neardup.Document, l loc, home place) error {
	if _, dup := s.kept[d.ID]; dup {
		return fmt.Errorf("cluster: Add %s: %w", detector.QuoteID(d.ID), neardup.ErrDuplicateID)
	}
	if err := s.grow(home); err != nil {
		return err
	}
	if err := done(ctx, ""); err != nil {
		return err
	}
	if err := s.part(home).Add(ctx, d); err != nil {
		return err
	}
	it := s.words.internItem(l.words)
	k := &kept{at: home, ids: it.ids}
	if s.retain {
		k.doc = d
	}
	s.kept[d.ID] = k
	if md := s.gens[home.gen].md; md != nil && s.o.Incremental {
		md.add(home.cluster, it.ids)
	}
	if s.nextFit > 0 && len(s.kept) >= s.nextFit {
		s.lastErr = s.refit(context.WithoutCancel(ctx))
		s.nextFit = 0
		if s.o.Growth > 0 {
			s.nextFit = int(math.Ceil(float64(len(s.kept)) * s.o.Growth))
		}
	}
	return nil
}

// MatchOrAdd returns d's matches within its p most similar clusters; when
// there are none it keeps d in its most similar cluster (added = true), with
// no other change in between.
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	s := det.get()
	l, err := s.locate(d)
	if err != nil {
		return nil, false, err
	}
	if err := detector.CheckID("cluster", "MatchOrAdd", d.ID); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	probes := s.probes(l)
	ms, err := s.match(ctx, d, probes)
	if err == nil && neardup.OwnPage(d.ID, ms) {
		return nil, true, nil // its own page (neardup.MatchAdder)
	}
	if err != nil || len(ms) > 0 {
		return ms, false, err
	}
	if err := s.add(ctx, d, l, probes[0]); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): in one step the page kept under d.ID is forgotten (its
// cluster detector must be a Remover), and d is kept unless it nearly
// duplicates another kept page within its p most similar clusters.
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) (matches []neardup.Match, kept bool, err error) {
	s := det.get()
	l, err := s.locate(d)
	if err != nil {
		return nil, false, err
	}
	if err := detector.CheckID("cluster", "Replace", d.ID); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.remove(ctx, d.ID); err != nil && !errors.Is(err, neardup.ErrUnknownID) {
		return nil, false, err
	}
	probes := s.probes(l)
	ms, err := s.match(ctx, d, probes)
	if err != nil || len(ms) > 0 {
		return ms, false, err
	}
	if err := s.add(ctx, d, l, probes[0]); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Remove forgets the page kept under id (its cluster detector must be a
// Remover). An ID that is not kept returns an error wrapping
// neardup.ErrUnknownID.
func (det *Detector) Remove(ctx context.Context, id string) error {
	s := det.get()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remove(ctx, id)
}

func (s *state) remove(ctx context.Context, id string) error {
	k, ok := s.kept[id]
	if !ok {
		return fmt.Errorf("cluster: Remove %q: %w", id, neardup.ErrUnknownID)
	}
	r, ok := s.part(k.at).(neardup.Remover)
	if !ok {
		return fmt.Errorf("cluster: Remove: cluster detector %T is not a Remover: %w", s.part(k.at), neardup.ErrInvalidOption)
	}
	if err := done(ctx, ""); err != nil {
		return err
	}
	if err := r.Remove(ctx, id); err != nil {
		return err
	}
	if md := s.gens[k.at.gen].md; md != nil && s.o.Incremental {
		md.remove(k.at.cluster, k.ids)
	}
	delete(s.kept, id)
	return nil
}

// Options returns the options of det with defaults filled in.
func (det *Detector) Options() Options { return det.get().o }

// Len returns the number of kept pages.
func (det *Detector) Len() int {
	s := det.get()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.kept)
}

// Refit fits KModes again (with Options.Partitioner it does nothing) on the
// keywords of every kept page (ordered by ID,
// so the result does not depend on the order pages arrived in), with k =
// min(K, the number of distinct keyword sets) clusters. When every kept page
// is at hand (kept since the start, before the first fit, or read back
// through Options.Source) each moves into a new detector of its
// cluster, and the clusters replace every generation; otherwise the fit
// starts a new generation for the pages to come (replacing the latest one
// if it keeps no page), and generations left without pages are dropped. A
// refit whose Source or cluster detectors fail leaves the Detector as it
// was. Refit of an empty Detector does nothing.
//
// A refit costs the fit (O(n·k·f) per pass), plus one Add per kept page when
// it moves them, made with ctx; the Detector is locked meanwhile. The refit
// an Add starts (Options.Growth) uses the Add's context without its
// cancellation.
func (det *Detector) Refit(ctx context.Context) error {
	s := det.get()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refit(ctx)
}

func (s *state) refit(ctx context.Context) error {
	n := len(s.kept)
	if n == 0 || s.o.Partitioner != nil {
		return nil
	}
	ids := make([]string, 0, n)
	for id := range s.kept {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	items := make([]item, n)
	move := true
	for i, id := range ids {
		k := s.kept[id]
		items[i] = item{ids: k.ids, size: len(k.ids)}
		move = move && (k.doc != nil || s.o.Source != nil)
	}
	fd := newFitData(items, s.words.len())
	k := min(s.o.KModes.K, fd.distinct())
	md := fit(fd, s.o.KModes.fitConfig(k))
	labels := md.labels
	md.labels = nil // the pages' clusters are in s.kept
	if !s.o.Incremental {
		md.dropCounts() // the modes stay as fitted
	}
	sizes := make([]int, k)
	for _, j := range labels {
		sizes[j]++
	}
	parts := make([]neardup.Detector, k)
	for j := range parts {
		expected := int(float64(sizes[j]) * max(s.o.Growth-1, 1))
		if move {
			expected = int(float64(sizes[j]) * max(s.o.Growth, 1))
		}
		p, err := s.newPart(j, expected)
		if err != nil {
			return err
		}
		parts[j] = p
	}
	if !move {
		s.newGeneration(&generation{md: md, parts: parts})
		s.fits++
		return nil
	}
	for i, id := range ids {
		d := s.kept[id].doc
		if d == nil {
			var err error
			if d, err = s.o.Source(id); err == nil && (d == nil || d.ID != id) {
				err = fmt.Errorf("returned another document: %w", neardup.ErrInvalidOption)
			}
			if err != nil {
				return fmt.Errorf("cluster: Refit: Source(%q): %w", id, err)
			}
		}
		if err := done(ctx, "Refit: "); err != nil {
			return err
		}
		if err := parts[labels[i]].Add(ctx, d); err != nil {
			return fmt.Errorf("cluster: Refit: moving %q: %w", id, err)
		}
	}
	s.gens = []*generation{{md: md, parts: parts}}
	for i, id := range ids {
		s.kept[id].at = place{0, int(labels[i])}
		s.kept[id].doc = nil
	}
	s.retain = false
	s.fits++
	return nil
}

// newGeneration appends g for the pages to come, in place of the latest
// generation when that keeps no page, and drops the generations left
// without pages. Pages are no longer retained: they stay where they are.
func (s *state) newGeneration(g *generation) {
	count := make([]int, len(s.gens))
	for _, k := range s.kept {
		count[k.at.gen]++
		k.doc = nil
	}
	s.retain = false
	renumber := make([]int, len(s.gens))
	var gens []*generation
	for i, old := range s.gens {
		renumber[i] = len(gens)
		if count[i] > 0 {
			gens = append(gens, old)
		}
	}
	for _, k := range s.kept {
		k.at.gen = renumber[k.at.gen]
	}
	if len(gens) > 0 && gens[len(gens)-1].md != nil {
		gens[len(gens)-1].md.dropCounts() // only the latest generation's modes follow new pages
	}
	s.gens = append(gens, g)
}

// Stats reports the Detector's clusters: the kept pages (Documents) and
// their number per cluster of each generation (Sizes), the fits so far, the
// latest fit's Cost, Iterations and Converged, NextFit, Retained and
// RefitErr. Labels and Modes, a KModes's, are nil.
func (det *Detector) Stats() Stats {
	s := det.get()
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := Stats{Documents: len(s.kept), Fits: s.fits, NextFit: s.nextFit, RefitErr: s.lastErr}
	for _, g := range s.gens {
		st.Sizes = append(st.Sizes, make([]int, len(g.parts)))
	}
	for _, k := range s.kept {
		st.Sizes[k.at.gen][k.at.cluster]++
		if k.doc != nil {
			st.Retained++
		}
	}
	if md := s.gens[len(s.gens)-1].md; md != nil {
		st.Cost, st.Iterations, st.Converged = md.cost, md.iters, md.converged
	}
	return st
}

// Interface checks.
var (
	_ neardup.Detector   = (*Detector)(nil)
	_ neardup.Verifier   = (*Detector)(nil)
	_ neardup.Remover    = (*Detector)(nil)
	_ neardup.MatchAdder = (*Detector)(nil)
	_ neardup.Replacer   = (*Detector)(nil)
)
