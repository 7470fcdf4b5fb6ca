package sentence

import (
	"fmt"
	"slices"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/verify"
)

// DefaultThreshold is T_s when Options.Threshold is zero: 24 sentences,
// chosen on the labelled corpora en-dev and zh-dev (the cascade with
// T_B = 8 has its best F1 there; see the README). Seed 000's worked example
// uses T_s = 1 (Table 4) but does not print the value behind its evaluation.
// Whole pages in site templates vary by many "sentences" (navigation lines,
// footers), which a small T_s turns into missed duplicates.
const DefaultThreshold = 24

// Options configures a Detector. The zero value gives the paper's default.
type Options struct {
	// Threshold is T_s: a kept page d is a candidate for a new page k when
	// |S_d − S_k| ≤ Threshold. Zero means DefaultThreshold unless
	// ExplicitZero is set; negative values are invalid.
	Threshold int
	// ExplicitZero makes a zero Threshold mean T_s = 0: only pages with
	// exactly the same number of sentences are candidates.
	ExplicitZero bool
	// Relative, when positive, widens the tolerance for long pages beyond
	// the paper: a kept page d is a candidate for a new page k when
	// |S_d − S_k| ≤ max(T_s, ⌊Relative·S_k⌋). A new site template adds
	// or removes navigation "sentences" roughly in proportion to nothing,
	// but edits and older versions of long pages change their counts in
	// proportion to their length. Zero keeps the paper's absolute rule;
	// negative or above 1 is invalid.
	Relative float64
}

type featureKey struct{}

