package shingle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/neardup/neardup"
)

// TestFig6RemovesD3: Table 4's pair D2, D3 is below 0.2; D3 is closer to the
// other document D1 (0.250 against 0.333 for D2), so the rule removes D3.
// With Normalized (threshold 0.05: only D2, D3 are below it) the same rule
// removes D3 (0.094 from D1 against 0.113 for D2).
func TestFig6RemovesD3(t *testing.T) {
	for _, f := range []Form{Equation, TableForm, Normalized} {
		t.Run(f.String(), func(t *testing.T) {
			docs := []*neardup.Document{
				docWithVector(t, "D1", table2(t, 0)),
				docWithVector(t, "D2", table2(t, 1)),
				docWithVector(t, "D3", table2(t, 2)),
			}
			o := Options{M: 3, Form: f}
			if f == Normalized {
				o.Threshold = 0.05
			}
			gs, err := Dedup(t.Context(), docs, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(gs) != 1 {
				t.Fatalf("groups = %+v, want one", gs)
			}
			g := gs[0]
			if !slices.Equal(g.IDs, []string{"D2", "D3"}) || !slices.Equal(g.Keep, []string{"D2"}) || len(g.Removed) != 1 {
				t.Fatalf("group = %+v, want D2, D3 keeping D2", g)
			}
			r := g.Removed[0]
			want := map[Form][3]float64{
				Equation: {0.140, 0.292, 0.355}, TableForm: {0.082, 0.250, 0.333},
				Normalized: {0.140 / (1.680 + 1.648), 0.292 / (1.462 + 1.648), 0.355 / (1.462 + 1.680)},
			}[f]
			if r.ID != "D3" || r.Duplicate != "D2" ||
				math.Abs(r.Score-want[0]) > 0.001 || math.Abs(r.Nearest-want[1]) > 0.001 || math.Abs(r.DuplicateNearest-want[2]) > 0.001 {
				t.Errorf("removal = %+v, want D3 (pair %.3f, D3–D1 %.3f, D2–D1 %.3f)", r, want[0], want[1], want[2])
			}
		})
	}
}

func TestDedupErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	docs := []*neardup.Document{doc("a", "x", "y"), doc("b", "x", "y")}
	if _, err := Dedup(ctx, docs, Options{Form: Equation}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
	if _, err := Dedup(t.Context(), []*neardup.Document{doc("a", "x"), doc("a", "y")}, Options{Form: Equation}); !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("duplicate IDs: err = %v", err)
	}
	gs, err := Dedup(t.Context(), docs, Options{Form: Equation})
	if err != nil || len(gs) != 1 || !slices.Equal(gs[0].Keep, []string{"a"}) || !math.IsInf(gs[0].Removed[0].Nearest, 1) {
		t.Errorf("two equal pages = %+v, %v; want a kept, b removed on a tie (+Inf)", gs, err)
	}
	if gs, err := Dedup(t.Context(), nil, Options{Form: Equation}); err != nil || len(gs) != 0 {
		t.Errorf("no documents = %v, %v", gs, err)
	}
}

// TestDedupMatchesExhaustive: on synthetic pages, the groups are the connected
// components of the exhaustive pair relation, every group keeps at least one
// page, no two kept pages are near-duplicates, and each removal follows the
// rule computed by brute force; with Form Equation and Normalized.
func TestDedupMatchesExhaustive(t *testing.T) {
	pages := synthetic(3, 300, 5, 250)
	vs := make([]*Vector, len(pages))
	docs := make([]*neardup.Document, len(pages))
	for i, p := range pages {
		vs[i], _ = NewVector(p, 4)
		docs[i] = doc(fmt.Sprint(i), p...)
	}
	for _, o := range []Options{{Threshold: 1.5, Form: Equation}, {Threshold: DefaultThreshold, Form: Normalized}} {
		t.Run(o.Form.String(), func(t *testing.T) { dedupMatchesExhaustive(t, docs, vs, o) })
	}
}

func dedupMatchesExhaustive(t *testing.T, docs []*neardup.Document, vs []*Vector, o Options) {
	gs, err := Dedup(t.Context(), docs, o)
	if err != nil {
		t.Fatal(err)
	}
	near := exhaustive(vs, o)
	inPair := map[int]bool{}
	for i, js := range near {
		for _, j := range js {
			inPair[i], inPair[j] = true, true
		}
	}
	idx := func(id string) (i int) { fmt.Sscan(id, &i); return }
	grouped := 0
	for _, g := range gs {
		grouped += len(g.IDs)
		if len(g.Keep) == 0 || len(g.Keep)+len(g.Removed) != len(g.IDs) {
			t.Errorf("group %+v: bad counts", g)
		}
		for _, a := range g.Keep {
			for _, b := range g.Keep {
				if i, j := idx(a), idx(b); i > j && slices.Contains(near[i], j) {
					t.Errorf("kept %d and %d are near-duplicates", i, j)
				}
			}
		}
		for _, r := range g.Removed {
			i, j := idx(r.ID), idx(r.Duplicate)
			ni, nj := math.Inf(1), math.Inf(1)
			for k := range vs {
				if k != i && k != j {
					ni = min(ni, Dissimilarity(vs[i], vs[k], o.Form))
					nj = min(nj, Dissimilarity(vs[j], vs[k], o.Form))
				}
			}
			if math.Abs(ni-r.Nearest) > 1e-6 || math.Abs(nj-r.DuplicateNearest) > 1e-6 || ni > nj+1e-9 {
				t.Errorf("removal %+v: brute force nearest %v (removed), %v (kept)", r, ni, nj)
			}
		}
	}
	if grouped != len(inPair) {
		t.Errorf("%d pages grouped, %d in exhaustive pairs", grouped, len(inPair))
	}
	t.Logf("%v threshold %g: %d groups, %d pages grouped, %d removed", o.Form, o.Threshold, len(gs), grouped, grouped-len(gs))
}
