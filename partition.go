package neardup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/neardup/neardup/internal/docid"
	"github.com/neardup/neardup/internal/snapshot"
)

// Partitioner sends a document to the parts of the repository it should be
// compared within (cluster.KModes, ssm's domain x size buckets). The first part
// is the document's home, where Add keeps it; further parts are only probed by
// Match (for example the second-nearest cluster, or a neighbouring size bucket),
// trading speed for recall.
type Partitioner interface {
	Partition(d *Document) ([]int, error)
}

// Partitioned is a Detector that keeps one detector per part of a Partitioner,
// so a new document is compared only within its parts. Detectors for parts are
// created on first use by the function given to NewPartitioned. It is safe for
// concurrent use when the part detectors are: Add, MatchOrAdd, Remove and
// Replace are serialised with each other, and Match runs concurrently with
// them.
//
// A Partitioned must be made with NewPartitioned: the methods of the zero
// Partitioned return an error wrapping ErrInvalidOption.
type Partitioned struct {
	p     Partitioner
	newFn func(part int) (Detector, error)

	mu    sync.RWMutex
	parts map[int]Detector
	home  map[string]int // kept ID -> home part, for Remove
	addMu sync.Mutex     // serialises the changes: Add, MatchOrAdd, Remove, Replace
}

// NewPartitioned returns a Detector that partitions with p and keeps a detector
// made by newDetector in each part.
func NewPartitioned(p Partitioner, newDetector func(part int) (Detector, error)) (*Partitioned, error) {
	if p == nil || newDetector == nil {
		return nil, errorf("neardup: NewPartitioned: nil Partitioner or constructor: %w", ErrInvalidOption)
	}
	return &Partitioned{p: p, newFn: newDetector, parts: make(map[int]Detector), home: make(map[string]int)}, nil
}

func (pd *Partitioned) part(i int, create bool) (Detector, error) {
	pd.mu.RLock()
	det := pd.parts[i]
	pd.mu.RUnlock()
	if det != nil || !create {
		return det, nil
	}
	pd.mu.Lock()
	defer pd.mu.Unlock()
	if det = pd.parts[i]; det != nil {
		return det, nil
	}
	det, err := pd.newFn(i)
	if err != nil {
		return nil, errorf("neardup: part %d: %w", i, err)
	}
	if det == nil {
		return nil, errorf("neardup: part %d: constructor returned nil: %w", i, ErrInvalidOption)
	}
	pd.parts[i] = det
	return det, nil
}

// errNoPartitioner is returned by the methods of a Partitioned not made by
// NewPartitioned.
var errNoPartitioner = errorf("neardup: Partitioned has no Partitioner (make it with NewPartitioned): %w", ErrInvalidOption)

func (pd *Partitioned) partition(d *Document) ([]int, error) {
	if pd.p == nil {
		return nil, errNoPartitioner
	}
	parts, err := pd.p.Partition(d)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, errorf("neardup: document %s: partitioner returned no part: %w", docid.Quote(d.ID), ErrNoFeatures)
	}
	return parts, nil
}

// Match returns the matches of d in each of its parts, best first (lowest
// Score first, then by ID).
func (pd *Partitioned) Match(ctx context.Context, d *Document) ([]Match, error) {
	return pd.match(ctx, d)
}

