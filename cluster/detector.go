package cluster

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// DefaultFitAt is the repository size at which a Detector first clusters
// its kept pages, when DetectorOptions.FitAt is zero: 256. Below that one
// detector answers in microseconds anyway, and fits at 128 or 256 pages do
// as well on the labelled corpora (package documentation, "Defaults").
const DefaultFitAt = 256

// DefaultGrowth is DetectorOptions.Growth when it is zero: the Detector
// refits when the repository has doubled since the last fit, so each kept
// page is re-added to a new cluster a bounded number of times on average
// (less than twice, over any run of growth).
const DefaultGrowth = 2.0

// DetectorOptions configures a Detector. The zero value gives the defaults:
// KModes at its defaults, the seed-000 cascade in each cluster, the first fit
// at DefaultFitAt pages and a refit at every doubling.
type DetectorOptions struct {
	// KModes configures the clustering: K, Keywords (f), Similarity,
	// Init, NInit, Seed, MaxIter, and Probes (p), the number of clusters a
	// new page is compared within.
	KModes Options
	// New returns the empty detector a cluster keeps. nil means the cascade
	// of Kumar and Govindarajulu with this module's defaults:
	// neardup.NewCascade(sentence count, SimHash). New is called again
	// for every cluster at every refit (and for cluster 0 before the first
	// fit), and must return detectors that are Removers (for Remove and
	// Replace), Verifiers (for Verify) and Persisters (for snapshots) when
	// those are used.
	New func(cluster int) (neardup.Detector, error)
	// FitAt is the number of kept pages at which the Detector first fits
	// KModes on them and moves each into its cluster; until then every page
	// is kept in one detector (cluster 0). Zero means DefaultFitAt; negative
	// means never automatically (call Refit).
	FitAt int
	// Growth makes the Detector refit when the number of kept pages reaches
	// Growth times the number at the last fit. It must be above 1; zero
	// means DefaultGrowth; negative means no automatic refit after the
	// first fit.
	Growth float64
	// Incremental folds each page kept after a fit into its cluster's mode
	// (online k-modes) instead of keeping the fitted modes until the next
	// refit. The modes then follow new topics, but a kept page's cluster
	// may stop being the one its keywords are assigned to, so that a
	// near-duplicate of it with the same keywords is sent elsewhere (see the
	// package documentation for the measured cost).
	Incremental bool
	// Source returns a kept page by its ID, for refits: moving a page into
	// its new cluster means adding it to that cluster's detector again. When
	// Source is nil the Detector keeps every page it keeps (the *Document:
	// its raw bytes and preprocessed Page) until it is removed; with Source,
	// it keeps none. Pages loaded from a snapshot are not there either: a
	// refit of a loaded Detector needs Source (or fails with ErrNoSource).
	Source func(id string) (*neardup.Document, error)
}

// resolve fills in defaults and validates o.
func (o DetectorOptions) resolve() (DetectorOptions, error) {
	km, err := o.KModes.resolve()
	if err != nil {
		return o, err
	}
	o.KModes = km
	if o.FitAt == 0 {
		o.FitAt = DefaultFitAt
	}
	switch {
	case o.Growth == 0:
		o.Growth = DefaultGrowth
	case math.IsNaN(o.Growth) || o.Growth > 0 && o.Growth <= 1:
		return o, fmt.Errorf("cluster: DetectorOptions.Growth %v: want above 1, or negative for no refit: %w", o.Growth, neardup.ErrInvalidOption)
	}
	return o, nil
}

// Detector is the clustered detector of Kumar and Govindarajulu (§4): the
// kept pages are split into k clusters by KModes over their top keywords,
// each cluster keeps its own detector (by default the sentence-count →
// SimHash cascade), and a new page is compared only within its p most similar
// clusters; when it is kept, it is kept in the most similar one. As the
// repository grows the Detector refits: it clusters every kept page again
// and moves each into its new cluster's detector, so no kept page is lost.
//
// Scores and Measures are those of the cluster detectors (simhash-bits for
// the default cascade). A Detector implements neardup.Detector, Verifier,
// Remover, MatchAdder, Replacer and Persister (the last four when its
// cluster detectors do).
//
// A Detector is safe for concurrent use: Match and Verify run in parallel;
// Add, MatchOrAdd, Replace, Remove and Refit exclusively (an automatic refit
// runs inside the Add that triggers it). The zero Detector is ready to use
// with the default DetectorOptions.
type Detector struct {
	once sync.Once
	s    *state
}

