// Package detector is the scaffolding every method's Detector is built on: the
// lock, the map between the caller's document IDs and the method's handles,
// and Match, Verify, Add, MatchOrAdd, Replace and Remove over a method's Store.
//
// A method package supplies what is its own: how a document's feature is
// extracted (Extract, usually cached per Document with neardup.Feature), and a
// Store that keeps features under handles and finds the near ones. Core does
// the rest the same way for every method, so every Detector of the module has
// the same contracts.
//
// The package is a foundation: it imports no package of the module outside
// internal/. Core is generic in the document type D and the match type M
// (neardup.Document and neardup.Match), which a method binds in its Config
// (ID, Match, Candidate), so that package neardup can be built on it rather
// than below it. The contracts:
//
//   - Match, Verify: read lock; results sorted by distance then ID, each ID
//     once, each carrying the method's neardup.Measure.
//   - Add, MatchOrAdd, Replace, Remove: write lock; MatchOrAdd is an atomic
//     "add if new"; Replace swaps a kept ID's feature in one step.
//   - Handles are small integers: a new document takes the handle of the
//     last one removed, or the next unused one, so the Core's table of IDs
//     by handle stays as large as the repository; Remove is one
//     Store.Delete.
//   - IDs: Add, MatchOrAdd and Replace refuse the empty ID and IDs over
//     neardup.MaxIDLen bytes (neardup.ErrInvalidID).
//   - Its own page: MatchOrAdd and Replace of a kept ID whose kept feature
//     is at distance 0 from the document's (Store.Score) change nothing and
//     return no matches and added = true (see neardup.MatchAdder).
//   - Errors: the document's own errors (neardup.ErrNilDocument,
//     neardup.ErrNoFeatures) from Extract; neardup.ErrInvalidID,
//     neardup.ErrDuplicateID and neardup.ErrUnknownID (internal/sentinel's)
//     from the ID map; each wrapped with the method's name and the ID (at
//     most its first 64 bytes: QuoteID).
package detector

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/neardup/neardup/internal/docid"
	"github.com/neardup/neardup/internal/sentinel"
	"github.com/neardup/neardup/internal/snapshot"
)

// Handle is the key a Core gives a kept document in its Store: 0, 1, 2, ...,
// and the handle of a removed document is given to a later one.
type Handle uint64

// Found is a kept handle a Store's Search found, with its distance.
type Found struct {
	H    Handle
	Dist float64
}

// Store keeps the features of one method under handles. Core calls Search and
// Score under its read lock, possibly from several goroutines at once, and
// Insert and Delete under its write lock, never concurrently with anything
// else. A Store need not be safe for concurrent use beyond that.
type Store[F any] interface {
	// Search appends to dst every kept handle whose feature is near f, with
	// the distance between them in the method's measure (lower is closer),
	// and returns the extended slice (as append does: with nothing found
	// and a nil dst it allocates nothing). It may report a handle more than
	// once; Core keeps one.
	Search(f F, dst []Found) []Found
	// Score returns the distance between f and the feature kept under h, and
	// whether it is near enough to be a match. Core calls it only with kept
	// handles.
	Score(f F, h Handle) (dist float64, ok bool)
	// Insert keeps f under the new handle h.
	Insert(h Handle, f F) error
	// Delete forgets the feature kept under h. Core calls it only with kept
	// handles.
	Delete(h Handle) error
	// Feature returns the feature kept under h, for snapshots. Core calls it
	// only with kept handles.
	Feature(h Handle) F
}

