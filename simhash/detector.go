package simhash

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/neardup/neardup"
)

// DefaultMaxDistance is the threshold T_B used when Options.MaxDistance is
// zero: 8 bits, chosen on the labelled corpora en-dev and zh-dev, where
// SimHash over whole-page stems has its best F1 between 7 and 10 bits (see
// the README). Seed 000's §3.3 example uses 3 bits, as do Manku, Jain and Das
// Sarma (WWW 2007) for 64-bit fingerprints of crawled pages; with this
// package's preprocessing 3 bits finds only 66-81 % of the duplicates.
const DefaultMaxDistance = 8

// Options configures a Detector. The zero value gives the paper's defaults.
type Options struct {
	// MaxDistance is T_B: a kept page is a near-duplicate of a new page when
	// the Hamming distance b_f of their fingerprints is ≤ MaxDistance
	// (seed 000 §3.3). Valid values are 0 to 64; zero means
	// DefaultMaxDistance unless ExplicitZero is set.
	MaxDistance int
	// ExplicitZero makes a zero MaxDistance mean T_B = 0: only identical
	// fingerprints match.
	ExplicitZero bool
}

// Detector keeps the fingerprints of documents and finds the kept ones within
// T_B bits of a new document's fingerprint. It implements neardup.Detector,
// neardup.Verifier, neardup.Remover and neardup.MatchAdder.
//
// A document's fingerprint is Sum over its Page.Terms, computed once per
// Document (see Of). Match scans every kept fingerprint: about 1 ns per kept
// document. A Detector keeps 8 bytes per document plus its ID.
//
// A Detector is safe for concurrent use: Match and Verify run in parallel,
// Add, Remove and MatchOrAdd exclusively.
type Detector struct {
	maxDist int

	mu   sync.RWMutex
	ids  []string       // ids[i] is the ID of fps[i]
	fps  []Fingerprint  // kept fingerprints, dense
	slot map[string]int // ID -> index in ids and fps
}

// New returns a Detector configured by opts. A MaxDistance outside 0..64
// returns an error wrapping neardup.ErrInvalidOption.
func New(opts Options) (*Detector, error) {
	t := opts.MaxDistance
	switch {
	case t == 0 && !opts.ExplicitZero:
		t = DefaultMaxDistance
	case t < 0 || t > 64:
		return nil, fmt.Errorf("simhash: New: MaxDistance %d not in 0..64: %w", opts.MaxDistance, neardup.ErrInvalidOption)
	}
	return &Detector{maxDist: t, slot: make(map[string]int)}, nil
}

// MaxDistance returns the detector's threshold T_B in bits.
func (det *Detector) MaxDistance() int { return det.maxDist }

// Len returns the number of kept documents.
func (det *Detector) Len() int {
	det.mu.RLock()
	defer det.mu.RUnlock()
	return len(det.fps)
}

// Lookup returns the fingerprint kept for id, and whether id is kept.
func (det *Detector) Lookup(id string) (Fingerprint, bool) {
	det.mu.RLock()
	defer det.mu.RUnlock()
	i, ok := det.slot[id]
	if !ok {
		return 0, false
	}
	return det.fps[i], true
}

type featureKey struct{}

// Of returns the fingerprint of d: Sum over d.Page.Terms, computed on the
// first call and shared by every later caller and detector (neardup.Feature).
// A nil document or page returns an error wrapping neardup.ErrNilDocument; a
// page without terms, one wrapping neardup.ErrNoFeatures.
func Of(d *neardup.Document) (Fingerprint, error) {
	if err := neardup.Check(d); err != nil {
		return 0, err
	}
	return neardup.Feature(d, featureKey{}, func(d *neardup.Document) (Fingerprint, error) {
		f, err := Sum(d.Page.Terms)
		if err != nil {
			return 0, fmt.Errorf("simhash: document %q: %w", d.ID, err)
		}
		return f, nil
	})
}

