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

// plainStage is a detector without Context methods: documents whose IDs
// share their first byte are near-duplicates. It records each call as
// "Method" in log.
type plainStage struct {
	mu   sync.Mutex
	kept map[string]bool
	log  []string
}

func newPlain() *plainStage { return &plainStage{kept: map[string]bool{}} }

func (s *plainStage) record(call string) {
	s.mu.Lock()
	s.log = append(s.log, call)
	s.mu.Unlock()
}

func (s *plainStage) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *plainStage) match(d *neardup.Document) []neardup.Match {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ms []neardup.Match
	for id := range s.kept {
		if id[0] == d.ID[0] {
			ms = append(ms, neardup.Match{ID: id})
		}
	}
	neardup.SortMatches(ms)
	return ms
}

func (s *plainStage) add(d *neardup.Document) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept[d.ID] {
		return neardup.ErrDuplicateID
	}
	s.kept[d.ID] = true
	return nil
}

func (s *plainStage) remove(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.kept[id] {
		return neardup.ErrUnknownID
	}
	delete(s.kept, id)
	return nil
}

func (s *plainStage) Match(d *neardup.Document) ([]neardup.Match, error) {
	s.record("Match")
	return s.match(d), nil
}

func (s *plainStage) Add(d *neardup.Document) error { s.record("Add"); return s.add(d) }

func (s *plainStage) Remove(id string) error { s.record("Remove"); return s.remove(id) }

func (s *plainStage) Verify(d *neardup.Document, c []neardup.Match) ([]neardup.Match, error) {
	s.record("Verify")
	return c, nil
}

// ctxStage is plainStage with the Context methods, which record
// "MethodContext:<the ctxKey value of ctx>".
type ctxStage struct{ *plainStage }

func newCtx() ctxStage { return ctxStage{newPlain()} }

func (s ctxStage) recordCtx(method string, ctx context.Context) {
	v, _ := ctx.Value(ctxKey{}).(string)
	s.record(method + ":" + v)
}

func (s ctxStage) MatchContext(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	s.recordCtx("MatchContext", ctx)
	return s.match(d), nil
}

func (s ctxStage) AddContext(ctx context.Context, d *neardup.Document) error {
	s.recordCtx("AddContext", ctx)
	return s.add(d)
}

func (s ctxStage) RemoveContext(ctx context.Context, id string) error {
	s.recordCtx("RemoveContext", ctx)
	return s.remove(id)
}

func (s ctxStage) VerifyContext(ctx context.Context, d *neardup.Document, c []neardup.Match) ([]neardup.Match, error) {
	s.recordCtx("VerifyContext", ctx)
	return c, nil
}

// onePart sends every document to part 0.
type onePart struct{}

func (onePart) Partition(*neardup.Document) ([]int, error) { return []int{0}, nil }

// contextComposition is the Context methods a composition offers.
type contextComposition interface {
	neardup.Detector
	neardup.MatchAdder
	neardup.ContextDetector
	neardup.ContextRemover
	neardup.ContextMatchAdder
	neardup.ContextReplacer
}

// compositions returns a Cascade, a Window and a Partitioned over stages of
// newStage, and each one's stages.
func compositions(t *testing.T, newStage func() neardup.Detector) map[string]func() (contextComposition, []neardup.Detector) {
	t.Helper()
	return map[string]func() (contextComposition, []neardup.Detector){
		"Cascade": func() (contextComposition, []neardup.Detector) {
			a, b := newStage(), newStage()
			c, err := neardup.NewCascade(a, b)
			if err != nil {
				t.Fatal(err)
			}
			return c, []neardup.Detector{a, b}
		},
		"Window": func() (contextComposition, []neardup.Detector) {
			a := newStage()
			w, err := neardup.NewWindow(a, neardup.WindowOptions{MaxDocuments: 2})
			if err != nil {
				t.Fatal(err)
			}
			return w, []neardup.Detector{a}
		},
		"Partitioned": func() (contextComposition, []neardup.Detector) {
			a := newStage()
			p, err := neardup.NewPartitioned(onePart{}, func(int) (neardup.Detector, error) { return a, nil })
			if err != nil {
				t.Fatal(err)
			}
			return p, []neardup.Detector{a}
		},
	}
}

// cdoc returns a document with an empty Page.
func cdoc(id string) *neardup.Document { return &neardup.Document{ID: id, Page: &preprocess.Page{}} }

