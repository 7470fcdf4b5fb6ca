package minhash

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/minhash/internal/judge"
)

// Kept pages' slabs survive their neighbours' deletion and the compaction
// it triggers, and the words freed stay bounded by the words in use.
// Catches a slab moved without its entry following it, or a compaction that
// never runs (the freed words grow with the deletions).
func TestSlabsCompact(t *testing.T) {
	o, err := judge.Options{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(o, new(atomic.Int64))
	r := rand.New(rand.NewPCG(5, 6))
	feature := func(i int) judge.Feature {
		f := judge.Feature{Host: "h" + string(rune('a'+i%7)), Exact: uint64(i) + 1, Share: uint8(i)}
		for range 8 + r.IntN(60) {
			f.Blocks = append(f.Blocks, r.Uint32())
		}
		slices.Sort(f.Blocks)
		f.Blocks = slices.Compact(f.Blocks)
		for range 10 + r.IntN(100) {
			f.Page = append(f.Page, r.Uint32())
			f.Content = append(f.Content, r.Uint32())
			f.Tags = append(f.Tags, uint8(r.IntN(len(f.Blocks))))
		}
		slices.Sort(f.Page)
		slices.Sort(f.Content)
		return f
	}
	want := map[detector.Handle]judge.Feature{}
	compactions := 0
	for i := range 20_000 {
		h := detector.Handle(i)
		f := feature(i)
		if err := st.Insert(h, f); err != nil {
			t.Fatal(err)
		}
		want[h] = f
		if i%4 != 0 { // keep a page in four
			dead := st.slabs.dead
			if err := st.Delete(h - 1); err != nil {
				t.Fatal(err)
			}
			delete(want, h-1)
			if st.slabs.dead < dead {
				compactions++
			}
		}
		if st.slabs.dead > max(st.slabs.live, 4*chunkWords)+chunkWords {
			t.Fatalf("page %d: %d words freed, %d in use", i, st.slabs.dead, st.slabs.live)
		}
	}
	if compactions == 0 {
		t.Error("no compaction")
	}
	for h, f := range want {
		got := st.Feature(h)
		if !slices.Equal(got.Page, f.Page) || !slices.Equal(got.Content, f.Content) || !slices.Equal(got.Blocks, f.Blocks) || !slices.Equal(got.Tags, f.Tags) || got.Exact != f.Exact || got.Share != f.Share {
			t.Fatalf("handle %d: feature changed", h)
		}
	}
}
