package sketch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
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
		bd.push(e)
		set[fold(e)] = true
	}
	return bd.Sketch(), set
}

// Distance estimates within a few standard errors of the exact similarity,
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
		got := 1 - Distance(sa, sb, c.k)
		tol := 4 * math.Sqrt(want*(1-want)/float64(c.k))
		if c.n < c.k {
			tol = 1e-12
		}
		if math.Abs(got-want) > tol+1e-9 {
			t.Errorf("n %d shared %d k %d: estimate %.3f, exact %.3f (tolerance %.3f)", c.n, c.shared, c.k, got, want, tol)
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
	b = NewBuilder(8, 4)
	b.Add("x")
	b.Add("y")
	if s := b.Sketch(); len(s) != 1 {
		t.Fatalf("two tokens, width 4: %d hashes, want 1", len(s))
	}
	if b.Reset(); len(b.Sketch()) != 0 {
		t.Fatalf("no token: %d hashes", len(b.Sketch()))
	}
}

func BenchmarkDistance(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, shared := range []int{900, 500, 0} {
		x, y := randomSets(r, 1000, shared)
		sx, _ := sketchOf(x, 128)
		sy, _ := sketchOf(y, 128)
		b.Run(fmt.Sprintf("shared=%d", shared), func(b *testing.B) {
			for b.Loop() {
				Distance(sx, sy, 128)
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

// TestBuilderClampsK: a k above MaxSize is lowered to it instead of
// allocating in proportion to k (k = 1<<30 reached gigabytes), and k < 1 is
// raised to 1. Fails when NewBuilder sizes its heap and set by k unclamped.
func TestBuilderClampsK(t *testing.T) {
	for _, c := range []struct{ k, want int }{{1 << 22, MaxSize}, {MaxSize + 1, MaxSize}, {MaxSize, MaxSize}, {0, 1}, {-5, 1}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b := NewBuilder(c.k, 1)
		runtime.ReadMemStats(&after)
		if b.k != c.want || cap(b.heap) != c.want {
			t.Errorf("NewBuilder(%d, 1) keeps %d hashes (heap of %d), want %d", c.k, b.k, cap(b.heap), c.want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
			t.Errorf("NewBuilder(%d, 1) allocated %d bytes, want at most 64 KiB", c.k, got)
		}
	}
}
