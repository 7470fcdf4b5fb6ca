package neardup_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
)

// verifyOnly is a Cascade stage that verifies but cannot forget a document.
type verifyOnly struct{ t *textDetector }

func (v verifyOnly) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	return v.t.Match(ctx, d)
}
func (v verifyOnly) Add(ctx context.Context, d *neardup.Document) error {
	return v.t.Add(ctx, d)
}
func (v verifyOnly) Verify(ctx context.Context, d *neardup.Document, c []neardup.Match) ([]neardup.Match, error) {
	return v.t.Verify(ctx, d, c)
}

// A Cascade with a stage that is not a Remover refuses Replace before any
// stage forgets the ID, directly or through a nested Cascade.
func TestCascadeReplaceNoRemover(t *testing.T) {
	first, last, inner := newText(10), newText(10), newText(10)
	nested, err := neardup.NewCascade(inner, verifyOnly{last})
	if err != nil {
		t.Fatal(err)
	}
	for name, stages := range map[string][]neardup.Detector{
		"flat":   {first, verifyOnly{last}},
		"nested": {first, nested},
	} {
		t.Run(name, func(t *testing.T) {
			first.kept, last.kept, inner.kept = map[string]int{}, map[string]int{}, map[string]int{}
			c, err := neardup.NewCascade(stages...)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Add(t.Context(), doc("a", "old text")); err != nil {
				t.Fatal(err)
			}
			before := fmt.Sprint(first.kept, last.kept, inner.kept)
			ms, kept, err := c.Replace(t.Context(), doc("a", "a new and longer text"))
			if !errors.Is(err, neardup.ErrInvalidOption) || kept || ms != nil {
				t.Fatalf("Replace = %v, %v, %v; want an error wrapping ErrInvalidOption", ms, kept, err)
			}
			if after := fmt.Sprint(first.kept, last.kept, inner.kept); after != before {
				t.Errorf("a failed Replace changed the stages: %s, was %s", after, before)
			}
		})
	}
	// With every stage a Remover, Replace keeps the new page.
	first.kept, last.kept = map[string]int{}, map[string]int{}
	c, _ := neardup.NewCascade(first, last)
	if err := c.Add(t.Context(), doc("a", "old text")); err != nil {
		t.Fatal(err)
	}
	if _, kept, err := c.Replace(t.Context(), doc("a", "a new and longer text")); err != nil || !kept {
		t.Fatalf("Replace = %v, %v; want kept", kept, err)
	}
	if first.kept["a"] != len("a new and longer text") || last.kept["a"] != first.kept["a"] {
		t.Errorf("stages keep %v and %v, want the new page", first.kept, last.kept)
	}
}

// gated is a textDetector whose Add waits for release once entered is set.
type gated struct {
	*textDetector
	entered chan struct{}
	release chan struct{}
}

func (g *gated) Add(ctx context.Context, d *neardup.Document) error {
	if g.entered != nil {
		close(g.entered)
		<-g.release
	}
	return g.textDetector.Add(ctx, d)
}

// A Remove of an ID whose MatchOrAdd is in flight waits for it, then removes
// what it kept.
func TestPartitionedRemoveWaitsForMatchOrAdd(t *testing.T) {
	g := &gated{textDetector: newText(1000), entered: make(chan struct{}), release: make(chan struct{})}
	pd, err := partitioned(lenPartitioner{}, func(int) (neardup.Detector, error) { return g, nil })
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		kept bool
		err  error
	}
	added := make(chan result, 1)
	go func() {
		_, ok, err := pd.MatchOrAdd(t.Context(), doc("x", "page"))
		added <- result{ok, err}
	}()
	<-g.entered
	removed := make(chan error, 1)
	go func() { removed <- pd.Remove(t.Context(), "x") }()
	select {
	case err := <-removed:
		t.Fatalf("Remove returned %v while a MatchOrAdd of the same ID was in flight", err)
	case <-time.After(20 * time.Millisecond): // Remove must still be waiting
	}
	close(g.release)
	if r := <-added; r.err != nil || !r.kept {
		t.Fatalf("MatchOrAdd = %v, %v; want kept", r.kept, r.err)
	}
	if err := <-removed; err != nil {
		t.Fatalf("Remove after MatchOrAdd: %v", err)
	}
	if len(g.kept) != 0 {
		t.Errorf("the part still keeps %v", g.kept)
	}
}

// Remove and MatchOrAdd of the same ID race; each round ends as one of the
// two orders would: Remove then MatchOrAdd keeps the new page, MatchOrAdd
// (which finds its own page kept, and answers "added") then Remove keeps
// nothing. The Partitioned and its part detector always agree on what is
// kept.
func TestPartitionedRemoveRacesMatchOrAdd(t *testing.T) {
	const ids, rounds = 4, 50
	part := newText(10) // each page matches only itself, and has a part of its own
	pd, err := partitioned(lenPartitioner{}, func(int) (neardup.Detector, error) { return part, nil })
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, text := fmt.Sprint("page", i), strings.Repeat("x", 10*i+1)
			if _, ok, err := pd.MatchOrAdd(t.Context(), doc(id, text)); err != nil || !ok {
				t.Errorf("%s: first MatchOrAdd = %v, %v", id, ok, err)
				return
			}
			for range rounds {
				var rmErr error
				var ms []neardup.Match
				var added bool
				var maErr error
				var race sync.WaitGroup
				race.Add(2)
				go func() { defer race.Done(); rmErr = pd.Remove(t.Context(), id) }()
				go func() { defer race.Done(); ms, added, maErr = pd.MatchOrAdd(t.Context(), doc(id, text)) }()
				race.Wait()
				if rmErr != nil || maErr != nil {
					t.Errorf("%s: Remove = %v, MatchOrAdd error = %v", id, rmErr, maErr)
					return
				}
				if !added || len(ms) != 0 {
					t.Errorf("%s: MatchOrAdd = %v, added %v: neither order gives this", id, ms, added)
					return
				}
				part.mu.Lock()
				_, kept := part.kept[id]
				part.mu.Unlock()
				if !kept { // MatchOrAdd, then Remove: keep the page again for the next round
					if err := pd.Add(t.Context(), doc(id, text)); err != nil {
						t.Errorf("%s: Add: %v", id, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	part.mu.Lock()
	n := len(part.kept)
	part.mu.Unlock()
	if n != ids {
		t.Errorf("the part keeps %d pages, want %d", n, ids)
	}
	for i := range ids {
		if err := pd.Remove(t.Context(), fmt.Sprint("page", i)); err != nil {
			t.Errorf("Remove: %v", err)
		}
	}
	if len(part.kept) != 0 {
		t.Errorf("the part still keeps %v after every Remove", part.kept)
	}
}
