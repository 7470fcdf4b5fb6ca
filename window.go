package neardup

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/neardup/neardup/internal/docid"
	"github.com/neardup/neardup/internal/snapshot"
)

// WindowOptions bounds what a Window keeps. The zero value bounds nothing.
type WindowOptions struct {
	// MaxDocuments is the most documents kept: adding one more forgets the
	// oldest. Zero means no limit.
	MaxDocuments int
	// MaxAge is how long a document is kept after it was added: older ones
	// no longer match and are forgotten. Zero means no limit.
	MaxAge time.Duration
	// Now returns the time; nil means time.Now. Tests and replays pass their
	// own clock.
	Now func() time.Time
}

// Window is a Detector that keeps only the most recent documents of another
// detector: at most MaxDocuments, none older than MaxAge. It is for crawlers
// that deduplicate within a window (a day's news, the last million pages)
// rather than against everything ever kept.
//
// Age and count are by Add (or MatchOrAdd, Replace): a document replaced
// under its ID starts a new age. Expired documents stop matching at once and
// are removed from the inner detector by the next change (Add, MatchOrAdd,
// Replace, Remove) or by Evict. A Window is safe for concurrent use when its
// inner detector is; make it with NewWindow.
type Window struct {
	inner Detector
	rm    Remover
	opts  WindowOptions

	mu    sync.RWMutex
	seq   uint64
	byID  map[string]windowEntry // kept ID -> its place in order
	order []windowItem           // kept IDs, oldest first; removed ones stay until they reach the front
	head  int                    // order[:head] is gone
}

type windowEntry struct {
	seq   uint64
	added time.Time
}

type windowItem struct {
	id  string
	seq uint64
}

// NewWindow wraps inner, which must implement Remover.
func NewWindow(inner Detector, o WindowOptions) (*Window, error) {
	if inner == nil {
		return nil, errorf("neardup: NewWindow: nil detector: %w", ErrInvalidOption)
	}
	rm, ok := inner.(Remover)
	if !ok {
		return nil, errorf("neardup: NewWindow: %T is not a Remover: %w", inner, ErrInvalidOption)
	}
	if o.MaxDocuments < 0 || o.MaxAge < 0 {
		return nil, errorf("neardup: NewWindow: negative MaxDocuments %d or MaxAge %v: %w", o.MaxDocuments, o.MaxAge, ErrInvalidOption)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Window{inner: inner, rm: rm, opts: o, byID: make(map[string]windowEntry)}, nil
}

var errNoInner = errorf("neardup: Window has no detector (make it with NewWindow): %w", ErrInvalidOption)

// Len returns the number of documents in the window.
func (w *Window) Len() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return len(w.byID)
}

// expired reports whether a document added at t is past MaxAge at now.
func (w *Window) expired(t, now time.Time) bool {
	return w.opts.MaxAge > 0 && now.Sub(t) > w.opts.MaxAge
}

// live drops the matches whose documents are past MaxAge. w.mu is held.
func (w *Window) live(ms []Match) []Match {
	if w.opts.MaxAge == 0 || len(ms) == 0 {
		return ms
	}
	now := w.opts.Now()
	out := ms[:0]
	for _, m := range ms {
		if e, ok := w.byID[m.ID]; ok && !w.expired(e.added, now) {
			out = append(out, m)
		}
	}
	return out
}

// Match returns the inner detector's matches of d that are in the window.
func (w *Window) Match(ctx context.Context, d *Document) ([]Match, error) {
	return w.match(ctx, d)
}

