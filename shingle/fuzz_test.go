package shingle

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// FuzzPatterns checks the pattern extractor's invariants on arbitrary token
// sequences: keys strictly increasing, k in 1..M and k = the key's size,
// weights normalised to unit length, group sums adding to the vector total,
// D(d, d) = 0, symmetry, the lower bound, and agreement of the merge with
// the union form of Eq. (1); for Normalized, 0 ≤ D ≤ 1, D(d, d) = 0,
// symmetry, D = Eq. (1)/(S_a + S_b), and the scaled lower bound.
func FuzzPatterns(f *testing.F) {
	f.Add("new delhi is the capital of india", "new delhi is a capital of india", 4)
	f.Add("web content outlier mining web content", "web web web", 3)
	f.Add("a", "b", 1)
	f.Add("a a a a a a a a", "a", 8)
	f.Add("数据 据挖 挖掘", "数据 据挖", 2)
	f.Fuzz(func(t *testing.T, s1, s2 string, m int) {
		if m < 1 || m > MaxM || len(s1) > 4096 || len(s2) > 4096 {
			return
		}
		t1, t2 := strings.Fields(s1), strings.Fields(s2)
		a, err := NewVector(t1, m)
		if len(t1) == 0 {
			if err == nil {
				t.Fatal("no error for no tokens")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		check(t, a, t1, m)
		if d := Dissimilarity(a, a, Equation); d != 0 {
			t.Fatalf("D(a, a) = %v", d)
		}
		b, err := NewVector(t2, m)
		if err != nil {
			return
		}
		check(t, b, t2, m)
		dab, dba := Dissimilarity(a, b, Equation), Dissimilarity(b, a, Equation)
		if dab != dba || dab < 0 {
			t.Fatalf("D(a, b) = %v, D(b, a) = %v", dab, dba)
		}
		if u := equationBounded(a, b, math.Inf(1)); math.Abs(u-dab) > 1e-9*max(1, dab) {
			t.Fatalf("merge %v, union form %v", dab, u)
		}
		if lb := lowerBound(a, b); lb > dab+1e-9 {
			t.Fatalf("lower bound %v > D %v", lb, dab)
		}
		if tf := Dissimilarity(a, b, TableForm); tf != Dissimilarity(b, a, TableForm) || tf > dab+1e-9 {
			t.Fatalf("TableForm %v, Equation %v", tf, dab)
		}
		if d := Dissimilarity(a, a, Normalized); d != 0 {
			t.Fatalf("Normalized D(a, a) = %v", d)
		}
		nab, nba := Dissimilarity(a, b, Normalized), Dissimilarity(b, a, Normalized)
		if nab != nba || !(nab >= 0 && nab <= 1) {
			t.Fatalf("Normalized D(a, b) = %v, D(b, a) = %v", nab, nba)
		}
		sum := a.total + b.total
		if math.Abs(nab*sum-dab) > 1e-9*max(1, dab) {
			t.Fatalf("Normalized %v · (S_a + S_b) %v ≠ Equation %v", nab, sum, dab)
		}
		if lb := lowerBound(a, b) / sum; lb > nab+1e-9 || math.Abs(a.total-b.total)/sum > lb+1e-9 {
			t.Fatalf("Normalized lower bound %v, D %v, length bound %v", lb, nab, math.Abs(a.total-b.total)/sum)
		}
	})
}

func check(t *testing.T, v *Vector, tokens []string, m int) {
	t.Helper()
	if v.M() != m {
		t.Fatalf("M = %d, want %d", v.M(), m)
	}
	var sq, total float64
	maxK := min(m, len(tokens))
	for i := range v.Len() {
		key, k, w := v.Pattern(i)
		if i > 0 {
			if prev, _, _ := v.Pattern(i - 1); prev >= key {
				t.Fatalf("keys not increasing at %d", i)
			}
		}
		if k < 1 || k > maxK || KeySize(key) != k {
			t.Fatalf("pattern %d: k = %d, M = %d, %d tokens", i, k, m, len(tokens))
		}
		if w <= 0 || w > 1+1e-6 {
			t.Fatalf("pattern %d: weight %v", i, w)
		}
		sq += w * w
		total += w * float64(k) / float64(m)
	}
	if math.Abs(sq-1) > 1e-4 {
		t.Fatalf("Σ norm² = %v, want 1", sq)
	}
	var groups float64
	for k := 1; k <= m; k++ {
		groups += v.GroupSum(k)
	}
	if math.Abs(groups-total) > 1e-4 || math.Abs(v.total-total) > 1e-4 {
		t.Fatalf("group sums %v, total %v, Σ terms %v", groups, v.total, total)
	}
	// Every shingle of the tokens is a pattern of the vector.
	if len(tokens) <= 64 {
		keys := map[uint64]bool{}
		for i := range v.Len() {
			key, _, _ := v.Pattern(i)
			keys[key] = true
		}
		n := 0
		for k := 1; k <= maxK; k++ {
			for _, s := range Shingles(tokens, k) {
				if !keys[PatternKey(s)] {
					t.Fatalf("shingle %q missing", s)
				}
				n++
			}
		}
		if len(keys) > n {
			t.Fatalf("%d patterns from %d shingles", len(keys), n)
		}
	}
}

// FuzzReadFrom feeds ReadFrom arbitrary bytes, seeded with real snapshots: it
// must never panic, and a snapshot it accepts must give a detector that
// answers (its vectors passed the checks build guarantees).
func FuzzReadFrom(f *testing.F) {
	var p preprocess.Pipeline
	// MaxPatterns 16: the second page (18 patterns) is kept as a sample.
	o := Options{MaxPatterns: 16}
	dt, _ := New(o)
	for i, text := range []string{"alpha beta gamma delta", "one two three four five six", "x"} {
		d, err := neardup.NewDocument(&p, fmt.Sprint(i), "", "", []byte(text))
		if err != nil {
			f.Fatal(err)
		}
		_ = dt.Add(f.Context(), d)
	}
	if !storeOf(dt).Feature(1).sampled() {
		f.Fatal("the seed snapshot holds no sample")
	}
	var buf bytes.Buffer
	if _, err := dt.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		back, _ := New(o)
		if _, err := back.ReadFrom(bytes.NewReader(data)); err != nil {
			if back.Len() != 0 {
				t.Fatalf("failed ReadFrom left %d documents", back.Len())
			}
			return
		}
		d, _ := neardup.NewDocument(&p, "q", "", "", []byte("alpha beta gamma"))
		if _, err := back.Match(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	})
}
