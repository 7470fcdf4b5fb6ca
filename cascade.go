package neardup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/neardup/neardup/internal/snapshot"
)

// Cascade composes detectors: the first stage finds candidates through its own
// index, and each later stage only verifies the survivors of the one before it
// (Kumar and Govindarajulu §3: sentence count, then SimHash). A document is a near-duplicate
// when it survives every stage; the matches returned carry the last stage's
// scores.
//
// Add keeps a document in every stage. Match calls may run concurrently with
// each other; Add and MatchOrAdd are serialised, so MatchOrAdd is an atomic
// "add if new". A Cascade is safe for concurrent use.
//
// A Cascade must be made with NewCascade: the zero Cascade has no stages, and
// its methods return an error wrapping ErrInvalidOption.
type Cascade struct {
	mu     sync.RWMutex
	first  Detector
	stages []stage    // the stages after the first
	all    []Detector // every stage in order, for Add and Remove
}

type stage struct {
	Detector
	Verifier
}

// NewCascade returns a Cascade of the given stages, in order. Every stage after
// the first must also implement Verifier. At least one stage is required.
func NewCascade(stages ...Detector) (*Cascade, error) {
	if len(stages) == 0 {
		return nil, errorf("neardup: NewCascade: no stages: %w", ErrInvalidOption)
	}
	c := &Cascade{first: stages[0], all: append([]Detector(nil), stages...)}
	for i, s := range stages {
		if s == nil {
			return nil, errorf("neardup: NewCascade: stage %d is nil: %w", i, ErrInvalidOption)
		}
		if i == 0 {
			continue
		}
		v, ok := s.(Verifier)
		if !ok {
			return nil, errorf("neardup: NewCascade: stage %d (%T) does not implement Verifier: %w", i, s, ErrInvalidOption)
		}
		c.stages = append(c.stages, stage{s, v})
	}
	return c, nil
}

// errNoStages is returned by the methods of a Cascade not made by NewCascade.
var errNoStages = errorf("neardup: Cascade has no stages (make it with NewCascade): %w", ErrInvalidOption)

// check returns the error for a nil d, or for a Cascade without stages.
func (c *Cascade) check(d *Document) error {
	if c.first == nil {
		return errNoStages
	}
	return Check(d)
}