func (w *Window) match(ctx context.Context, d *Document) ([]Match, error) {
	if w.inner == nil {
		return nil, errNoInner
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	ms, err := matchWith(ctx, w.inner, d)
	return w.live(ms), err
}

// Verify passes the candidates to the inner detector, which must be a
// Verifier, and keeps the matches in the window.
func (w *Window) Verify(ctx context.Context, d *Document, candidates []Match) ([]Match, error) {
	return w.verify(ctx, d, candidates)
}

func (w *Window) verify(ctx context.Context, d *Document, candidates []Match) ([]Match, error) {
	if w.inner == nil {
		return nil, errNoInner
	}
	v, ok := w.inner.(Verifier)
	if !ok {
		return nil, errorf("neardup: Window: %T is not a Verifier: %w", w.inner, ErrInvalidOption)
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	ms, err := verifyWith(ctx, v, d, candidates)
	return w.live(ms), err
}

// Add keeps d, then forgets the oldest documents beyond the window.
func (w *Window) Add(ctx context.Context, d *Document) error {
	return w.add(ctx, d)
}

func (w *Window) add(ctx context.Context, d *Document) error {
	if w.inner == nil {
		return errNoInner
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.evict(ctx); err != nil {
		return err
	}
	if err := addWith(ctx, w.inner, d); err != nil {
		return err
	}
	w.push(d.ID)
	return w.evict(ctx)
}

// MatchOrAdd returns the matches of d in the window; when there are none it
// keeps d, in one step.
func (w *Window) MatchOrAdd(ctx context.Context, d *Document) ([]Match, bool, error) {
	return w.lockedMatchOrAdd(ctx, d)
}

func (w *Window) lockedMatchOrAdd(ctx context.Context, d *Document) ([]Match, bool, error) {
	if w.inner == nil {
		return nil, false, errNoInner
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.matchOrAdd(ctx, d)
}

// matchOrAdd is MatchOrAdd under w.mu.
func (w *Window) matchOrAdd(ctx context.Context, d *Document) ([]Match, bool, error) {
	if err := w.evict(ctx); err != nil {
		return nil, false, err
	}
	if err := checkDoc("Window.MatchOrAdd", d); err != nil {
		return nil, false, err
	}
	ms, err := matchWith(ctx, w.inner, d)
	if ms = w.live(ms); err == nil && OwnPage(d.ID, ms) {
		return nil, true, nil // its own page: see MatchAdder
	}
	if err != nil || len(ms) > 0 {
		return ms, false, err
	}
	if err := addWith(ctx, w.inner, d); err != nil {
		return nil, false, err
	}
	w.push(d.ID)
	return nil, true, w.evict(ctx)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID (Replacer):
// d.ID is forgotten, and d kept (with a new age) unless it matches a document
// in the window.
func (w *Window) Replace(ctx context.Context, d *Document) ([]Match, bool, error) {
	return w.replace(ctx, d)
}

func (w *Window) replace(ctx context.Context, d *Document) ([]Match, bool, error) {
	if w.inner == nil {
		return nil, false, errNoInner
	}
	if err := Check(d); err != nil {
		return nil, false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.byID[d.ID]; ok {
		if err := w.forget(ctx, d.ID); err != nil {
			return nil, false, err
		}
	}
	return w.matchOrAdd(ctx, d)
}

// Remove forgets id.
func (w *Window) Remove(ctx context.Context, id string) error {
	return w.remove(ctx, id)
}

func (w *Window) remove(ctx context.Context, id string) error {
	if w.inner == nil {
		return errNoInner
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.byID[id]; !ok {
		return errorf("neardup: Window: Remove %s: %w", docid.Quote(id), ErrUnknownID)
	}
	if err := w.forget(ctx, id); err != nil {
		return err
	}
	return w.evict(ctx)
}

// Evict forgets the documents past MaxAge now (Adds do it as they go; a
// window that sees no Adds for long can call it to free memory).
func (w *Window) Evict(ctx context.Context) error {
	if w.inner == nil {
		return errNoInner
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.evict(ctx)
}

// push records id as the newest document. w.mu is held.
func (w *Window) push(id string) {
	w.seq++
	w.byID[id] = windowEntry{seq: w.seq, added: w.opts.Now()}
	w.order = append(w.order, windowItem{id, w.seq})
}

// forget removes id from the inner detector and the window. w.mu is held.
func (w *Window) forget(ctx context.Context, id string) error {
	if err := removeWith(ctx, w.rm, id); err != nil {
		return err
	}
	delete(w.byID, id)
	return nil
}

// evict forgets the oldest documents while there are more than MaxDocuments
// or the oldest is past MaxAge. w.mu is held.
func (w *Window) evict(ctx context.Context) error {
	now := w.opts.Now()
	for w.head < len(w.order) {
		it := w.order[w.head]
		e, ok := w.byID[it.id]
		if ok && e.seq == it.seq { // the item is current
			over := w.opts.MaxDocuments > 0 && len(w.byID) > w.opts.MaxDocuments
			if !over && !w.expired(e.added, now) {
				break
			}
			if err := w.forget(ctx, it.id); err != nil {
				return err
			}
		}
		w.order[w.head] = windowItem{}
		w.head++
	}
	if w.head > 1024 && w.head > len(w.order)/2 { // compact the queue
		w.order = append(w.order[:0], w.order[w.head:]...)
		w.head = 0
	}
	return nil
}

// WriteTo writes a snapshot of the window: the inner detector's snapshot
// (which must implement Persister) and every kept ID with the time it was
// added, oldest first.
func (w *Window) WriteTo(wr io.Writer) (int64, error) {
	if w.inner == nil {
		return 0, errNoInner
	}
	p, err := persisterOf("Window's detector", w.inner)
	if err != nil {
		return 0, err
	}
	w.mu.RLock() // no change between the inner snapshot and the order
	defer w.mu.RUnlock()
	sw := snapshot.NewWriter(wr, "neardup.Window", w.params())
	if _, err := p.WriteTo(sw.Nested()); err != nil {
		return 0, err
	}
	sw.Uvarint(uint64(len(w.byID)))
	for _, it := range w.order[w.head:] {
		if e, ok := w.byID[it.id]; ok && e.seq == it.seq {
			sw.Text(it.id)
			sw.Varint(e.added.UnixNano())
		}
	}
	return sw.Close()
}

// ReadFrom replaces the window with the snapshot read from r, or changes
// nothing and returns an error (see Persister).
func (w *Window) ReadFrom(r io.Reader) (int64, error) {
	return restoreNow(w.Restore, r)
}

// Restore reads a snapshot written by WriteTo of a Window over the same type
// of detector, and returns the function that installs it. Documents of the
// snapshot past this Window's MaxAge do not match; they and any beyond its
// MaxDocuments are forgotten at the next change.
func (w *Window) Restore(r io.Reader) (install func(), n int64, err error) {
	if w.inner == nil {
		return nil, 0, errNoInner
	}
	p, err := persisterOf("Window's detector", w.inner)
	if err != nil {
		return nil, 0, err
	}
	sr, err := snapshot.NewReader(r, "neardup.Window", w.params())
	if err != nil {
		return nil, 0, err
	}
	in, _, err := p.Restore(sr)
	if err != nil {
		return nil, 0, errorf("neardup: Window: %w", err)
	}
	byID := make(map[string]windowEntry)
	var order []windowItem
	count := sr.Count()
	for i := uint64(0); sr.Err() == nil && i < count; i++ {
		id := sr.Text()
		t := sr.Int(math.MinInt64, math.MaxInt64)
		if _, dup := byID[id]; dup && sr.Err() == nil {
			sr.Fail("ID %s twice", docid.Quote(id))
		}
		seq := uint64(len(order)) + 1
		byID[id] = windowEntry{seq: seq, added: time.Unix(0, t)}
		order = append(order, windowItem{id, seq})
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, err
	}
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		in()
		w.byID, w.order, w.head, w.seq = byID, order, 0, uint64(len(order))
	}, n, nil
}

func (w *Window) params() []snapshot.Param {
	// The bounds are not params: a window read back with smaller bounds
	// forgets what lies beyond them at its next change.
	return []snapshot.Param{{Name: "detector", Value: fmt.Sprintf("%T", w.inner)}}
}

// Interface checks.
var (
	_ Detector   = (*Window)(nil)
	_ Verifier   = (*Window)(nil)
	_ Remover    = (*Window)(nil)
	_ MatchAdder = (*Window)(nil)
	_ Replacer   = (*Window)(nil)
	_ Persister  = (*Window)(nil)
)
