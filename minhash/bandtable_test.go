package minhash

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bandTable against a map of multisets under random inserts and removes,
// with values crowded into few home slots (so runs overlap and reach into
// the tail) and the largest values: catches a backward shift that breaks a
// run or moves an entry before its home, an insert out of order (a lookup
// that stops early would miss entries), a lost entry on growth, and a
// remove that takes the wrong ID or more than one entry.
func TestBandTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var tab bandTable
	ref := map[uint32][]uint32{}
	total := 0
	values := []uint32{0, 1, 16, 32, 17, 1 << 20, 1<<20 + 16, 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFF0, 0xFFFFF000}
	for step := range 20_000 {
		v := values[r.IntN(len(values))]
		if r.IntN(10) < 2 {
			v = r.Uint32() // spread values too
		}
		if ids := ref[v]; len(ids) > 0 && r.IntN(2) == 0 {
			id := ids[r.IntN(len(ids))]
			tab.remove(v, id)
			i := slices.Index(ids, id)
			ref[v] = slices.Delete(ids, i, i+1)
			total--
		} else {
			id := uint32(r.IntN(50))
			tab.insert(v, id)
			ref[v] = append(ref[v], id)
			total++
		}
		tab.remove(v, 1000) // an ID never filed: no change
		if tab.n != total {
			t.Fatalf("step %d: %d entries, want %d", step, tab.n, total)
		}
		if step%97 == 0 {
			checkBandTable(t, &tab)
			for w, ids := range ref {
				got := tab.appendIDs(nil, w)
				want := slices.Clone(ids)
				if w >= maxBandValue { // 0xFFFFFFFF is filed as 0xFFFFFFFE
					want = append(slices.Clone(ref[maxBandValue]), ref[maxBandValue+1]...)
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("step %d: IDs under %d: %v, want %v", step, w, got, want)
				}
			}
		}
	}
}

// checkBandTable fails t unless tab's entries ascend, each at or after its
// home with no empty slot between, and the last slot is empty.
func checkBandTable(t *testing.T, tab *bandTable) {
	t.Helper()
	s := tab.slots
	if s[len(s)-1] != emptySlot {
		t.Fatalf("last of %d slots not empty", len(s))
	}
	prev, n := uint64(0), 0
	for i, e := range s {
		if e == emptySlot {
			continue
		}
		n++
		h := tab.home(uint32(e >> 32))
		if e < prev || h > i || slices.Contains(s[h:i], emptySlot) {
			t.Fatalf("slot %d (home %d): %x after %x, or an empty slot before it", i, h, e, prev)
		}
		prev = e
	}
	if n != tab.n {
		t.Fatalf("%d entries in the slots, n = %d", n, tab.n)
	}
}

// binomialAtLeast agrees with the tail summed over every term, on both
// sides of the mean and in the far tail.
func TestBinomialAtLeast(t *testing.T) {
	lf := logFactorials(300)
	var tail []float64
	for _, c := range []struct {
		b int
		p float64
	}{{124, 0.125}, {124, 0.0156}, {124, 0.9}, {11, 0.48}, {300, 1e-6}, {57, 0.0024}, {1, 0.5}} {
		tail = binomialTail(c.b, c.p, lf, tail)
		for m := 1; m <= c.b; m++ {
			got, want := binomialAtLeast(c.b, m, c.p, lf), tail[m]
			if math.Abs(got-want) > 1e-9*want+1e-14 {
				t.Fatalf("b=%d p=%g m=%d: %g, want %g", c.b, c.p, m, got, want)
			}
		}
	}
}