// exercise calls every write and read of c, through the Context methods
// with ctx when ctx is not nil, else through the plain ones; the Window's
// MaxDocuments of 2 makes the third add evict.
func exercise(t *testing.T, c contextComposition, ctx context.Context) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if ctx == nil {
		must(c.Add(cdoc("a1")))
		_, _, err := c.MatchOrAdd(cdoc("b1"))
		must(err)
		_, _, err = c.MatchOrAdd(cdoc("c1"))
		must(err)
		_, err = c.Match(cdoc("c2"))
		must(err)
		_, _, err = c.(neardup.Replacer).Replace(cdoc("c1"))
		must(err)
		must(c.(neardup.Remover).Remove("c1"))
		return
	}
	must(c.AddContext(ctx, cdoc("a1")))
	_, _, err := c.MatchOrAddContext(ctx, cdoc("b1"))
	must(err)
	_, _, err = c.MatchOrAddContext(ctx, cdoc("c1"))
	must(err)
	_, err = c.MatchContext(ctx, cdoc("c2"))
	must(err)
	_, _, err = c.ReplaceContext(ctx, cdoc("c1"))
	must(err)
	must(c.RemoveContext(ctx, "c1"))
}

// The Context methods of Cascade, Window and Partitioned pass the caller's
// context to every call of a stage that takes one; their plain methods call
// the stages' plain methods.
func TestContextForwarded(t *testing.T) {
	for name, make := range compositions(t, func() neardup.Detector { return newCtx() }) {
		t.Run(name, func(t *testing.T) {
			c, stages := make()
			ctx := context.WithValue(context.Background(), ctxKey{}, "v1")
			exercise(t, c, ctx)
			for i, s := range stages {
				calls := s.(ctxStage).calls()
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
				for _, m := range []string{"AddContext", "RemoveContext"} {
					if !methods[m] {
						t.Errorf("stage %d: no %s in %v", i, m, calls)
					}
				}
				if !methods["MatchContext"] && !methods["VerifyContext"] {
					t.Errorf("stage %d: neither MatchContext nor VerifyContext in %v", i, calls)
				}
			}

			c, stages = make()
			exercise(t, c, nil)
			for i, s := range stages {
				for _, call := range s.(ctxStage).calls() {
					if strings.Contains(call, "Context") {
						t.Errorf("stage %d: a plain method of the composition called %s", i, call)
					}
				}
			}
		})
	}
}

// A stage without Context methods is called through its plain methods; a
// done context stops the call before any stage is called.
func TestContextFallback(t *testing.T) {
	for name, make := range compositions(t, func() neardup.Detector { return newPlain() }) {
		t.Run(name, func(t *testing.T) {
			c, stages := make()
			exercise(t, c, context.WithValue(context.Background(), ctxKey{}, "v1"))
			for i, s := range stages {
				if calls := s.(*plainStage).calls(); len(calls) < 4 {
					t.Errorf("stage %d: only %v", i, calls)
				}
			}

			c, stages = make()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, _, err := c.MatchOrAddContext(ctx, cdoc("a1")); !errors.Is(err, context.Canceled) {
				t.Errorf("MatchOrAddContext with a cancelled context: %v, want context.Canceled", err)
			}
			if err := c.AddContext(ctx, cdoc("a1")); !errors.Is(err, context.Canceled) {
				t.Errorf("AddContext with a cancelled context: %v, want context.Canceled", err)
			}
			for i, s := range stages {
				if calls := s.(*plainStage).calls(); len(calls) > 0 {
					t.Errorf("stage %d called after the context was done: %v", i, calls)
				}
			}
		})
	}
}

// A Cascade's later stages get the context through VerifyContext, and a
// Cascade used as a stage passes it on.
func TestContextNestedCascade(t *testing.T) {
	a, b, c := newCtx(), newCtx(), newCtx()
	inner, err := neardup.NewCascade(b, c)
	if err != nil {
		t.Fatal(err)
	}
	outer, err := neardup.NewCascade(a, inner)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, "v2")
	if _, _, err := outer.MatchOrAddContext(ctx, cdoc("a1")); err != nil {
		t.Fatal(err)
	}
	if ms, _, err := outer.MatchOrAddContext(ctx, cdoc("a2")); err != nil || len(ms) != 1 {
		t.Fatalf("MatchOrAddContext(a2) = %v, %v; want a1", ms, err)
	}
	for i, s := range []ctxStage{a, b, c} {
		calls := s.calls()
		want := "VerifyContext:v2"
		if i == 0 {
			want = "MatchContext:v2"
		}
		if !slices.Contains(calls, want) || !slices.Contains(calls, "AddContext:v2") {
			t.Errorf("stage %d: %v, want %s and AddContext:v2", i, calls, want)
		}
	}
}