// Config is what a method supplies to NewCore: F is its feature, D and M
// the module's document and match types (neardup.Document, neardup.Match).
type Config[F, D, M any] struct {
	// Name prefixes error messages: "simhash", "sentence", ...
	Name string
	// Check returns an error for a document no method can read (nil, or
	// without a page: neardup.Check); Core prefixes it with Name.
	Check func(d *D) error
	// Extract returns the feature of d, which has passed Check. Its errors
	// are returned as they are, so they should name the method and the
	// document.
	Extract func(d *D) (F, error)
	// ID returns the ID of a document that has passed Check.
	ID func(d *D) string
	// Match returns the match of the kept ID id at distance dist, in the
	// method's measure.
	Match func(id string, dist float64) M
	// Candidate returns the ID of a match given to Verify.
	Candidate func(m M) string
	// NewStore returns an empty Store (Core makes one at the start and one
	// for every snapshot it reads).
	NewStore func() Store[F]

	// Kind names the detector in snapshots ("simhash.Detector").
	Kind string
	// Params are the options that give features and distances their
	// meaning; a snapshot records them and is read back only by a Core with
	// the same Params.
	Params []snapshot.Param
	// Encode writes a feature to a snapshot, Decode reads it back (calling
	// sr.Fail for values out of range).
	Encode func(sw *snapshot.Writer, f F)
	Decode func(sr *snapshot.Reader) F

	// Extra and ReadExtra, when set, save and read back state of the
	// store beyond its features, after the features in a snapshot: Extra
	// is called under the read lock and returns what writes a copy of that
	// state; ReadExtra reads it into a store the features were inserted
	// into (calling sr.Fail for values out of range).
	Extra     func(s Store[F]) func(sw *snapshot.Writer)
	ReadExtra func(sr *snapshot.Reader, s Store[F])
}

// Rejecter is implemented by a Store that remembers the verdicts of
// documents MatchOrAdd or Replace did not keep: Core calls Reject, under the
// write lock, with a document's feature and the kept handle it matched first.
type Rejecter[F any] interface {
	Reject(f F, h Handle, dist float64)
}

// Core implements the neardup.Detector family of interfaces over a Store. It
// is safe for concurrent use as described in the package documentation. Make
// it with NewCore.
type Core[F, D, M any] struct {
	name string
	cfg  Config[F, D, M]

	mu    sync.RWMutex
	store Store[F]
	ids   map[string]Handle
	names []string // names[h] is the ID kept under h, when ids[names[h]] == h
	free  []Handle // handles of removed documents, reused by later Adds
}

// NewCore returns an empty Core. It panics if cfg lacks a function: a method
// package passes them as literals, so that is a programming error in the
// package, not a caller's.
func NewCore[F, D, M any](cfg Config[F, D, M]) *Core[F, D, M] {
	if cfg.Check == nil || cfg.Extract == nil || cfg.ID == nil || cfg.Match == nil || cfg.Candidate == nil ||
		cfg.NewStore == nil || cfg.Encode == nil || cfg.Decode == nil {
		panic("detector: NewCore without Check, Extract, ID, Match, Candidate, NewStore, Encode or Decode")
	}
	return &Core[F, D, M]{
		name:  cfg.Name,
		cfg:   cfg,
		store: cfg.NewStore(),
		ids:   make(map[string]Handle),
	}
}

// QuoteID returns id quoted for an error message: whole when it is at most
// 64 bytes, else its first 64 bytes and "…", so that a long ID does not
// flood a log.
func QuoteID(id string) string { return docid.Quote(id) }

// CheckID returns nil when id may be kept (1 to neardup.MaxIDLen bytes),
// else an error wrapping neardup.ErrInvalidID, prefixed "<name>: <op> <id>"
// with the ID quoted by QuoteID.
func CheckID(name, op, id string) error {
	if err := docid.Check(id); err != nil {
		return fmt.Errorf("%s: %s %s: %w", name, op, QuoteID(id), err)
	}
	return nil
}

// Feature checks d and returns its feature.
func (c *Core[F, D, M]) Feature(d *D) (F, error) {
	if err := c.cfg.Check(d); err != nil {
		var zero F
		return zero, fmt.Errorf("%s: %w", c.name, err)
	}
	return c.cfg.Extract(d)
}

// Len returns the number of kept documents.
func (c *Core[F, D, M]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.ids)
}

// Contains reports whether id is kept.
func (c *Core[F, D, M]) Contains(id string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.ids[id]
	return ok
}

// Handle returns the handle of the kept id, and whether id is kept.
func (c *Core[F, D, M]) Handle(id string) (Handle, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	h, ok := c.ids[id]
	return h, ok
}

