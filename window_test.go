package neardup_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/simhash"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newWindow(t *testing.T, o neardup.WindowOptions) *neardup.Window {
	t.Helper()
	h, _ := simhash.New(simhash.Options{})
	w, err := neardup.NewWindow(h, o)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWindowConformance(t *testing.T) {
	detectortest.Run(t, detectortest.Suite{
		New: func() (neardup.Detector, error) {
			h, _ := simhash.New(simhash.Options{})
			return neardup.NewWindow(h, neardup.WindowOptions{MaxDocuments: 1000, MaxAge: time.Hour})
		},
		Groups:   detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 7}),
		Measure:  simhash.Bits,
		Zero:     new(neardup.Window),
		ZeroErrs: true,
	})
}

func TestWindowCount(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 8, Groups: 5, Members: 2})
	w := newWindow(t, neardup.WindowOptions{MaxDocuments: 3})
	for _, g := range groups {
		if _, added, err := w.MatchOrAdd(t.Context(), g[0]); err != nil || !added {
			t.Fatalf("MatchOrAdd(%q) = %v, %v", g[0].ID, added, err)
		}
	}
	if w.Len() != 3 {
		t.Errorf("Len = %d, want 3", w.Len())
	}
	// The two oldest are forgotten: their copies are new again.
	for i, g := range groups {
		ms, err := w.Match(t.Context(), g[1])
		if found := err == nil && len(ms) == 1; found != (i >= 2) {
			t.Errorf("group %d: Match = %v, %v; want found = %v", i, ms, err, i >= 2)
		}
	}
	// Removing one makes room: nothing more is evicted by the next add.
	if err := w.Remove(t.Context(), groups[4][0].ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(t.Context(), groups[0][0]); err != nil {
		t.Fatal(err)
	}
	if ms, _ := w.Match(t.Context(), groups[2][1]); len(ms) != 1 {
		t.Errorf("group 2 evicted though the window had room")
	}
}

func TestWindowAge(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 9, Groups: 3, Members: 2})
	c := &clock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	w := newWindow(t, neardup.WindowOptions{MaxAge: time.Hour, Now: c.Now})
	_ = w.Add(t.Context(), groups[0][0])
	c.Advance(40 * time.Minute)
	_ = w.Add(t.Context(), groups[1][0])
	c.Advance(30 * time.Minute) // group 0 is 70 minutes old
	if ms, _ := w.Match(t.Context(), groups[0][1]); len(ms) != 0 {
		t.Errorf("an expired document still matches: %v", ms)
	}
	if ms, _ := w.Match(t.Context(), groups[1][1]); len(ms) != 1 {
		t.Errorf("a live document does not match: %v", ms)
	}
	// Expired documents are forgotten by the next change.
	if w.Len() != 2 {
		t.Errorf("Len before a change = %d, want 2 (eviction is lazy)", w.Len())
	}
	if err := w.Evict(t.Context()); err != nil || w.Len() != 1 {
		t.Errorf("Evict: %v, Len %d, want 1", err, w.Len())
	}
	// Replace starts a new age.
	c.Advance(20 * time.Minute) // group 1 is 50 minutes old
	if _, kept, err := w.Replace(t.Context(), withID(groups[1][1], groups[1][0].ID)); err != nil || !kept {
		t.Fatalf("Replace = %v, %v", kept, err)
	}
	c.Advance(30 * time.Minute) // 80 minutes since the Add, 30 since the Replace
	if ms, _ := w.Match(t.Context(), groups[1][1]); len(ms) != 1 {
		t.Errorf("a replaced document expired by its first age: %v", ms)
	}
}

func TestWindowErrors(t *testing.T) {
	h, _ := simhash.New(simhash.Options{})
	for _, c := range []struct {
		d neardup.Detector
		o neardup.WindowOptions
	}{{nil, neardup.WindowOptions{}}, {h, neardup.WindowOptions{MaxDocuments: -1}}, {h, neardup.WindowOptions{MaxAge: -time.Second}}, {noRemove{h}, neardup.WindowOptions{}}} {
		if _, err := neardup.NewWindow(c.d, c.o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("NewWindow(%T, %+v): err = %v, want ErrInvalidOption", c.d, c.o, err)
		}
	}
	w := newWindow(t, neardup.WindowOptions{})
	if err := w.Remove(t.Context(), "nope"); !errors.Is(err, neardup.ErrUnknownID) {
		t.Errorf("Remove(unknown) = %v", err)
	}
}

// noRemove hides a detector's Remove.
type noRemove struct{ neardup.Detector }

// The queue of IDs is compacted as old entries go: a long stream through a
// small window keeps memory bounded.
func TestWindowLongStream(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 10, Groups: 3, Members: 2})
	w := newWindow(t, neardup.WindowOptions{MaxDocuments: 10})
	for i := range 5000 {
		if err := w.Add(t.Context(), withID(groups[i%3][0], fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if w.Len() != 10 {
		t.Errorf("Len = %d, want 10", w.Len())
	}
}

// withID returns a document with d's page under another ID.
func withID(d *neardup.Document, id string) *neardup.Document {
	return &neardup.Document{ID: id, Host: d.Host, Raw: d.Raw, Page: d.Page}
}
