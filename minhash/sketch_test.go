package minhash

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// exactJaccard is the Jaccard similarity of two sets of element hashes.
func exactJaccard(a, b map[uint32]bool) float64 {
	both := 0
	for x := range a {
		if b[x] {
			both++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}

// randomSets returns two sets of n elements sharing shared of them.
func randomSets(r *rand.Rand, n, shared int) (a, b []uint64) {
	for i := range n {
		x := r.Uint64()
		a = append(a, x)
		if i < shared {
			b = append(b, x)
		} else {
			b = append(b, r.Uint64())
		}
	}
	return a, b
}

func sketchOf(elems []uint64, k int) (Sketch, map[uint32]bool) {
	bd := NewBuilder(k, 1)
	set := map[uint32]bool{}
	for _, e := range elems {
		bd.AddElement(e)
		set[fold(e)] = true
	}
	return bd.Sketch(), set
}

// Jaccard estimates within a few standard errors of the exact similarity,
// and is exact for sets smaller than k.
func TestJaccardEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ n, shared, k int }{
		{1000, 800, 128}, {1000, 500, 128}, {1000, 100, 128}, {5000, 2500, 256}, {50, 30, 128}, {100, 100, 64},
	} {
		a, b := randomSets(r, c.n, c.shared)
		sa, seta := sketchOf(a, c.k)
		sb, setb := sketchOf(b, c.k)
		want := exactJaccard(seta, setb)
		got := Jaccard(sa, sb, c.k)
		tol := 4 * math.Sqrt(want*(1-want)/float64(c.k))
		if c.n < c.k {
			tol = 1e-12
		}
		if math.Abs(got-want) > tol+1e-9 {
			t.Errorf("n %d shared %d k %d: Jaccard %.3f, exact %.3f (tolerance %.3f)", c.n, c.shared, c.k, got, want, tol)
		}
		if len(sa) != min(c.k, len(seta)) || !slices.IsSorted(sa) {
			t.Errorf("sketch of %d hashes (k %d, set %d), sorted %v", len(sa), c.k, len(seta), slices.IsSorted(sa))
		}
	}
	if d := Distance(nil, nil, 8); d != 0 {
		t.Errorf("two empty sketches: distance %v, want 0", d)
	}
	if d := Distance(nil, Sketch{1}, 8); d != 1 {
		t.Errorf("empty and non-empty: distance %v, want 1", d)
	}
}

// The Builder keeps the k smallest distinct hashes, whatever the order and
// repetition of the elements.
func TestBuilderBottomK(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{1, 2, 16, 128} {
		var elems []uint64
		for range 3000 {
			elems = append(elems, r.Uint64N(2000)*0x9e3779b97f4a7c15)
		}
		got, set := sketchOf(elems, k)
		var want Sketch
		for x := range set {
			want = append(want, x)
		}
		slices.Sort(want)
		want = want[:min(k, len(want))]
		if !slices.Equal(got, want) {
			t.Fatalf("k %d: sketch differs from the k smallest distinct hashes", k)
		}
	}
}

// A Builder Reset sketches the next set as a new Builder would; shingles of
// a stream shorter than w make one shingle.
func TestBuilderReset(t *testing.T) {
	b := NewBuilder(32, 3)
	for _, w := range []string{"a", "b", "c", "d", "e"} {
		b.Add(w)
	}
	first := b.Sketch()
	b.Reset()
	for _, w := range []string{"a", "b", "c", "d", "e"} {
		b.Add(w)
	}
	if !slices.Equal(first, b.Sketch()) || len(first) != 3 {
		t.Fatalf("after Reset %v, first %v (want 3 shingles)", b.Sketch(), first)
	}
	if s := SketchOf([]string{"x", "y"}, 8, 4); len(s) != 1 {
		t.Fatalf("two tokens, width 4: %d hashes, want 1", len(s))
	}
	if s := SketchOf(nil, 8, 4); len(s) != 0 {
		t.Fatalf("no token: %d hashes", len(s))
	}
}

func BenchmarkJaccard(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, shared := range []int{900, 500, 0} {
		x, y := randomSets(r, 1000, shared)
		sx, _ := sketchOf(x, 128)
		sy, _ := sketchOf(y, 128)
		b.Run(fmt.Sprintf("shared=%d", shared), func(b *testing.B) {
			for b.Loop() {
				Jaccard(sx, sy, 128)
			}
		})
	}
}

func BenchmarkBuilder(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	toks := make([]uint64, 1000)
	for i := range toks {
		toks[i] = r.Uint64()
	}
	bd := NewBuilder(128, 4)
	for b.Loop() {
		bd.Reset()
		for _, t := range toks {
			bd.AddHash(t)
		}
		_ = bd.Sketch()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(toks)), "ns/token")
}

// The Index returns exactly the IDs filed under a query's keys, once each,
// through inserts and removals, and drops a key that passes MaxPostings.
// With NoLimit, keys are filed under up to a few hundred IDs, so that
// their blocks grow and shrink through several classes (catches an ID lost
// or kept when a block moves, or a freed block still in use).
func TestIndex(t *testing.T) {
	for _, c := range []struct {
		maxPostings, ids, small int
	}{{4, 40, 30}, {NoLimit, 600, 4}} {
		x, err := NewIndex(IndexOptions{Keys: 3, MaxPostings: c.maxPostings})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(9, 10))
		filed := map[uint32][]uint32{} // id -> keys
		want := func(keys []uint32) []uint32 {
			var ids []uint32
			for id, ks := range filed {
				for _, k := range ks {
					if slices.Contains(keys, k) {
						ids = append(ids, id)
						break
					}
				}
			}
			slices.Sort(ids)
			return ids
		}
		keys := func() []uint32 {
			return []uint32{uint32(r.IntN(c.small)), uint32(30 + r.IntN(c.small)), uint32(60 + r.IntN(300))}
		}
		for step := range 20 * c.ids {
			id := uint32(r.IntN(c.ids))
			if ks, ok := filed[id]; ok && r.IntN(2) == 0 {
				x.Remove(id, ks)
				delete(filed, id)
			} else if !ok {
				ks := keys()
				x.Insert(id, ks)
				filed[id] = ks
			}
			// Keys that passed the bound are no longer searched: leave them
			// out of the expectation.
			q := keys()
			got := x.Candidates(q, nil)
			var live []uint32
			for _, k := range q {
				if !x.stoppedKey(k) {
					live = append(live, k)
				}
			}
			if w := want(live); !slices.Equal(got, w) {
				t.Fatalf("MaxPostings %d, step %d: candidates of %v = %v, want %v", c.maxPostings, step, q, got, w)
			}
			if c.maxPostings == NoLimit && x.Len() != 3*len(filed) {
				t.Fatalf("step %d: Len = %d, want %d", step, x.Len(), 3*len(filed))
			}
		}
		if c.maxPostings > 0 && x.Stopped() == 0 {
			t.Errorf("no key passed MaxPostings %d among %d IDs", c.maxPostings, c.ids)
		}
	}
	if _, err := NewIndex(IndexOptions{Keys: -1}); err == nil {
		t.Error("NewIndex with Keys -1: no error")
	}
}
