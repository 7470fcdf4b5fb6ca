package minhash

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A host model's template blocks are exactly the blocks counted at least
// the threshold, through adds, removes and pruning. Catches a block that
// stays template after its count falls (or never becomes template) when
// setTemplate misses a change add or remove reports.
func TestHostModelTemplate(t *testing.T) {
	const min = 3
	r := rand.New(rand.NewPCG(3, 4))
	var m hostModel
	var pages [][]uint32
	for step := range 3000 {
		if len(pages) > 0 && r.IntN(3) == 0 {
			i := r.IntN(len(pages))
			m.setTemplate(m.remove(pages[i], min, nil), false)
			pages = slices.Delete(pages, i, i+1)
		} else {
			var blocks []uint32
			for range 1 + r.IntN(12) {
				blocks = append(blocks, uint32(r.IntN(60)))
			}
			slices.Sort(blocks)
			blocks = slices.Compact(blocks)
			m.setTemplate(m.add(blocks, min, nil), true)
			m.prune(40, min)
			pages = append(pages, blocks)
		}
		var want []uint32
		for i, k := range m.keys {
			if m.counts[i] >= min {
				want = append(want, k)
			}
		}
		if !slices.Equal(m.tmpl, want) {
			t.Fatalf("step %d: template blocks %v, want %v", step, m.tmpl, want)
		}
	}
	if len(m.tmpl) == 0 {
		t.Error("no block became template")
	}
}
