package minhash

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/minhash/internal/judge"
)

// candidatesShared takes an ID found under one rare key, or under two keys
// of any size, and leaves one found under one common key only. Catches a
// rule that counts a common key as enough (chance candidates grow with the
// index) or a rare one as not enough (near pages with one shared key lost).
func TestCandidatesShared(t *testing.T) {
	var x index
	x.init(DefaultKeys, DefaultMaxPostings)
	const common, other, rare = 100, 200, 300
	for id := uint32(10); id < 10+judge.RareKey+5; id++ { // more than judge.RareKey under common
		x.insert(id, []uint32{common})
	}
	x.insert(10, []uint32{other}) // 10: common and other (other is rare, one ID)
	x.insert(11, []uint32{other + 1, other + 2})
	x.insert(12, []uint32{rare})
	x.insert(13, []uint32{rare})
	got := x.candidatesShared([]uint32{common, other, rare}, judge.RareKey, nil)
	if want := []uint32{10, 12, 13}; !slices.Equal(got, want) {
		t.Errorf("candidatesShared = %v, want %v", got, want)
	}
	// Two common keys make a candidate.
	for id := uint32(10); id < 10+judge.RareKey+5; id++ {
		x.insert(id, []uint32{other + 5})
	}
	got = x.candidatesShared([]uint32{common, other + 5}, judge.RareKey, []uint32{1})
	if len(got) != 1+judge.RareKey+5 || got[0] != 1 || got[1] != 10 {
		t.Errorf("candidatesShared with two common keys = %v", got)
	}
}

// candidatesShared returns what counting each query key's IDs (a rare
// key's twice) gives, on queries whose keys hold from a few IDs to more
// than its count table takes (so both its table and its sort run). Catches
// a table too small for the IDs it counts, an ID kept twice or dropped, or
// output out of order.
func TestCandidatesSharedCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var x index
	x.init(DefaultKeys, DefaultMaxPostings)
	const common, rare = 120, 2000 // keys 0..119 take about 200 IDs each, the others about 1
	for id := range uint32(3000) {
		var ks []uint32
		for range 7 {
			ks = append(ks, uint32(r.IntN(common)))
		}
		ks = append(ks, common+uint32(r.IntN(rare)))
		slices.Sort(ks)
		x.insert(id, slices.Compact(ks))
	}
	var sizes [3]int // IDs counted: up to half the table, up to the table's limit, more
	for q := range 300 {
		var query []uint32
		for range 1 + r.IntN(16) {
			if r.IntN(2) == 0 {
				query = append(query, uint32(r.IntN(common)))
			} else {
				query = append(query, common+uint32(r.IntN(rare+10)))
			}
		}
		slices.Sort(query)
		query = slices.Compact(query)
		count := map[uint32]int{}
		total := 0
		for _, k := range query {
			ids, _ := x.appendFiled(nil, k)
			w := 1
			if len(ids) <= judge.RareKey {
				w = 2
			}
			for _, id := range ids {
				count[id] += w
			}
			total += w * len(ids)
		}
		var want []uint32
		for id, c := range count {
			if c >= 2 {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		switch {
		case total <= countSlots/4:
			sizes[0]++
		case total <= countSlots/2:
			sizes[1]++
		default:
			sizes[2]++
		}
		got := x.candidatesShared(query, judge.RareKey, []uint32{7})
		if got[0] != 7 || !slices.Equal(got[1:], want) {
			t.Fatalf("query %d (%v, %d IDs): candidatesShared = %v, want [7] + %v", q, query, total, got, want)
		}
	}
	if min(sizes[0], sizes[1], sizes[2]) < 30 {
		t.Errorf("queries of up to %d IDs, up to %d, more: %v; want 30 of each", countSlots/4, countSlots/2, sizes)
	}
}
