package simhash

import (
	"fmt"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/verify"
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
	// ExpectedSize is the number of documents the Detector expects to keep;
	// it sizes the k-bit Index (see IndexOptions.ExpectedSize). Zero means
	// DefaultExpectedSize. The index stays exact at any size; far beyond
	// ExpectedSize it gets slower.
	ExpectedSize int
	// IndexBytesPerEntry is the memory budget per document of the k-bit
	// Index (IndexOptions.MaxBytesPerEntry). Zero means
	// DefaultIndexBytesPerEntry.
	IndexBytesPerEntry int
}

// DefaultExpectedSize is the Options.ExpectedSize used when it is zero.
const DefaultExpectedSize = 1 << 16

// DefaultIndexBytesPerEntry is the Options.IndexBytesPerEntry used when it is
// zero (where no layout fits it, as for tiny ExpectedSize, the index takes its
// smallest layout): 64 bytes, which lets the index keep exact-block tables at T_B = 3 and
// fewer probes at T_B = 8 for repositories of 10^4 to 10^5 pages. Measured
// with BenchmarkDetectorMatch at 100,000 kept pages: T_B = 3 takes 0.2 µs per
// Match against 1.3 µs with a 48-byte budget, and T_B = 8 takes 5.7 µs
// against 14 µs.
const DefaultIndexBytesPerEntry = 64

// Detector keeps the fingerprints of documents and finds the kept ones within
// T_B bits of a new document's fingerprint. It implements neardup.Detector,
// neardup.Verifier, neardup.Remover and neardup.MatchAdder.
//
// A document's fingerprint is Sum over its Page.Terms, computed once per
// Document (see Of). When T_B ≤ MaxIndexDistance, Match asks a k-bit Index
// (permuted block tables, Manku et al.) for the fingerprints within T_B bits
// instead of comparing with every kept one; for larger T_B it scans (about
// 1 ns per kept document). A Detector keeps its Index entry (see
// Index.MemoryUsage), 8 bytes of fingerprint, and the document's ID with a
// map entry.
//
// A Detector is safe for concurrent use: Match and Verify run in parallel,
// Add, Remove and MatchOrAdd exclusively.
type Detector struct {
	maxDist int

	mu   sync.RWMutex
	ids  []string       // ids[i] is the ID of fps[i]
	fps  []Fingerprint  // kept fingerprints, dense
	slot map[string]int // ID -> index in ids and fps, also the entry's id in ix
	ix   *Index         // nil when maxDist > MaxIndexDistance
	hits []Hit          // scratch for ix.Query, used under the write lock only
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
	n := opts.ExpectedSize
	switch {
	case n == 0:
		n = DefaultExpectedSize
	case n < 0:
		return nil, fmt.Errorf("simhash: New: ExpectedSize %d is negative: %w", opts.ExpectedSize, neardup.ErrInvalidOption)
	}
	budget := opts.IndexBytesPerEntry
	switch {
	case budget == 0:
		budget = DefaultIndexBytesPerEntry
	case budget < 0:
		return nil, fmt.Errorf("simhash: New: IndexBytesPerEntry %d is negative: %w", opts.IndexBytesPerEntry, neardup.ErrInvalidOption)
	}
	det := &Detector{maxDist: t, slot: make(map[string]int)}
	if t <= MaxIndexDistance {
		io := IndexOptions{MaxDistance: max(t, 1), ExpectedSize: n, MaxBytesPerEntry: budget}
		ix, err := NewIndex(io)
		if err != nil && opts.IndexBytesPerEntry == 0 {
			// The default budget is a preference: small repositories
			// (whose directories cost more per entry) take the smallest
			// layout instead.
			io.MaxBytesPerEntry = 0
			ix, err = NewIndex(io)
		}
		if err != nil {
			return nil, fmt.Errorf("simhash: New: %w", err)
		}
		det.ix = ix
	}
	return det, nil
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
	ms, _ := det.match(fp, nil)
	return ms, nil
}

// match returns the sorted matches of fp. The caller holds det.mu; hits is
// scratch space for the index query.
func (det *Detector) match(fp Fingerprint, hits []Hit) ([]neardup.Match, []Hit) {
	var ms []neardup.Match
	if det.ix == nil {
		for i, g := range det.fps {
			if dist := Distance(fp, g); dist <= det.maxDist {
				ms = append(ms, neardup.Match{ID: det.ids[i], Score: float64(dist)})
			}
		}
	} else {
		hits, _ = det.ix.Query(fp, det.maxDist, hits[:0]) // k is within the index's range by construction
		for _, h := range hits {
			ms = append(ms, neardup.Match{ID: det.ids[h.ID], Score: float64(h.Distance)})
		}
	}
	neardup.SortMatches(ms)
	return ms, hits
}

// Verify returns the candidates whose kept fingerprints are within T_B bits
// of d's, closest first (ties by ID), scored with the distance in bits. The
// candidates' incoming scores are ignored; candidates this detector does not
// keep are dropped, since they cannot be compared, and a repeated candidate
// is reported once.
func (det *Detector) Verify(d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	fp, err := Of(d)
	if err != nil {
		return nil, err
	}
	det.mu.RLock()
	defer det.mu.RUnlock()
	return verify.Candidates(candidates, func(id string) (float64, bool) {
		i, ok := det.slot[id]
		if !ok {
			return 0, false
		}
		dist := Distance(fp, det.fps[i])
		return float64(dist), dist <= det.maxDist
	}), nil
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
	i := len(det.fps)
	if det.ix != nil {
		if err := det.ix.Add(uint64(i), fp); err != nil {
			return fmt.Errorf("simhash: Add %q: %w", id, err)
		}
	}
	det.slot[id] = i
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
	var ms []neardup.Match
	if ms, det.hits = det.match(fp, det.hits); len(ms) > 0 {
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
	if det.ix != nil {
		// Index ids are positions: the last entry moves into the hole.
		if err := det.ix.Remove(uint64(last)); err != nil {
			return fmt.Errorf("simhash: Remove %q: %w", id, err)
		}
		if i != last {
			if err := det.ix.Remove(uint64(i)); err != nil {
				return fmt.Errorf("simhash: Remove %q: %w", id, err)
			}
			if err := det.ix.Add(uint64(i), det.fps[last]); err != nil {
				return fmt.Errorf("simhash: Remove %q: %w", id, err)
			}
		}
	}
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
