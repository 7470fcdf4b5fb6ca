package editdist

import (
	"math/rand/v2"
	"testing"

	"github.com/agnivade/levenshtein"
)

// randomString returns n runes drawn from an alphabet of size sigma starting
// at base (Han from 0x4E00, Latin from 'a', or mixed when base is 0).
func randomString(r *rand.Rand, n, sigma int, base rune) []rune {
	s := make([]rune, n)
	for i := range s {
		switch {
		case base != 0:
			s[i] = base + rune(r.IntN(sigma))
		case r.IntN(2) == 0:
			s[i] = 0x4E00 + rune(r.IntN(sigma))
		default:
			s[i] = 'a' + rune(r.IntN(min(sigma, 26)))
		}
	}
	return s
}

// mutate returns a copy of s with e random edits.
func mutate(r *rand.Rand, s []rune, e, sigma int, base rune) []rune {
	t := append([]rune(nil), s...)
	for range e {
		c := base + rune(r.IntN(sigma))
		switch i := r.IntN(len(t) + 1); {
		case r.IntN(3) == 0 || i == len(t):
			t = append(t[:i:i], append([]rune{c}, t[i:]...)...)
		case r.IntN(2) == 0:
			t = append(t[:i:i], t[i+1:]...)
		default:
			t[i] = c
		}
	}
	return t
}

// pairs returns test pairs: random, mutated copies, very unequal lengths,
// empty, across block boundaries (63, 64, 65, 127, 128, 129 symbols).
func pairs(r *rand.Rand) [][2][]rune {
	var ps [][2][]rune
	lengths := []int{0, 1, 2, 3, 10, 31, 63, 64, 65, 100, 127, 128, 129, 200, 300, 700}
	for _, base := range []rune{0x4E00, 'a', 0} {
		for _, sigma := range []int{2, 4, 26, 3000} {
			for _, n := range lengths {
				m := lengths[r.IntN(len(lengths))]
				a := randomString(r, n, sigma, base)
				ps = append(ps, [2][]rune{a, randomString(r, m, sigma, base)})
				if base != 0 && n > 0 {
					ps = append(ps, [2][]rune{a, mutate(r, a, 1+r.IntN(1+n/4), sigma, base)})
				}
			}
		}
	}
	ps = append(ps, [2][]rune{[]rune("中"), []rune("一二三四五六七八九中")})
	return ps
}

// TestDistanceAgnivade checks the bit-parallel distance against the
// reference, github.com/agnivade/levenshtein, on random and edited strings
// of Han, Latin and mixed text, empty and of very unequal lengths.
func TestDistanceAgnivade(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range pairs(r) {
		a, b := p[0], p[1]
		want := levenshtein.ComputeDistance(string(a), string(b))
		if got := Distance(a, b); got != want {
			t.Fatalf("Distance(%q, %q) = %d, want %d", string(a), string(b), got, want)
		}
		pa := Compile(a)
		if got := pa.Distance(b); got != want {
			t.Fatalf("Compile(%q).Distance(%q) = %d, want %d", string(a), string(b), got, want)
		}
		// Within, for bounds around the distance.
		for _, k := range []int{-1, 0, want - 2, want - 1, want, want + 1, want + 5, len(a) + len(b)} {
			d, ok := pa.Within(b, k)
			if ok != (k >= 0 && want <= k) {
				t.Fatalf("Within(%q, %q, %d) ok = %v, distance %d", string(a), string(b), k, ok, want)
			}
			if ok && d != want {
				t.Fatalf("Within(%q, %q, %d) = %d, want %d", string(a), string(b), k, d, want)
			}
			if !ok && k >= 0 && d != k+1 {
				t.Fatalf("Within(%q, %q, %d) = %d, not ok: want k+1", string(a), string(b), k, d)
			}
		}
	}
}

// TestDistanceLong crosses the stack limit of Within's state (more than
// 2,048 symbols).
func TestDistanceLong(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := randomString(r, 2500, 40, 0x4E00)
	b := mutate(r, a, 300, 40, 0x4E00)
	want := levenshtein.ComputeDistance(string(a), string(b))
	if got := Distance(a, b); got != want {
		t.Fatalf("Distance = %d, want %d", got, want)
	}
	if d, ok := Compile(a).Within(b, want); !ok || d != want {
		t.Fatalf("Within(k = %d) = %d, %v", want, d, ok)
	}
	if _, ok := Compile(a).Within(b, want-1); ok {
		t.Fatalf("Within(k = %d) ok", want-1)
	}
}
