package minhash

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func sketchOf(k, w int, text string) Sketch {
	b := NewBuilder(k, w)
	for _, t := range strings.Fields(text) {
		b.Add(t)
	}
	return b.Sketch()
}

// exactShingles is the reference: every distinct shingle hash, sorted.
func exactShingles(w int, tokens []string) Sketch {
	b := NewBuilder(len(tokens)+1, w)
	for _, t := range tokens {
		b.Add(t)
	}
	return b.Sketch()
}

func TestSketchIsBottomK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 3, 4, 10, 300, 5000} {
		tokens := make([]string, n)
		for i := range tokens {
			tokens[i] = fmt.Sprint("w", r.IntN(n/3+2))
		}
		all := exactShingles(4, tokens)
		for _, k := range []int{1, 16, 256} {
			got := sketchOf(k, 4, strings.Join(tokens, " "))
			want := all[:min(k, len(all))]
			if !slices.Equal(got, want) {
				t.Fatalf("n %d k %d: sketch %v..., want the %d smallest of %d", n, k, got[:min(4, len(got))], len(want), len(all))
			}
		}
		if n > 0 && n < 4 && len(all) != 1 {
			t.Errorf("n %d < w: %d shingles, want 1", n, len(all))
		}
	}
}

func TestDistance(t *testing.T) {
	a := sketchOf(64, 4, "the quick brown fox jumps over the lazy dog")
	if d := Distance(a, a, 64); d != 0 {
		t.Errorf("D(a, a) = %v", d)
	}
	if d := Distance(a, nil, 64); d != 1 {
		t.Errorf("D(a, empty) = %v", d)
	}
	if d := Distance(nil, nil, 64); d != 0 {
		t.Errorf("D(empty, empty) = %v", d)
	}
	// Estimates track the exact Jaccard distance of large sets.
	r := rand.New(rand.NewPCG(3, 4))
	base := make([]string, 3000)
	for i := range base {
		base[i] = fmt.Sprint("t", r.IntN(100000))
	}
	for _, edits := range []int{0, 30, 300, 1500} {
		other := slices.Clone(base)
		for range edits {
			other[r.IntN(len(other))] = fmt.Sprint("x", r.IntN(100000))
		}
		ea, eb := exactShingles(4, base), exactShingles(4, other)
		exact := 1 - jaccard(ea, eb)
		est := Distance(sketchOf(256, 4, strings.Join(base, " ")), sketchOf(256, 4, strings.Join(other, " ")), 256)
		if math.Abs(est-exact) > 0.1 {
			t.Errorf("%d edits: estimate %.3f, exact %.3f", edits, est, exact)
		}
	}
}

func jaccard(a, b Sketch) float64 {
	in := 0
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			in++
		}
	}
	return float64(in) / float64(len(a)+len(b)-in)
}

func BenchmarkBuilder(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	tokens := make([]string, 2000)
	for i := range tokens {
		tokens[i] = fmt.Sprint("t", r.IntN(20000))
	}
	bl := NewBuilder(256, 4)
	b.ReportAllocs()
	for b.Loop() {
		bl.Reset()
		for _, t := range tokens {
			bl.Add(t)
		}
		_ = bl.Sketch()
	}
}