func (pd *Partitioned) match(ctx context.Context, d *Document) ([]Match, error) {
	if err := Check(d); err != nil {
		return nil, err
	}
	parts, err := pd.partition(d)
	if err != nil {
		return nil, err
	}
	var all []Match
	for _, i := range parts {
		det, _ := pd.part(i, false)
		if det == nil {
			continue
		}
		ms, err := matchWith(ctx, det, d)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	SortMatches(all)
	return all, nil
}

// Add keeps d in its home part (the first part the Partitioner returns).
func (pd *Partitioned) Add(ctx context.Context, d *Document) error {
	pd.addMu.Lock()
	defer pd.addMu.Unlock()
	return pd.add(ctx, d)
}

func (pd *Partitioned) add(ctx context.Context, d *Document) error {
	if err := Check(d); err != nil {
		return err
	}
	parts, err := pd.partition(d)
	if err != nil {
		return err
	}
	pd.mu.RLock()
	_, dup := pd.home[d.ID]
	pd.mu.RUnlock()
	if dup {
		return errorf("neardup: document %s: %w", docid.Quote(d.ID), ErrDuplicateID)
	}
	det, err := pd.part(parts[0], true)
	if err != nil {
		return err
	}
	if err := addWith(ctx, det, d); err != nil {
		return err
	}
	pd.mu.Lock()
	pd.home[d.ID] = parts[0]
	pd.mu.Unlock()
	return nil
}

// MatchOrAdd is the atomic "add if new" of MatchAdder: Add and MatchOrAdd
// calls are serialised with each other; Match runs concurrently.
func (pd *Partitioned) MatchOrAdd(ctx context.Context, d *Document) ([]Match, bool, error) {
	pd.addMu.Lock()
	defer pd.addMu.Unlock()
	return pd.matchOrAdd(ctx, d)
}

// matchOrAdd is MatchOrAdd under pd.addMu.
func (pd *Partitioned) matchOrAdd(ctx context.Context, d *Document) ([]Match, bool, error) {
	if err := checkDoc("Partitioned.MatchOrAdd", d); err != nil {
		return nil, false, err
	}
	ms, err := pd.match(ctx, d)
	if err == nil && OwnPage(d.ID, ms) {
		return nil, true, nil // its own page: see MatchAdder
	}
	if err != nil || len(ms) > 0 {
		return ms, false, err
	}
	if err := pd.add(ctx, d); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Remove forgets id in its home part, whose detector must be a Remover. It is
// serialised with Add, MatchOrAdd and Replace (Match runs concurrently), so it
// happens wholly before or wholly after each of them.
func (pd *Partitioned) Remove(ctx context.Context, id string) error {
	return pd.lockedRemove(ctx, id)
}

func (pd *Partitioned) lockedRemove(ctx context.Context, id string) error {
	if pd.p == nil {
		return errNoPartitioner
	}
	pd.addMu.Lock()
	defer pd.addMu.Unlock()
	return pd.remove(ctx, id)
}

// remove is Remove under pd.addMu.
func (pd *Partitioned) remove(ctx context.Context, id string) error {
	pd.mu.Lock()
	defer pd.mu.Unlock()
	i, ok := pd.home[id]
	if !ok {
		return errorf("neardup: document %s: %w", docid.Quote(id), ErrUnknownID)
	}
	r, ok := pd.parts[i].(Remover)
	if !ok {
		return errorf("neardup: part %d detector %T cannot remove: %w", i, pd.parts[i], ErrInvalidOption)
	}
	if err := removeWith(ctx, r, id); err != nil {
		return err
	}
	delete(pd.home, id)
	return nil
}

// SortMatches orders ms best first for methods whose Score is a distance:
// ascending Score, then ascending ID, so results are deterministic.
func SortMatches(ms []Match) {
	slices.SortFunc(ms, func(a, b Match) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// WriteTo writes a snapshot of every part to w: the Partitioner's own state
// first when it implements Persister (a fitted clustering, say), then each
// part's number, the IDs whose home it is, and its detector's snapshot (the
// part detectors must implement Persister).
func (pd *Partitioned) WriteTo(w io.Writer) (int64, error) {
	if pd.p == nil {
		return 0, errNoPartitioner
	}
	pd.addMu.Lock() // no change between the parts' snapshots
	defer pd.addMu.Unlock()
	pd.mu.RLock()
	parts := slices.Sorted(maps.Keys(pd.parts))
	ids := make(map[int][]string, len(parts))
	for id, part := range pd.home {
		ids[part] = append(ids[part], id)
	}
	dets := make([]Persister, len(parts))
	for i, part := range parts {
		p, err := persisterOf(fmt.Sprintf("Partitioned part %d", part), pd.parts[part])
		if err != nil {
			pd.mu.RUnlock()
			return 0, err
		}
		dets[i] = p
		slices.Sort(ids[part])
	}
	pd.mu.RUnlock()

	sw := snapshot.NewWriter(w, "neardup.Partitioned", pd.params())
	if pp, ok := pd.p.(Persister); ok {
		if _, err := pp.WriteTo(sw.Nested()); err != nil {
			return 0, err
		}
	}
	sw.Uvarint(uint64(len(parts)))
	for i, part := range parts {
		sw.Varint(int64(part))
		sw.Uvarint(uint64(len(ids[part])))
		for _, id := range ids[part] {
			sw.Text(id)
		}
		if _, err := dets[i].WriteTo(sw.Nested()); err != nil {
			return 0, err
		}
	}
	return sw.Close()
}

// ReadFrom replaces every part with the snapshot read from r, or changes
// nothing and returns an error (see Persister).
func (pd *Partitioned) ReadFrom(r io.Reader) (int64, error) {
	return restoreNow(pd.Restore, r)
}

// Restore reads a snapshot written by WriteTo: part detectors are made with
// the constructor given to NewPartitioned and restored, and the returned
// function installs them (and the Partitioner's state) at once.
func (pd *Partitioned) Restore(r io.Reader) (install func(), n int64, err error) {
	if pd.p == nil {
		return nil, 0, errNoPartitioner
	}
	sr, err := snapshot.NewReader(r, "neardup.Partitioned", pd.params())
	if err != nil {
		return nil, 0, err
	}
	var installs []func()
	if pp, ok := pd.p.(Persister); ok {
		in, _, err := pp.Restore(sr)
		if err != nil {
			return nil, 0, errorf("neardup: Partitioner: %w", err)
		}
		installs = append(installs, in)
	}
	parts := make(map[int]Detector)
	home := make(map[string]int)
	count := sr.Count()
	for i := uint64(0); sr.Err() == nil && i < count; i++ {
		part := int(sr.Int(math.MinInt32, math.MaxInt32))
		if _, dup := parts[part]; dup && sr.Err() == nil {
			sr.Fail("part %d twice", part)
		}
		nids := sr.Count()
		for j := uint64(0); sr.Err() == nil && j < nids; j++ {
			id := sr.Text()
			if _, dup := home[id]; dup {
				sr.Fail("ID %s in two parts", docid.Quote(id))
			}
			home[id] = part
		}
		if sr.Err() != nil {
			break
		}
		det, err := pd.newFn(part)
		if err != nil || det == nil {
			return nil, 0, errorf("neardup: part %d: constructor: %v: %w", part, err, ErrInvalidOption)
		}
		p, err := persisterOf(fmt.Sprintf("Partitioned part %d", part), det)
		if err != nil {
			return nil, 0, err
		}
		in, _, err := p.Restore(sr)
		if err != nil {
			return nil, 0, errorf("neardup: part %d: %w", part, err)
		}
		installs = append(installs, in)
		parts[part] = det
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, err
	}
	return func() {
		pd.addMu.Lock()
		defer pd.addMu.Unlock()
		pd.mu.Lock()
		defer pd.mu.Unlock()
		for _, in := range installs {
			in()
		}
		pd.parts, pd.home = parts, home
	}, n, nil
}

// params names the Partitioner's type.
func (pd *Partitioned) params() []snapshot.Param {
	return []snapshot.Param{{Name: "partitioner", Value: fmt.Sprintf("%T", pd.p)}}
}

// Replace is MatchOrAdd for a page fetched again under a kept ID (Replacer):
// in one step d.ID is forgotten in its home part (whose detector must be a
// Remover), and d is kept in its own home part unless it matches a kept
// document in one of its parts.
func (pd *Partitioned) Replace(ctx context.Context, d *Document) ([]Match, bool, error) {
	return pd.replace(ctx, d)
}

func (pd *Partitioned) replace(ctx context.Context, d *Document) ([]Match, bool, error) {
	if err := Check(d); err != nil {
		return nil, false, err
	}
	pd.addMu.Lock()
	defer pd.addMu.Unlock()
	if pd.p == nil {
		return nil, false, errNoPartitioner
	}
	if err := pd.remove(ctx, d.ID); err != nil && !errors.Is(err, ErrUnknownID) {
		return nil, false, err
	}
	return pd.matchOrAdd(ctx, d)
}
