package shingle

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
)

// Group is one set of near-duplicate documents found by Dedup: the connected
// component of the "dissimilarity < threshold" relation, so two members need
// not be near-duplicates of each other directly.
type Group struct {
	// IDs are the members, in input order.
	IDs []string
	// Keep are the members the rule keeps, in input order: at least one,
	// and no two of them are near-duplicates.
	Keep []string
	// Removed are the other members, in the order the rule removed them.
	Removed []Removal
}

// Removal records why Dedup removed a document.
type Removal struct {
	// ID is the removed document.
	ID string
	// Duplicate is the document of the pair that stayed.
	Duplicate string
	// Score is the dissimilarity of the pair.
	Score float64
	// Nearest is the dissimilarity of ID to the closest document of the set
	// other than Duplicate, and DuplicateNearest that of Duplicate other
	// than ID: the rule removes the one with the smaller value. +Inf when
	// the set has no third document.
	Nearest, DuplicateNearest float64
}

// Dedup groups docs into near-duplicate groups and chooses which documents
// each group keeps, by the rule of Khan et al. Fig. 6: the near-duplicate pairs
// are taken closest first, and of a pair whose two documents are both still
// kept, the one whose dissimilarity to the other documents of the set (its
// nearest one, the pair's partner excepted) is smaller is removed; it is the
// more redundant one. In Table 4, D2 and D3 are the pair; D3 is 0.250 from D1
// and D2 0.333, so D3 goes. Ties remove the document later in docs.
//
// Only groups of two or more documents are returned, ordered by their first
// member's position in docs. Every document of docs not in a returned group
// is unique. Dedup finds the same pairs as comparing every pair (with Form
// Equation or Normalized; see Detector) and uses every CPU. It stops early with ctx.Err()
// when ctx is done. Errors wrap neardup.ErrNilDocument, neardup.ErrNoFeatures
// (a document without tokens: Dedup cannot decide for it),
// neardup.ErrDuplicateID (an ID given twice) or neardup.ErrInvalidOption.
//
// Cost: building the vectors, the pairs through the prefix index as for
// Detector.Match, then for each grouped document with a single near-duplicate
// a search for its nearest other document over the whole set (best first by
// an O(M) lower bound, so most of the set is never merged).
func Dedup(ctx context.Context, docs []*neardup.Document, o Options) ([]Group, error) {
	o, err := o.resolve()
	if err != nil {
		return nil, err
	}
	o.MaxPatterns = NoLimit // the vectors are in memory already: compare them whole
	o.MaxPostings = NoLimit // and find every pair
	ids := make(map[string]int, len(docs))
	for i, d := range docs {
		if err := neardup.Check(d); err != nil {
			return nil, fmt.Errorf("shingle: Dedup document %d: %w", i, err)
		}
		if j, ok := ids[d.ID]; ok {
			return nil, fmt.Errorf("shingle: Dedup %q at %d and %d: %w", d.ID, j, i, neardup.ErrDuplicateID)
		}
		ids[d.ID] = i
	}
	vs := make([]*Vector, len(docs))
	if err := parallel(ctx, len(docs), func(i int) (err error) {
		vs[i], err = VectorOf(docs[i], o.M)
		return err
	}); err != nil {
		return nil, err
	}
	b := &batch{o: o, vs: vs}
	if err := b.pairs(ctx); err != nil {
		return nil, err
	}
	if err := b.nearest(ctx); err != nil {
		return nil, err
	}
	return b.groups(docs), nil
}

type neighbour struct {
	j int
	d float64
}

type batch struct {
	o    Options
	vs   []*Vector
	near [][]neighbour // near[i]: documents within the threshold of i, closest first
	// best2[i]: the two closest documents to i over the whole set, for the
	// documents that have a near-duplicate.
	best2 [][2]neighbour
}

// pairs fills b.near with every pair below the threshold, through the prefix
// index of Detector (handle i is document i).
func (b *batch) pairs(ctx context.Context) error {
	st := newStore(b.o, new(atomic.Int64))
	for i, v := range b.vs {
		_ = st.Insert(detector.Handle(i), v) // never fails
	}
	found := make([][]neighbour, len(b.vs))
	err := parallel(ctx, len(b.vs), func(i int) error {
		for _, x := range st.Search(b.vs[i], nil) {
			if j := int(x.H); j != i {
				found[i] = append(found[i], neighbour{j, x.Dist})
			}
		}
		slices.SortFunc(found[i], func(x, y neighbour) int { return cmp.Or(cmp.Compare(x.d, y.d), cmp.Compare(x.j, y.j)) })
		return nil
	})
	b.near = found
	return err
}

