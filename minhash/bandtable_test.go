package minhash

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// bandTable against a map of multisets under random inserts and removes,
// with values crowded into few home slots (so probe chains wrap and
// overlap) and the value 0: catches a backward shift that breaks a probe
// chain or moves an entry before its home, a lost entry on growth, and a
// remove that takes the wrong ID or more than one entry.
func TestBandTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var tab bandTable
	ref := map[uint32][]uint32{}
	total := 0
	values := []uint32{0, 1, 16, 32, 17, 1 << 20, 1<<20 + 16, 0xFFFFFFFF, 0xFFFFFFF0, 0xFFFFF000}
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
			for w, ids := range ref {
				got := tab.appendIDs(nil, w)
				want := slices.Clone(ids)
				if w <= 1 { // 0 is filed as 1
					want = append(slices.Clone(ref[0]), ref[1]...)
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