// NewDetector returns an empty Detector configured by opts. Options out of
// range return an error wrapping neardup.ErrInvalidOption.
func NewDetector(opts DetectorOptions) (*Detector, error) {
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

// get returns the detector's state, made with the default options for a zero
// Detector.
func (det *Detector) get() *state {
	det.once.Do(func() {
		if det.s == nil {
			o, _ := DetectorOptions{}.resolve() // the defaults are valid
			det.s, _ = newState(o)              // the default cascade is valid
		}
	})
	return det.s
}

// kept is what the Detector keeps per page besides the cluster detector's
// own record: its cluster, its keyword ids (to refit without the page) and,
// unless a Source is given, the page itself (to move it).
type kept struct {
	part int
	ids  []uint32
	doc  *neardup.Document
}

type state struct {
	o       DetectorOptions
	newPart func(j, expected int) (neardup.Detector, error)

	mu      sync.RWMutex
	words   vocab[string]
	md      *model // nil until the first fit
	parts   []neardup.Detector
	kept    map[string]*kept
	fits    int
	nextFit int // the size at which the next automatic fit runs; 0: none
	lastErr error
}

func newState(o DetectorOptions) (*state, error) {
	s := &state{o: o, words: newVocab[string](), kept: make(map[string]*kept)}
	s.newPart = func(j, expected int) (neardup.Detector, error) {
		if o.New != nil {
			det, err := o.New(j)
			if err == nil && det == nil {
				err = fmt.Errorf("returned a nil detector: %w", neardup.ErrInvalidOption)
			}
			if err != nil {
				return nil, fmt.Errorf("cluster: DetectorOptions.New(%d): %w", j, err)
			}
			return det, nil
		}
		return newCascade(expected)
	}
	if o.FitAt > 0 {
		s.nextFit = o.FitAt
	}
	p0, err := s.newPart(0, max(o.FitAt, 1024))
	if err != nil {
		return nil, err
	}
	s.parts = []neardup.Detector{p0}
	return s, nil
}

// newCascade returns the seed-000 cascade with this module's defaults, its
// SimHash index sized for expected pages.
func newCascade(expected int) (neardup.Detector, error) {
	bySentences, err := sentence.New(sentence.Options{})
	if err != nil {
		return nil, err
	}
	byPrint, err := simhash.New(simhash.Options{ExpectedSize: max(expected, 1024)})
	if err != nil {
		return nil, err
	}
	return neardup.NewCascade(bySentences, byPrint)
}

// keywords checks d and returns its keywords.
func (s *state) keywords(d *neardup.Document) ([]string, error) {
	if err := neardup.Check(d); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return Keywords(d, s.o.KModes.Keywords)
}

// probes returns the clusters a page with these keywords is compared within,
// its home first. The caller holds s.mu.
func (s *state) probes(words []string) []int {
	if s.md == nil {
		return []int{0}
	}
	return s.md.nearestP(s.words.lookupItem(words), s.o.KModes.Probes)
}

// match returns d's matches in its probed clusters. The caller holds s.mu.
func (s *state) match(d *neardup.Document, probes []int) ([]neardup.Match, error) {
	var all []neardup.Match
	for _, j := range probes {
		ms, err := s.parts[j].Match(d)
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
// similar clusters, best first (by the cluster detectors' Score, then ID).
// A page without keywords returns an error wrapping neardup.ErrNoFeatures.
func (det *Detector) Match(d *neardup.Document) ([]neardup.Match, error) {
	s := det.get()
	words, err := s.keywords(d)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.match(d, s.probes(words))
}

// Verify returns those of candidates that d nearly duplicates by the cluster
// detectors' measure, best first. Only candidates kept in d's p most similar
// clusters are compared (the others are not matches, as Match would never
// reach them); the cluster detectors must be Verifiers.
func (det *Detector) Verify(d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	s := det.get()
	words, err := s.keywords(d)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	byPart := make(map[int][]neardup.Match)
	for _, j := range s.probes(words) {
		byPart[j] = nil
	}
	for _, c := range candidates {
		if k, ok := s.kept[c.ID]; ok {
			if group, probed := byPart[k.part]; probed {
				byPart[k.part] = append(group, c)
			}
		}
	}
	var all []neardup.Match
	for j, group := range byPart {
		if len(group) == 0 {
			continue
		}
		v, ok := s.parts[j].(neardup.Verifier)
		if !ok {
			return nil, fmt.Errorf("cluster: Verify: cluster detector %T is not a Verifier: %w", s.parts[j], neardup.ErrInvalidOption)
		}
		ms, err := v.Verify(d, group)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	neardup.SortMatches(all)
	return slices.CompactFunc(all, func(a, b neardup.Match) bool { return a.ID == b.ID }), nil
}

// Add keeps d in its most similar cluster (in cluster 0 before the first
// fit). An ID already kept returns an error wrapping neardup.ErrDuplicateID.
// When the repository reaches the next fit size, Add refits before it
// returns (see Refit); a refit that fails does not fail the Add (Stats
// reports it).
func (det *Detector) Add(d *neardup.Document) error {
	s := det.get()
	words, err := s.keywords(d)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(d, words, s.probes(words)[0])
}

// add keeps d in cluster j. The caller holds s.mu for writing.
func (s *state) add(d *neardup.Document, words []string, j int) error {
	if _, dup := s.kept[d.ID]; dup {
		return fmt.Errorf("cluster: Add %q: %w", d.ID, neardup.ErrDuplicateID)
	}
	if err := s.parts[j].Add(d); err != nil {
		return err
	}
	it := s.words.internItem(words)
	k := &kept{part: j, ids: it.ids}
	if s.o.Source == nil {
		k.doc = d
	}
	s.kept[d.ID] = k
	if s.md != nil && s.o.Incremental {
		s.md.add(j, it.ids)
	}
	if s.nextFit > 0 && len(s.kept) >= s.nextFit {
		s.lastErr = s.refit()
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
func (det *Detector) MatchOrAdd(d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	s := det.get()
	words, err := s.keywords(d)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	probes := s.probes(words)
	ms, err := s.match(d, probes)
	if err != nil || len(ms) > 0 {
		return ms, false, err
	}
	if err := s.add(d, words, probes[0]); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): in one step the page kept under d.ID is forgotten (its
// cluster detector must be a Remover), and d is kept unless it nearly
// duplicates another kept page within its p most similar clusters.
func (det *Detector) Replace(d *neardup.Document) (matches []neardup.Match, kept bool, err error) {
	s := det.get()
	words, err := s.keywords(d)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.remove(d.ID); err != nil && !errors.Is(err, neardup.ErrUnknownID) {
		return nil, false, err
	}
	probes := s.probes(words)
	ms, err := s.match(d, probes)
	if err != nil || len(ms) > 0 {
		return ms, false, err
	}
	if err := s.add(d, words, probes[0]); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Remove forgets the page kept under id (its cluster detector must be a
// Remover). An ID that is not kept returns an error wrapping
// neardup.ErrUnknownID.
func (det *Detector) Remove(id string) error {
	s := det.get()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remove(id)
}

func (s *state) remove(id string) error {
	k, ok := s.kept[id]
	if !ok {
		return fmt.Errorf("cluster: Remove %q: %w", id, neardup.ErrUnknownID)
	}
	r, ok := s.parts[k.part].(neardup.Remover)
	if !ok {
		return fmt.Errorf("cluster: Remove: cluster detector %T is not a Remover: %w", s.parts[k.part], neardup.ErrInvalidOption)
	}
	if err := r.Remove(id); err != nil {
		return err
	}
	if s.md != nil && s.o.Incremental {
		s.md.remove(k.part, k.ids)
	}
	delete(s.kept, id)
	return nil
}

// Len returns the number of kept pages.
func (det *Detector) Len() int {
	s := det.get()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.kept)
}

// Home returns the cluster the page kept under id is in, and whether id is
// kept.
func (det *Detector) Home(id string) (cluster int, ok bool) {
	s := det.get()
	s.mu.RLock()
	defer s.mu.RUnlock()
	k, ok := s.kept[id]
	if !ok {
		return 0, false
	}
	return k.part, true
}

// Probes returns the clusters d would be compared within, its home first
// ([0] before the first fit).
func (det *Detector) Probes(d *neardup.Document) ([]int, error) {
	s := det.get()
	words, err := s.keywords(d)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.probes(words), nil
}

// Refit clusters every kept page again (KModes on their keywords, ordered by
// ID, so the result does not depend on the order pages arrived in) and moves
// each into a new detector of its cluster: with k = min(K, the number of
// distinct keyword sets) clusters, each kept page is added to its cluster's
// new detector, and the new detectors replace the old ones at once. A
// refit that cannot find a kept page (ErrNoSource, or Source's error) or
// whose Adds fail leaves the Detector as it was. Refit of an empty Detector
// does nothing.
//
// A refit costs the fit (O(n·k·f) per pass) plus one Add per kept page; the
// Detector is locked meanwhile.
func (det *Detector) Refit() error {
	s := det.get()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refit()
}

func (s *state) refit() error {
	n := len(s.kept)
	if n == 0 {
		return nil
	}
	ids := make([]string, 0, n)
	for id := range s.kept {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	items := make([]item, n)
	docs := make([]*neardup.Document, n)
	for i, id := range ids {
		k := s.kept[id]
		items[i] = item{ids: k.ids, size: len(k.ids)}
		docs[i] = k.doc
		if docs[i] != nil {
			continue
		}
		if s.o.Source == nil {
			return fmt.Errorf("cluster: Refit: page %q: %w", id, ErrNoSource)
		}
		d, err := s.o.Source(id)
		if err == nil && (d == nil || d.ID != id) {
			err = fmt.Errorf("returned another document: %w", neardup.ErrInvalidOption)
		}
		if err != nil {
			return fmt.Errorf("cluster: Refit: Source(%q): %w", id, err)
		}
		docs[i] = d
	}
	fd := newFitData(items, s.words.len())
	k := min(s.o.KModes.K, fd.distinct())
	md := fit(fd, s.o.KModes.fitConfig(k))
	sizes := make([]int, k)
	for _, j := range md.labels {
		sizes[j]++
	}
	parts := make([]neardup.Detector, k)
	for j := range parts {
		p, err := s.newPart(j, int(float64(sizes[j])*max(s.o.Growth, 1)))
		if err != nil {
			return err
		}
		parts[j] = p
	}
	for i, d := range docs {
		if err := parts[md.labels[i]].Add(d); err != nil {
			return fmt.Errorf("cluster: Refit: moving %q: %w", ids[i], err)
		}
	}
	for i, id := range ids {
		s.kept[id].part = int(md.labels[i])
	}
	md.labels = nil // the pages' clusters are in s.kept
	s.md, s.parts = md, parts
	s.fits++
	return nil
}

// Stats describes a Detector's clusters.
type Stats struct {
	// Documents is the number of kept pages.
	Documents int
	// Fits is the number of fits so far (automatic and Refit).
	Fits int
	// Sizes is the number of kept pages in each cluster (one entry before
	// the first fit).
	Sizes []int
	// Cost, Iterations and Converged report the last fit (see KModes).
	Cost       float64
	Iterations int
	Converged  bool
	// NextFit is the number of kept pages at which the next automatic fit
	// runs (0: none).
	NextFit int
	// Retained is the number of kept pages the Detector holds for refits.
	Retained int
	// RefitErr is the error of the last automatic refit, nil when it
	// succeeded (the Detector then keeps its clusters until the next one).
	RefitErr error
}

// Stats returns the Detector's statistics.
func (det *Detector) Stats() Stats {
	s := det.get()
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := Stats{Documents: len(s.kept), Fits: s.fits, Sizes: make([]int, len(s.parts)), NextFit: s.nextFit, RefitErr: s.lastErr}
	for _, k := range s.kept {
		st.Sizes[k.part]++
		if k.doc != nil {
			st.Retained++
		}
	}
	if s.md != nil {
		st.Cost, st.Iterations, st.Converged = s.md.cost, s.md.iters, s.md.converged
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
