package minhash

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/minhash/internal/judge"
)

// The index returns exactly the IDs filed under a query's keys, once each
// (candidatesShared with every key rare), through inserts and removals, and
// drops a key that passes MaxPostings.
// With NoLimit, keys are filed under up to a few hundred IDs, so that
// their blocks grow and shrink through several classes (catches an ID lost
// or kept when a block moves, or a freed block still in use). IDs from
// just under blockList up are too large for a slot and take blocks of their
// own, down to one ID (catches such an ID kept in the slot, truncated).
func TestIndex(t *testing.T) {
	for _, c := range []struct {
		maxPostings, ids, small int
		base                    uint32
	}{{4, 40, 30, 0}, {NoLimit, 600, 4, 0}, {1, 40, 30, blockList - 20}, {NoLimit, 600, 4, blockList - 300}, {NoLimit, 600, 300, stoppedList - 600}} {
		var x index
		x.init(3, c.maxPostings)
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
			id := c.base + uint32(r.IntN(c.ids))
			if ks, ok := filed[id]; ok && r.IntN(2) == 0 {
				x.remove(id, ks)
				delete(filed, id)
			} else if !ok {
				ks := keys()
				x.insert(id, ks)
				filed[id] = ks
			}
			// Keys that passed the bound are no longer searched: leave them
			// out of the expectation.
			q := keys()
			got := x.candidatesShared(q, math.MaxInt, nil, nil)
			var live []uint32
			for _, k := range q {
				if !x.stoppedKey(k) {
					live = append(live, k)
				}
			}
			if w := want(live); !slices.Equal(got, w) {
				t.Fatalf("MaxPostings %d, step %d: candidates of %v = %v, want %v", c.maxPostings, step, q, got, w)
			}
			if c.maxPostings == NoLimit && x.filed != 3*len(filed) {
				t.Fatalf("step %d: %d filed, want %d", step, x.filed, 3*len(filed))
			}
		}
		if c.maxPostings > 0 && x.stopped == 0 {
			t.Errorf("no key passed MaxPostings %d among %d IDs", c.maxPostings, c.ids)
		}
		// Emptied, the index holds only the stopped keys (catches a key left
		// in a slot or a count that drifts).
		for id, ks := range filed {
			x.remove(id, ks)
		}
		if x.n != x.stopped || x.filed != 0 {
			t.Errorf("MaxPostings %d, emptied: %d keys (%d stopped), %d filed", c.maxPostings, x.n, x.stopped, x.filed)
		}
	}
}

// A store whose index is full refuses a page more with an error wrapping
// ErrFull and keeps what it holds. Catches an index that grows past what
// its offsets address (a panic at about 2.7 × 10⁸ pages).
func TestStoreFull(t *testing.T) {
	o, err := judge.Options{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(o, new(atomic.Int64))
	st.index.limit = 64
	page := func(i int) judge.Feature {
		c := []uint32{uint32(i), 1000 + uint32(i)}
		return judge.Feature{Host: "a.example", Exact: uint64(i) + 1, Page: c, Content: c, Tags: []uint8{0, 0}, Blocks: []uint32{7}, Share: 255}
	}
	var i int
	for ; i < 1000; i++ {
		if err = st.Insert(detector.Handle(i), page(i%40)); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrFull) {
		t.Fatalf("%d pages in an index of 64 entries: error %v, want ErrFull", i, err)
	}
	if n := len(st.index.ids); n > 64+64 {
		t.Errorf("index of %d entries past its limit of 64", n)
	}
	if got := st.Search(page(3), nil); len(got) == 0 {
		t.Error("a kept page is no longer found once the index is full")
	}
}