// Match returns the kept documents near d, closest first (ties by ID).
func (c *Core[F, D, M]) Match(ctx context.Context, d *D) ([]M, error) {
	f, err := c.Feature(d)
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.match(f), nil
}

// MatchFeature returns the kept documents near a document whose feature is
// f, as Match does.
func (c *Core[F, D, M]) MatchFeature(f F) []M {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.match(f)
}

// match searches the store for f and returns the matches. The caller holds
// c.mu.
func (c *Core[F, D, M]) match(f F) []M { return c.matches(c.search(f)) }

// search returns the handles the store finds near f, closest first (ties by
// ID), each once. The caller holds c.mu.
func (c *Core[F, D, M]) search(f F) []Found {
	return c.sortUnique(c.store.Search(f, nil))
}

// sortUnique sorts found (by distance, then ID) and keeps one record per
// handle: a store may report a handle twice; its copies score the same, so
// they are adjacent. The small Found records are sorted before any M is
// made. The caller holds c.mu.
func (c *Core[F, D, M]) sortUnique(found []Found) []Found {
	slices.SortFunc(found, func(a, b Found) int {
		if a.Dist != b.Dist {
			return cmp.Compare(a.Dist, b.Dist)
		}
		return strings.Compare(c.names[a.H], c.names[b.H])
	})
	return slices.CompactFunc(found, func(a, b Found) bool { return a.H == b.H })
}

// matches makes the matches of found, in its order. The caller holds c.mu.
func (c *Core[F, D, M]) matches(found []Found) []M {
	if len(found) == 0 {
		return nil
	}
	ms := make([]M, len(found))
	for i, x := range found {
		ms[i] = c.cfg.Match(c.names[x.H], x.Dist)
	}
	return ms
}

// Verify returns those of candidates that are kept and near d, with this
// method's scores, closest first, each ID once. The candidates' own scores are
// not read; candidates that are not kept are dropped.
func (c *Core[F, D, M]) Verify(ctx context.Context, d *D, candidates []M) ([]M, error) {
	f, err := c.Feature(d)
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	var found []Found
	for _, cand := range candidates {
		h, ok := c.ids[c.cfg.Candidate(cand)]
		if !ok {
			continue
		}
		if dist, ok := c.store.Score(f, h); ok {
			found = append(found, Found{H: h, Dist: dist})
		}
	}
	return c.matches(c.sortUnique(found)), nil
}

// Add keeps d. An ID already kept returns an error wrapping
// neardup.ErrDuplicateID.
func (c *Core[F, D, M]) Add(ctx context.Context, d *D) error {
	f, err := c.Feature(d)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.add(c.cfg.ID(d), f)
}

// AddFeature keeps f under id, as Add does for a document whose feature is f.
// It lets a caller that stored a feature (a fingerprint, say) keep it again
// without the document.
func (c *Core[F, D, M]) AddFeature(id string, f F) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.add(id, f)
}

func (c *Core[F, D, M]) add(id string, f F) error {
	if err := CheckID(c.name, "Add", id); err != nil {
		return err
	}
	if _, ok := c.ids[id]; ok {
		return fmt.Errorf("%s: Add %s: %w", c.name, QuoteID(id), sentinel.ErrDuplicateID)
	}
	h := Handle(len(c.names))
	if n := len(c.free); n > 0 {
		h = c.free[n-1]
	}
	if err := c.store.Insert(h, f); err != nil {
		return fmt.Errorf("%s: Add %s: %w", c.name, QuoteID(id), err)
	}
	if n := len(c.free); n > 0 {
		c.free = c.free[:n-1]
		c.names[h] = id
	} else {
		c.names = append(c.names, id)
	}
	c.ids[id] = h
	return nil
}