// nearest fills b.best2 for every document with a near-duplicate.
func (b *batch) nearest(ctx context.Context) error {
	b.best2 = make([][2]neighbour, len(b.vs))
	return parallel(ctx, len(b.vs), func(i int) error {
		inf := neighbour{-1, math.Inf(1)}
		switch nr := b.near[i]; {
		case len(nr) == 0:
		case len(nr) >= 2:
			b.best2[i] = [2]neighbour{nr[0], nr[1]}
		default:
			// The second closest lies at or beyond the threshold.
			b.best2[i] = [2]neighbour{nr[0], b.closest(i, nr[0].j)}
		}
		if len(b.near[i]) == 0 {
			b.best2[i] = [2]neighbour{inf, inf}
		}
		return nil
	})
}

// closest returns the document closest to i other than i and skip, or
// {-1, +Inf} when there is none. Documents are merged in order of their lower
// bound, and the search stops at the first bound not below the best found.
func (b *batch) closest(i, skip int) neighbour {
	v := b.vs[i]
	type cand struct {
		j  int
		lb float64
	}
	norm := b.o.Form == Normalized
	cs := make([]cand, 0, len(b.vs))
	for j, w := range b.vs {
		if j != i && j != skip {
			lb := lowerBound(v, w)
			if norm {
				lb /= v.total + w.total
			}
			cs = append(cs, cand{j, lb})
		}
	}
	slices.SortFunc(cs, func(x, y cand) int { return cmp.Or(cmp.Compare(x.lb, y.lb), cmp.Compare(x.j, y.j)) })
	best := neighbour{-1, math.Inf(1)}
	for _, c := range cs {
		if c.lb >= best.d {
			break
		}
		var d float64
		switch w := b.vs[c.j]; b.o.Form {
		case TableForm:
			d = c.lb
		case Normalized:
			// Stopped early, the partial sum is ≥ best.d·(S_v + S_w).
			sum := v.total + w.total
			d = equationBounded(v, w, best.d*sum) / sum
		default:
			d = equationBounded(v, w, best.d)
		}
		if d < best.d {
			best = neighbour{c.j, d}
		}
	}
	return best
}

// groups applies the removal rule and collects the groups.
func (b *batch) groups(docs []*neardup.Document) []Group {
	type pair struct {
		a, b int
		d    float64
	}
	var ps []pair
	parent := make([]int, len(b.vs))
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for i, nr := range b.near {
		for _, n := range nr {
			if i < n.j {
				ps = append(ps, pair{i, n.j, n.d})
			}
			if ri, rj := find(i), find(n.j); ri != rj {
				parent[max(ri, rj)] = min(ri, rj)
			}
		}
	}
	slices.SortFunc(ps, func(x, y pair) int {
		return cmp.Or(cmp.Compare(x.d, y.d), cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	// nearestExcept is the rule's criterion: i's dissimilarity to the
	// closest document of the set other than j.
	nearestExcept := func(i, j int) float64 {
		if b2 := b.best2[i]; b2[0].j != j {
			return b2[0].d
		} else {
			return b2[1].d
		}
	}
	removed := make([]bool, len(b.vs))
	byRoot := make(map[int]*Group)
	var roots []int
	group := func(i int) *Group {
		r := find(i)
		g, ok := byRoot[r]
		if !ok {
			g = new(Group)
			byRoot[r] = g
			roots = append(roots, r)
		}
		return g
	}
	for _, p := range ps {
		if removed[p.a] || removed[p.b] {
			continue
		}
		na, nb := nearestExcept(p.a, p.b), nearestExcept(p.b, p.a)
		gone, stay := p.b, p.a // a tie removes the later document
		if na < nb {
			gone, stay = p.a, p.b
		}
		removed[gone] = true
		r := Removal{ID: docs[gone].ID, Duplicate: docs[stay].ID, Score: p.d, Nearest: na, DuplicateNearest: nb}
		if gone == p.b {
			r.Nearest, r.DuplicateNearest = nb, na
		}
		g := group(gone)
		g.Removed = append(g.Removed, r)
	}
	for i := range b.vs {
		if len(b.near[i]) == 0 {
			continue
		}
		g := group(i)
		g.IDs = append(g.IDs, docs[i].ID)
		if !removed[i] {
			g.Keep = append(g.Keep, docs[i].ID)
		}
	}
	slices.Sort(roots) // a root is its component's smallest index
	out := make([]Group, 0, len(roots))
	for _, r := range roots {
		out = append(out, *byRoot[r])
	}
	return out
}

// parallel runs f(0..n-1) on GOMAXPROCS goroutines and returns the first
// error, or ctx.Err() once ctx is done.
func parallel(ctx context.Context, n int, f func(i int) error) error {
	var next atomic.Int64
	var once sync.Once
	var first error
	fail := func(err error) { once.Do(func() { first = err }) }
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					fail(err)
					next.Store(int64(n))
					return
				}
				if err := f(i); err != nil {
					fail(err)
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