// Count returns S, the number of sentences of d's page
// (len(d.Page.Sentences)), computed once per Document through
// neardup.Feature. A nil document or page returns an error wrapping
// neardup.ErrNilDocument; a page with no sentence, one wrapping
// neardup.ErrNoFeatures.
func Count(d *neardup.Document) (int, error) {
	if err := neardup.Check(d); err != nil {
		return 0, err
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
// whose count is within T_s of a new document's. It implements
// neardup.Detector, neardup.Verifier, neardup.Remover and neardup.MatchAdder.
// Scores are |S_d − S_k| in sentences; lower is closer.
//
// A Detector is safe for concurrent use: Match and Verify run in parallel,
// Add, Remove and MatchOrAdd exclusively.
type Detector struct {
	threshold int
	relative  float64

	mu      sync.RWMutex
	count   map[string]int              // ID -> S
	byCount map[int]map[string]struct{} // S -> IDs with that count
	counts  []int                       // distinct counts in byCount, ascending
}

// New returns a Detector configured by opts. A negative Threshold returns an
// error wrapping neardup.ErrInvalidOption.
func New(opts Options) (*Detector, error) {
	t := opts.Threshold
	switch {
	case t == 0 && !opts.ExplicitZero:
		t = DefaultThreshold
	case t < 0:
		return nil, fmt.Errorf("sentence: New: Threshold %d is negative: %w", opts.Threshold, neardup.ErrInvalidOption)
	}
	if !(opts.Relative >= 0 && opts.Relative <= 1) { // also rejects NaN
		return nil, fmt.Errorf("sentence: New: Relative %v outside [0, 1]: %w", opts.Relative, neardup.ErrInvalidOption)
	}
	return &Detector{
		threshold: t,
		relative:  opts.Relative,
		count:     make(map[string]int),
		byCount:   make(map[int]map[string]struct{}),
	}, nil
}

// Threshold returns the detector's T_s in sentences.
func (det *Detector) Threshold() int { return det.threshold }

// Tolerance returns the largest sentence-count difference accepted for a new
// page with s sentences: max(T_s, ⌊Relative·s⌋).
func (det *Detector) Tolerance(s int) int {
	return max(det.threshold, int(det.relative*float64(s)))
}

// Len returns the number of kept documents.
func (det *Detector) Len() int {
	det.mu.RLock()
	defer det.mu.RUnlock()
	return len(det.count)
}

// Lookup returns the sentence count kept for id, and whether id is kept.
func (det *Detector) Lookup(id string) (int, bool) {
	det.mu.RLock()
	defer det.mu.RUnlock()
	s, ok := det.count[id]
	return s, ok
}

// Match returns the kept documents with |S_d − S_k| ≤ Tolerance(S_k), closest first
// (ties by ID), with Score = |S_d − S_k|.
func (det *Detector) Match(d *neardup.Document) ([]neardup.Match, error) {
	s, err := Count(d)
	if err != nil {
		return nil, err
	}
	det.mu.RLock()
	defer det.mu.RUnlock()
	return det.match(s), nil
}

// match answers the range query [s − T_s, s + T_s] from the sorted counts.
// The caller holds det.mu.
func (det *Detector) match(s int) []neardup.Match {
	t := det.Tolerance(s)
	lo, hi := s-t, s+t
	i, _ := slices.BinarySearch(det.counts, lo)
	var ms []neardup.Match
	for ; i < len(det.counts) && det.counts[i] <= hi; i++ {
		c := det.counts[i]
		score := float64(abs(c - s))
		for id := range det.byCount[c] {
			ms = append(ms, neardup.Match{ID: id, Score: score})
		}
	}
	neardup.SortMatches(ms)
	return ms
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Verify returns the candidates whose kept sentence counts are within T_s of
// d's, closest first (ties by ID), scored with |S_d − S_k|. The candidates'
// incoming scores are ignored; candidates this detector does not keep are
// dropped, since they cannot be compared, and a repeated candidate is
// reported once.
func (det *Detector) Verify(d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	s, err := Count(d)
	if err != nil {
		return nil, err
	}
	det.mu.RLock()
	defer det.mu.RUnlock()
	return verify.Candidates(candidates, func(id string) (float64, bool) {
		sd, ok := det.count[id]
		delta := abs(sd - s)
		return float64(delta), ok && delta <= det.Tolerance(s)
	}), nil
}

// Add keeps d's sentence count. An ID already kept returns an error wrapping
// neardup.ErrDuplicateID.
func (det *Detector) Add(d *neardup.Document) error {
	s, err := Count(d)
	if err != nil {
		return err
	}
	det.mu.Lock()
	defer det.mu.Unlock()
	return det.add(d.ID, s)
}

func (det *Detector) add(id string, s int) error {
	if _, ok := det.count[id]; ok {
		return fmt.Errorf("sentence: Add %q: %w", id, neardup.ErrDuplicateID)
	}
	det.count[id] = s
	ids, ok := det.byCount[s]
	if !ok {
		ids = make(map[string]struct{})
		det.byCount[s] = ids
		i, _ := slices.BinarySearch(det.counts, s)
		det.counts = slices.Insert(det.counts, i, s)
	}
	ids[id] = struct{}{}
	return nil
}

// MatchOrAdd returns the matches of d; when there are none it keeps d, with
// no other Add in between, and reports added = true.
func (det *Detector) MatchOrAdd(d *neardup.Document) (matches []neardup.Match, added bool, err error) {
	s, err := Count(d)
	if err != nil {
		return nil, false, err
	}
	det.mu.Lock()
	defer det.mu.Unlock()
	if ms := det.match(s); len(ms) > 0 {
		return ms, false, nil
	}
	if err := det.add(d.ID, s); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Remove forgets id. An ID that is not kept returns an error wrapping
// neardup.ErrUnknownID.
func (det *Detector) Remove(id string) error {
	det.mu.Lock()
	defer det.mu.Unlock()
	s, ok := det.count[id]
	if !ok {
		return fmt.Errorf("sentence: Remove %q: %w", id, neardup.ErrUnknownID)
	}
	delete(det.count, id)
	ids := det.byCount[s]
	delete(ids, id)
	if len(ids) == 0 {
		delete(det.byCount, s)
		if i, found := slices.BinarySearch(det.counts, s); found {
			det.counts = slices.Delete(det.counts, i, i+1)
		}
	}
	return nil
}

// Interface checks.
var (
	_ neardup.Detector   = (*Detector)(nil)
	_ neardup.Verifier   = (*Detector)(nil)
	_ neardup.Remover    = (*Detector)(nil)
	_ neardup.MatchAdder = (*Detector)(nil)
)