// MatchOrAdd returns the matches of d; when there are none it keeps d, with no
// other change in between, and reports added = true. When d.ID is kept with
// d's own page (distance 0) it changes nothing and reports added = true;
// when it is kept with another page, the matches are returned, or, when
// there are none, an error wrapping neardup.ErrDuplicateID
// (neardup.MatchAdder).
func (c *Core[F, D, M]) MatchOrAdd(ctx context.Context, d *D) (matches []M, added bool, err error) {
	f, err := c.Feature(d)
	if err != nil {
		return nil, false, err
	}
	id := c.cfg.ID(d)
	if err := CheckID(c.name, "MatchOrAdd", id); err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.own(id, f) {
		return nil, true, nil
	}
	if found := c.search(f); len(found) > 0 {
		c.reject(f, found[0])
		return c.matches(found), false, nil
	}
	if err := c.add(id, f); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// own reports whether id is kept with a feature at distance 0 from f: a
// page offered again under its own ID (c.mu held).
func (c *Core[F, D, M]) own(id string, f F) bool {
	h, ok := c.ids[id]
	if !ok {
		return false
	}
	dist, near := c.store.Score(f, h)
	return near && dist == 0
}

// reject tells a Rejecter store the first match of a document not kept
// (c.mu held for writing).
func (c *Core[F, D, M]) reject(f F, first Found) {
	if r, ok := c.store.(Rejecter[F]); ok {
		r.Reject(f, first.H, first.Dist)
	}
}

// Replace is MatchOrAdd for a page fetched again under a kept ID: in one step
// it forgets what is kept under d.ID (if anything), then keeps d unless d
// nearly duplicates another kept document, in which case it returns those
// matches and d.ID is no longer kept. No two near-duplicates are ever kept,
// whatever mix of MatchOrAdd, Replace and Remove runs at once. When d.ID is
// kept with d's own page (distance 0) it changes nothing and reports kept =
// true.
func (c *Core[F, D, M]) Replace(ctx context.Context, d *D) (matches []M, kept bool, err error) {
	f, err := c.Feature(d)
	if err != nil {
		return nil, false, err
	}
	id := c.cfg.ID(d)
	if err := CheckID(c.name, "Replace", id); err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.own(id, f) {
		return nil, true, nil
	}
	if _, ok := c.ids[id]; ok {
		if err := c.remove(id); err != nil {
			return nil, false, err
		}
	}
	if found := c.search(f); len(found) > 0 {
		c.reject(f, found[0])
		return c.matches(found), false, nil
	}
	if err := c.add(id, f); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Remove forgets id. An ID that is not kept returns an error wrapping
// neardup.ErrUnknownID.
func (c *Core[F, D, M]) Remove(ctx context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.remove(id)
}

func (c *Core[F, D, M]) remove(id string) error {
	h, ok := c.ids[id]
	if !ok {
		return fmt.Errorf("%s: Remove %s: %w", c.name, QuoteID(id), sentinel.ErrUnknownID)
	}
	if err := c.store.Delete(h); err != nil {
		return fmt.Errorf("%s: Remove %s: %w", c.name, QuoteID(id), err)
	}
	delete(c.ids, id)
	c.names[h] = ""
	c.free = append(c.free, h)
	return nil
}

// Lookup returns the feature kept under id, and whether id is kept.
func (c *Core[F, D, M]) Lookup(id string) (F, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	h, ok := c.ids[id]
	if !ok {
		var zero F
		return zero, false
	}
	return c.store.Feature(h), true
}

// Read calls f with the store under the read lock, for a method's own
// measurements of its store (memory, sizes). f must not keep the store nor
// call back into the Core.
func (c *Core[F, D, M]) Read(f func(s Store[F])) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	f(c.store)
}

// Inspect calls f with the store and the handle of the kept id under the
// read lock, and reports whether id is kept (f is not called when it is
// not). f must not keep the store nor call back into the Core.
func (c *Core[F, D, M]) Inspect(id string, f func(s Store[F], h Handle)) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	h, ok := c.ids[id]
	if ok {
		f(c.store, h)
	}
	return ok
}

