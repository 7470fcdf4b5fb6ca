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
		for k := range 60 {
			if m.count(uint32(k)) >= min {
				want = append(want, uint32(k))
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

// refModel is the straightforward host model hostModel must agree with: a
// map of counts, pruned of the blocks counted once past max blocks.
type refModel map[uint32]uint32

func (r refModel) add(blocks []uint32, min uint32) (changed []uint32) {
	for _, b := range blocks {
		r[b]++
		if r[b] == min {
			changed = append(changed, b)
		}
	}
	return changed
}

func (r refModel) remove(blocks []uint32, min uint32) (changed []uint32) {
	for _, b := range blocks {
		c, ok := r[b]
		if !ok {
			continue
		}
		if c == min {
			changed = append(changed, b)
		}
		if c == 1 {
			delete(r, b)
		} else {
			r[b] = c - 1
		}
	}
	return changed
}

func (r refModel) prune(max int, min uint32) {
	if len(r) <= max || min <= 1 {
		return
	}
	for b, c := range r {
		if c == 1 {
			delete(r, b)
		}
	}
}

// hostModel's counts (kept in two sorted runs, merged now and then) agree
// with a map's through random adds, removes and pruning, on hosts of
// thousands of blocks: every count, the blocks add and remove report as
// changed, in order, and the number of blocks. Catches a fresh block
// counted twice (in both runs), a merge that loses or duplicates a block,
// a count found in one run but not the other, and a prune or remove that
// leaves a block counted zero times.
func TestHostModelCounts(t *testing.T) {
	for _, c := range []struct {
		universe, blocks, max int
		min                   uint32
	}{{200, 12, 150, 3}, {20_000, 40, 4096, 3}, {5_000, 30, 1000, 2}, {3_000, 20, 500, 1}} {
		r := rand.New(rand.NewPCG(uint64(c.universe), 9))
		var m hostModel
		ref := refModel{}
		var pages [][]uint32
		for step := range 4000 {
			var got, want []uint32
			if len(pages) > 0 && r.IntN(4) == 0 {
				i := r.IntN(len(pages))
				got, want = m.remove(pages[i], c.min, nil), ref.remove(pages[i], c.min)
				pages = slices.Delete(pages, i, i+1)
			} else {
				var blocks []uint32
				for range 1 + r.IntN(c.blocks) {
					// half the blocks from a small common set, so that
					// counts grow past min
					if r.IntN(2) == 0 {
						blocks = append(blocks, uint32(r.IntN(c.universe/20)))
					} else {
						blocks = append(blocks, uint32(r.IntN(c.universe)))
					}
				}
				slices.Sort(blocks)
				blocks = slices.Compact(blocks)
				got, want = m.add(blocks, c.min, nil), ref.add(blocks, c.min)
				m.prune(c.max, c.min)
				ref.prune(c.max, c.min)
				pages = append(pages, blocks)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("universe %d, step %d: changed %v, want %v", c.universe, step, got, want)
			}
			if m.blocks() != len(ref) {
				t.Fatalf("universe %d, step %d: %d blocks counted, want %d", c.universe, step, m.blocks(), len(ref))
			}
			if step%50 == 0 || step > 3950 {
				for k := range uint32(c.universe) {
					if got, want := m.count(k), ref[k]; got != want {
						t.Fatalf("universe %d, step %d: block %d counted %d, want %d", c.universe, step, k, got, want)
					}
				}
			}
		}
		if len(m.counted) == 0 {
			t.Errorf("universe %d: the fresh blocks were never merged", c.universe)
		}
	}
}
