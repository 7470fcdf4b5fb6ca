package minhash

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
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
	got := x.candidatesShared([]uint32{common, other, rare}, judge.RareKey, nil, nil)
	if want := []uint32{10, 12, 13}; !slices.Equal(got, want) {
		t.Errorf("candidatesShared = %v, want %v", got, want)
	}
	// An ID found under one rare key only (40, 41) is kept when alone
	// takes it; 10, 12 and 13, under two keys, whatever alone says.
	x.insert(40, []uint32{rare + 1})
	x.insert(41, []uint32{rare + 1})
	got = x.candidatesShared([]uint32{common, other, rare, rare + 1}, judge.RareKey, func(id uint32) bool { return id == 41 }, nil)
	if want := []uint32{10, 12, 13, 41}; !slices.Equal(got, want) {
		t.Errorf("candidatesShared with alone = %v, want %v", got, want)
	}
	// Two common keys make a candidate.
	for id := uint32(10); id < 10+judge.RareKey+5; id++ {
		x.insert(id, []uint32{other + 5})
	}
	got = x.candidatesShared([]uint32{common, other + 5}, judge.RareKey, nil, []uint32{1})
	if len(got) != 1+judge.RareKey+5 || got[0] != 1 || got[1] != 10 {
		t.Errorf("candidatesShared with two common keys = %v", got)
	}
}

// candidatesShared returns what counting each query key's IDs gives (an
// ID under two keys, or under one rare key and taken by alone: here, an
// even ID), on queries whose keys hold from a few IDs to more
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
		count, rareID := map[uint32]int{}, map[uint32]bool{}
		total := 0
		for _, k := range query {
			ids, _ := x.appendFiled(nil, k)
			for _, id := range ids {
				count[id]++
				rareID[id] = rareID[id] || len(ids) <= judge.RareKey
			}
			total += len(ids)
		}
		alone := func(id uint32) bool { return id%2 == 0 }
		var want []uint32
		for id, c := range count {
			if c >= 2 || rareID[id] && alone(id) {
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
		got := x.candidatesShared(query, judge.RareKey, alone, []uint32{7})
		if got[0] != 7 || !slices.Equal(got[1:], want) {
			t.Fatalf("query %d (%v, %d IDs): candidatesShared = %v, want [7] + %v", q, query, total, got, want)
		}
	}
	if min(sizes[0], sizes[1], sizes[2]) < 30 {
		t.Errorf("queries of up to %d IDs, up to %d, more: %v; want 30 of each", countSlots/4, countSlots/2, sizes)
	}
}

// A kept page that shares one rare key with a query is compared when it is
// of the query's host or filed under one key, and not when it is of
// another host: a phrase two unrelated pages share is the chance that
// grows with the repository. Catches a store that compares such pages
// (chance candidates that grow) or none of its own host's (a page whose
// keys the template shifted, lost).
func TestSearchOneKeyByHost(t *testing.T) {
	o, err := judge.Options{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	var compared atomic.Int64
	st := newStore(o, &compared)
	page := func(host string, exact uint64, content ...uint32) judge.Feature {
		return judge.Feature{Host: host, Exact: exact, Page: content, Content: content,
			Tags: make([]uint8, len(content)), Blocks: []uint32{7}, Share: 255}
	}
	seq := func(from uint32, n int) []uint32 {
		s := make([]uint32, n)
		for i := range s {
			s[i] = from + uint32(i)
		}
		return s
	}
	if err := st.Insert(0, page("a.example", 1, seq(100, 20)...)); err != nil { // keys 100..107
		t.Fatal(err)
	}
	if err := st.Insert(1, page("c.example", 2, 500)); err != nil { // one key: 500
		t.Fatal(err)
	}
	for _, c := range []struct {
		host    string
		content []uint32
		want    int64
	}{
		{"b.example", append([]uint32{103}, seq(1000, 19)...), 0},      // one key of a's page, another host
		{"a.example", append([]uint32{103}, seq(1000, 19)...), 1},      // the same key, a's host
		{"b.example", append([]uint32{103, 105}, seq(1000, 18)...), 1}, // two keys
		{"b.example", append([]uint32{500}, seq(1000, 19)...), 1},      // the one key of c's page
	} {
		before := compared.Load()
		st.Search(page(c.host, 99, c.content...), nil)
		if got := compared.Load() - before; got != c.want {
			t.Errorf("query of %s sharing %v: compared %d pages, want %d", c.host, c.content[:2], got, c.want)
		}
	}
}