// Match returns the kept documents that survive every stage, best first by the
// last stage's score (whose Measure the matches carry).
func (c *Cascade) Match(ctx context.Context, d *Document) ([]Match, error) {
	if err := c.check(d); err != nil {
		return nil, err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.match(ctx, d)
}

// match is Match under c.mu.
func (c *Cascade) match(ctx context.Context, d *Document) ([]Match, error) {
	ms, err := matchWith(ctx, c.first, d)
	if err != nil {
		return nil, err
	}
	for _, s := range c.stages {
		if len(ms) == 0 {
			return nil, nil
		}
		if ms, err = verifyWith(ctx, s.Verifier, d, ms); err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// Verify lets a Cascade be a stage of another Cascade: the candidates pass
// through the first stage (which must then implement Verifier) and every later
// one.
func (c *Cascade) Verify(ctx context.Context, d *Document, candidates []Match) ([]Match, error) {
	return c.verify(ctx, d, candidates)
}

func (c *Cascade) verify(ctx context.Context, d *Document, candidates []Match) ([]Match, error) {
	if err := c.check(d); err != nil {
		return nil, err
	}
	v, ok := c.first.(Verifier)
	if !ok {
		return nil, errorf("neardup: Cascade.Verify: first stage %T does not implement Verifier: %w", c.first, ErrInvalidOption)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	ms, err := verifyWith(ctx, v, d, candidates)
	for _, s := range c.stages {
		if err != nil || len(ms) == 0 {
			return ms, err
		}
		ms, err = verifyWith(ctx, s.Verifier, d, ms)
	}
	return ms, err
}

// Add keeps d in every stage. When a stage fails, the stages that had already
// kept d forget it again if they implement Remover, and the error is returned.
func (c *Cascade) Add(ctx context.Context, d *Document) error {
	if err := c.check(d); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.add(ctx, d)
}

func (c *Cascade) add(ctx context.Context, d *Document) error {
	all := c.all
	for i, s := range all {
		if err := addWith(ctx, s, d); err != nil {
			for _, done := range all[:i] {
				if r, ok := done.(Remover); ok {
					_ = r.Remove(context.WithoutCancel(ctx), d.ID) // best effort: the Add error is the one to report
				}
			}
			return err
		}
	}
	return nil
}

// MatchOrAdd returns the matches of d; when there are none it keeps d. No
// other Add or MatchOrAdd runs in between, so two concurrent copies of a page
// are never both kept.
func (c *Cascade) MatchOrAdd(ctx context.Context, d *Document) ([]Match, bool, error) {
	if err := c.check(d); err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.matchOrAdd(ctx, d)
}

// matchOrAdd is MatchOrAdd under c.mu.
func (c *Cascade) matchOrAdd(ctx context.Context, d *Document) ([]Match, bool, error) {
	if err := checkDoc("Cascade.MatchOrAdd", d); err != nil {
		return nil, false, err
	}
	ms, err := c.match(ctx, d)
	if err == nil && OwnPage(d.ID, ms) {
		return nil, true, nil // its own page: see MatchAdder
	}
	if err != nil || len(ms) > 0 {
		return ms, false, err
	}
	if err := c.add(ctx, d); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Remove forgets id in every stage that implements Remover. It returns the
// first error, after trying every stage.
func (c *Cascade) Remove(ctx context.Context, id string) error {
	return c.remove(ctx, id)
}

func (c *Cascade) remove(ctx context.Context, id string) error {
	if c.first == nil {
		return errNoStages
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for _, s := range c.all {
		if r, ok := s.(Remover); ok {
			if err := removeWith(ctx, r, id); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// WriteTo writes a snapshot of every stage to w (each stage must implement
// Persister), in stage order, as one snapshot of kind "neardup.Cascade".
func (c *Cascade) WriteTo(w io.Writer) (int64, error) {
	if c.first == nil {
		return 0, errNoStages
	}
	c.mu.RLock() // no Add between the stages' snapshots
	defer c.mu.RUnlock()
	ps, err := c.persisters()
	if err != nil {
		return 0, err
	}
	sw := snapshot.NewWriter(w, "neardup.Cascade", c.params())
	for _, p := range ps {
		if _, err := p.WriteTo(sw.Nested()); err != nil {
			return 0, err
		}
	}
	return sw.Close()
}

// ReadFrom replaces what every stage keeps with the snapshot read from r, or
// changes nothing and returns an error (see Persister).
func (c *Cascade) ReadFrom(r io.Reader) (int64, error) {
	return restoreNow(c.Restore, r)
}

// Restore reads a snapshot written by WriteTo of a Cascade with the same
// stages into every stage, and returns the function that installs all of
// them at once; until then nothing changes.
func (c *Cascade) Restore(r io.Reader) (install func(), n int64, err error) {
	if c.first == nil {
		return nil, 0, errNoStages
	}
	ps, err := c.persisters()
	if err != nil {
		return nil, 0, err
	}
	sr, err := snapshot.NewReader(r, "neardup.Cascade", c.params())
	if err != nil {
		return nil, 0, err
	}
	installs := make([]func(), 0, len(ps))
	for i, p := range ps {
		in, _, err := p.Restore(sr)
		if err != nil {
			return nil, 0, errorf("neardup: Cascade stage %d: %w", i, err)
		}
		installs = append(installs, in)
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, err
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, in := range installs {
			in()
		}
	}, n, nil
}

func (c *Cascade) persisters() ([]Persister, error) {
	ps := make([]Persister, len(c.all))
	for i, s := range c.all {
		p, err := persisterOf(fmt.Sprintf("Cascade stage %d", i), s)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

// params names the stages' types, so that a snapshot is read back only into
// a Cascade of the same stages in the same order.
func (c *Cascade) params() []snapshot.Param {
	ps := []snapshot.Param{{Name: "stages", Value: strconv.Itoa(len(c.all))}}
	for i, s := range c.all {
		ps = append(ps, snapshot.Param{Name: "stage" + strconv.Itoa(i), Value: fmt.Sprintf("%T", s)})
	}
	return ps
}

// Replace is MatchOrAdd for a page fetched again under a kept ID (Replacer):
// in one step every stage forgets d.ID, and d is kept in every stage unless
// it survives the cascade as a near-duplicate of another kept document.
//
// Every stage must implement Remover (a stage that is itself a Cascade, every
// one of its stages): otherwise Replace returns an error wrapping
// ErrInvalidOption and no stage is changed.
func (c *Cascade) Replace(ctx context.Context, d *Document) ([]Match, bool, error) {
	return c.replace(ctx, d)
}

func (c *Cascade) replace(ctx context.Context, d *Document) ([]Match, bool, error) {
	if err := c.check(d); err != nil {
		return nil, false, err
	}
	if err := removers(c.all); err != nil {
		return nil, false, errorf("neardup: Cascade.Replace: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := forget(ctx, c.all, d.ID); err != nil {
		return nil, false, err
	}
	return c.matchOrAdd(ctx, d)
}

// forget removes id from every detector that keeps it; detectors that do not
// keep it are left alone. Each must be a Remover.
func forget(ctx context.Context, dets []Detector, id string) error {
	for i, s := range dets {
		r, ok := s.(Remover)
		if !ok {
			return fmt.Errorf("neardup: Replace: stage %d (%T) is not a Remover: %w", i, s, ErrInvalidOption)
		}
		if err := removeWith(ctx, r, id); err != nil && !errors.Is(err, ErrUnknownID) {
			return err
		}
	}
	return nil
}

// removers returns an error wrapping ErrInvalidOption naming the first of
// dets that is not a Remover, looking into the stages of a nested Cascade
// (whose Remove skips the stages that are not Removers).
func removers(dets []Detector) error {
	for i, s := range dets {
		if inner, ok := s.(*Cascade); ok {
			if err := removers(inner.all); err != nil {
				return errorf("neardup: stage %d: %w", i, err)
			}
			continue
		}
		if _, ok := s.(Remover); !ok {
			return errorf("neardup: stage %d (%T) is not a Remover: %w", i, s, ErrInvalidOption)
		}
	}
	return nil
}
