package neardup_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

type ctxKey struct{}

// stage is a detector in which documents whose IDs share their first byte
// are near-duplicates. It records each call as "Method:<the ctxKey value of
// ctx>" in log.
type stage struct {
	mu   sync.Mutex
	kept map[string]bool
	log  []string
}

func newStage() *stage { return &stage{kept: map[string]bool{}} }

func (s *stage) record(method string, ctx context.Context) {
	v, _ := ctx.Value(ctxKey{}).(string)
	s.mu.Lock()
	s.log = append(s.log, method+":"+v)
	s.mu.Unlock()
}

func (s *stage) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *stage) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	s.record("Match", ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	var ms []neardup.Match
	for id := range s.kept {
		if id[0] == d.ID[0] {
			ms = append(ms, neardup.Match{ID: id})
		}
	}
	neardup.SortMatches(ms)
	return ms, nil
}

func (s *stage) Add(ctx context.Context, d *neardup.Document) error {
	s.record("Add", ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept[d.ID] {
		return neardup.ErrDuplicateID
	}
	s.kept[d.ID] = true
	return nil
}

func (s *stage) Remove(ctx context.Context, id string) error {
	s.record("Remove", ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.kept[id] {
		return neardup.ErrUnknownID
	}
	delete(s.kept, id)
	return nil
}

func (s *stage) Verify(ctx context.Context, d *neardup.Document, c []neardup.Match) ([]neardup.Match, error) {
	s.record("Verify", ctx)
	return c, nil
}

// onePart sends every document to part 0.
type onePart struct{}

func (onePart) Partition(*neardup.Document) ([]int, error) { return []int{0}, nil }

// composition is the methods every composition offers.
type composition interface {
	neardup.Detector
	neardup.Remover
	neardup.MatchAdder
	neardup.Replacer
}

// compositions returns a Cascade, a Window and a Partitioned over stages of
// newStage, and each one's stages.
func compositions(t *testing.T) map[string]func() (composition, []neardup.Detector) {
	t.Helper()
	return map[string]func() (composition, []neardup.Detector){
		"Cascade": func() (composition, []neardup.Detector) {
			a, b := newStage(), newStage()
			c, err := neardup.NewCascade(a, b)
			if err != nil {
				t.Fatal(err)
			}
			return c, []neardup.Detector{a, b}
		},
		"Window": func() (composition, []neardup.Detector) {
			a := newStage()
			w, err := neardup.NewWindow(a, neardup.WindowOptions{MaxDocuments: 2})
			if err != nil {
				t.Fatal(err)
			}
			return w, []neardup.Detector{a}
		},
		"Partitioned": func() (composition, []neardup.Detector) {
			a := newStage()
			p, err := partitioned(onePart{}, func(int) (neardup.Detector, error) { return a, nil })
			if err != nil {
				t.Fatal(err)
			}
			return p, []neardup.Detector{a}
		},
	}
}

// cdoc returns a document with an empty Page.
func cdoc(id string) *neardup.Document { return &neardup.Document{ID: id, Page: &preprocess.Page{}} }

// exercise calls every write and read of c with ctx; the Window's
// MaxDocuments of 2 makes the third add evict.
func exercise(t *testing.T, c composition, ctx context.Context) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Add(ctx, cdoc("a1")))
	_, _, err := c.MatchOrAdd(ctx, cdoc("b1"))
	must(err)
	_, _, err = c.MatchOrAdd(ctx, cdoc("c1"))
	must(err)
	_, err = c.Match(ctx, cdoc("c2"))
	must(err)
	_, _, err = c.Replace(ctx, cdoc("c1"))
	must(err)
	must(c.Remove(ctx, "c1"))
}

// Cascade, Window and Partitioned pass the caller's context to every call
// of a stage.
func TestContextForwarded(t *testing.T) {
	for name, make := range compositions(t) {
		t.Run(name, func(t *testing.T) {
			c, stages := make()
			ctx := context.WithValue(context.Background(), ctxKey{}, "v1")
			exercise(t, c, ctx)
			for i, s := range stages {
				calls := s.(*stage).calls()
				if len(calls) < 4 {
					t.Errorf("stage %d: only %v", i, calls)
				}
				methods := map[string]bool{}
				for _, call := range calls {
					m, v, ok := strings.Cut(call, ":")
					if !ok || v != "v1" {
						t.Errorf("stage %d: call %q without the caller's context", i, call)
					}
					methods[m] = true
				}
				for _, m := range []string{"Add", "Remove"} {
					if !methods[m] {
						t.Errorf("stage %d: no %s in %v", i, m, calls)
					}
				}
				if !methods["Match"] && !methods["Verify"] {
					t.Errorf("stage %d: neither Match nor Verify in %v", i, calls)
				}
			}
		})
	}
}

// A done context stops the call before any stage is called.
func TestContextDone(t *testing.T) {
	for name, make := range compositions(t) {
		t.Run(name, func(t *testing.T) {
			c, stages := make()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, _, err := c.MatchOrAdd(ctx, cdoc("a1")); !errors.Is(err, context.Canceled) {
				t.Errorf("MatchOrAdd with a cancelled context: %v, want context.Canceled", err)
			}
			if err := c.Add(ctx, cdoc("a1")); !errors.Is(err, context.Canceled) {
				t.Errorf("Add with a cancelled context: %v, want context.Canceled", err)
			}
			for i, s := range stages {
				if calls := s.(*stage).calls(); len(calls) > 0 {
					t.Errorf("stage %d called after the context was done: %v", i, calls)
				}
			}
		})
	}
}

// A Cascade's later stages get the context through Verify, and a
// Cascade used as a stage passes it on.
func TestContextNestedCascade(t *testing.T) {
	a, b, c := newStage(), newStage(), newStage()
	inner, err := neardup.NewCascade(b, c)
	if err != nil {
		t.Fatal(err)
	}
	outer, err := neardup.NewCascade(a, inner)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, "v2")
	if _, _, err := outer.MatchOrAdd(ctx, cdoc("a1")); err != nil {
		t.Fatal(err)
	}
	if ms, _, err := outer.MatchOrAdd(ctx, cdoc("a2")); err != nil || len(ms) != 1 {
		t.Fatalf("MatchOrAdd(a2) = %v, %v; want a1", ms, err)
	}
	for i, s := range []*stage{a, b, c} {
		calls := s.calls()
		want := "Verify:v2"
		if i == 0 {
			want = "Match:v2"
		}
		if !slices.Contains(calls, want) || !slices.Contains(calls, "Add:v2") {
			t.Errorf("stage %d: %v, want %s and Add:v2", i, calls, want)
		}
	}
}