// WriteTo writes a snapshot of the kept documents to w: the Kind and Params,
// then each kept ID with its feature, in handle order. The IDs
// and features are copied under the read lock and written after it, so a
// slow w does not hold up Adds; the snapshot is the state at one instant.
func (c *Core[F, D, M]) WriteTo(w io.Writer) (int64, error) {
	c.mu.RLock()
	ids := make([]string, 0, len(c.ids))
	fs := make([]F, 0, len(c.ids))
	for h, id := range c.names {
		if kept, ok := c.ids[id]; ok && kept == Handle(h) {
			ids = append(ids, id)
			fs = append(fs, c.store.Feature(Handle(h)))
		}
	}
	var extra func(sw *snapshot.Writer)
	if c.cfg.Extra != nil {
		extra = c.cfg.Extra(c.store)
	}
	c.mu.RUnlock()

	sw := snapshot.NewWriter(w, c.cfg.Kind, c.cfg.Params)
	sw.Uvarint(uint64(len(ids)))
	for i, id := range ids {
		sw.Text(id)
		c.cfg.Encode(sw, fs[i])
	}
	if extra != nil {
		extra(sw)
	}
	n, err := sw.Close()
	if err != nil {
		return n, fmt.Errorf("%s: WriteTo: %w", c.name, err)
	}
	return n, nil
}

// Restore reads a snapshot written by WriteTo of a Core with the same Kind and
// Params into a new store, and returns the function that installs it in
// place of everything c keeps. Until install is called nothing changes; when
// the snapshot is truncated, corrupt, of another version or kind, or written
// with other Params, or keeps an ID that Add refuses (empty, longer than
// neardup.MaxIDLen) or one ID twice, Restore returns an error (wrapping snapshot.ErrCorrupt,
// ErrVersion or ErrMismatch) and nothing to install.
func (c *Core[F, D, M]) Restore(r io.Reader) (install func(), n int64, err error) {
	sr, err := snapshot.NewReader(r, c.cfg.Kind, c.cfg.Params)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", c.name, err)
	}
	store := c.cfg.NewStore()
	ids := make(map[string]Handle)
	var names []string
	count := sr.Count()
	var h Handle
	for ; sr.Err() == nil && uint64(h) < count; h++ {
		id := sr.Text()
		f := c.cfg.Decode(sr)
		if sr.Err() != nil {
			break
		}
		if err := docid.Check(id); err != nil {
			sr.Fail("ID %s: %v", QuoteID(id), err)
			break
		}
		if _, dup := ids[id]; dup {
			sr.Fail("ID %s kept twice", QuoteID(id))
			break
		}
		if err := store.Insert(h, f); err != nil {
			sr.Fail("ID %s: %v", QuoteID(id), err)
			break
		}
		ids[id] = h
		names = append(names, id)
	}
	if c.cfg.ReadExtra != nil && sr.Err() == nil {
		c.cfg.ReadExtra(sr, store)
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, fmt.Errorf("%s: %w", c.name, err)
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.store, c.ids, c.names, c.free = store, ids, names, nil
	}, n, nil
}

// ReadFrom is Restore, installed at once.
func (c *Core[F, D, M]) ReadFrom(r io.Reader) (int64, error) {
	install, n, err := c.Restore(r)
	if err == nil {
		install()
	}
	return n, err
}

// Lazy holds a *Core that is built on first use, so that a method's zero
// Detector works with the method's default options. Its zero value is ready.
type Lazy[F, D, M any] struct {
	once sync.Once
	core *Core[F, D, M]
}

// Set makes c the Core of l; it must be called before any Get (a
// constructor calls it).
func (l *Lazy[F, D, M]) Set(c *Core[F, D, M]) { l.once.Do(func() { l.core = c }) }

// Get returns the Core of l, building it with build the first time when Set
// was not called.
func (l *Lazy[F, D, M]) Get(build func() *Core[F, D, M]) *Core[F, D, M] {
	l.once.Do(func() { l.core = build() })
	return l.core
}

// Among returns the matches of ms whose ID (id) is among candidates', in
// ms's order, reusing ms: the Verify of a detector that can only Match (a
// repository kept in a server).
func Among[M any](ms, candidates []M, id func(M) string) []M {
	want := make(map[string]bool, len(candidates))
	for _, c := range candidates {
		want[id(c)] = true
	}
	out := ms[:0]
	for _, m := range ms {
		if want[id(m)] {
			out = append(out, m)
		}
	}
	return out
}