// Match returns the kept documents whose fingerprints are within T_B bits of
// d's, closest first (ties by ID), with Score = the distance b_f in bits.
func (det *Detector) Match(d *neardup.Document) ([]neardup.Match, error) {
	fp, err := Of(d)
	if err != nil {
		return nil, err
	}
	det.mu.RLock()
	defer det.mu.RUnlock()
	return det.match(fp), nil
}

// match returns the sorted matches of fp. The caller holds det.mu.
func (det *Detector) match(fp Fingerprint) []neardup.Match {
	// A linear scan. It is the one place to change when the fingerprints
	// move to the permuted-table Index.
	var ms []neardup.Match
	for i, g := range det.fps {
		if dist := Distance(fp, g); dist <= det.maxDist {
			ms = append(ms, neardup.Match{ID: det.ids[i], Score: float64(dist)})
		}
	}
	sortMatches(ms)
	return ms
}

func sortMatches(ms []neardup.Match) {
	slices.SortFunc(ms, func(a, b neardup.Match) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// Verify returns the candidates whose kept fingerprints are within T_B bits
// of d's, closest first (ties by ID), scored with the distance in bits. The
// candidates' incoming scores are ignored; candidates this detector does not
// keep are dropped, since they cannot be compared.
func (det *Detector) Verify(d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	fp, err := Of(d)
	if err != nil {
		return nil, err
	}
	det.mu.RLock()
	defer det.mu.RUnlock()
	var ms []neardup.Match
	for _, c := range candidates {
		i, ok := det.slot[c.ID]
		if !ok {
			continue
		}
		if dist := Distance(fp, det.fps[i]); dist <= det.maxDist {
			ms = append(ms, neardup.Match{ID: c.ID, Score: float64(dist)})
		}
	}
	sortMatches(ms)
	return ms, nil
}

// Add keeps d's fingerprint. An ID already kept returns an error wrapping
// neardup.ErrDuplicateID.
func (det *Detector) Add(d *neardup.Document) error {
	fp, err := Of(d)
	if err != nil {
		return err
	}
	det.mu.Lock()
	defer det.mu.Unlock()
	return det.add(d.ID, fp)
}

func (det *Detector) add(id string, fp Fingerprint) error {
	if _, ok := det.slot[id]; ok {
		return fmt.Errorf("simhash: Add %q: %w", id, neardup.ErrDuplicateID)
	}
	det.slot[id] = len(det.fps)
	det.ids = append(det.ids, id)
	det.fps = append(det.fps, fp)
	return nil
}

// MatchOrAdd returns the matches of d; when there are none it keeps d, with
// no other Add in between, and reports added = true.
func (det *Detector) MatchOrAdd(d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	fp, err := Of(d)
	if err != nil {
		return nil, false, err
	}
	det.mu.Lock()
	defer det.mu.Unlock()
	if ms := det.match(fp); len(ms) > 0 {
		return ms, false, nil
	}
	if err := det.add(d.ID, fp); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Remove forgets id. An ID that is not kept returns an error wrapping
// neardup.ErrUnknownID.
func (det *Detector) Remove(id string) error {
	det.mu.Lock()
	defer det.mu.Unlock()
	i, ok := det.slot[id]
	if !ok {
		return fmt.Errorf("simhash: Remove %q: %w", id, neardup.ErrUnknownID)
	}
	last := len(det.fps) - 1
	if i != last {
		det.ids[i], det.fps[i] = det.ids[last], det.fps[last]
		det.slot[det.ids[i]] = i
	}
	det.ids[last] = ""
	det.ids, det.fps = det.ids[:last], det.fps[:last]
	delete(det.slot, id)
	return nil
}

// Interface checks.
var (
	_ neardup.Detector   = (*Detector)(nil)
	_ neardup.Verifier   = (*Detector)(nil)
	_ neardup.Remover    = (*Detector)(nil)
	_ neardup.MatchAdder = (*Detector)(nil)
)
