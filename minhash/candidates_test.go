package minhash

import (
	"slices"
	"testing"
)

// candidatesShared takes an ID found under one rare key, or under two keys
// of any size, and leaves one found under one common key only. Catches a
// rule that counts a common key as enough (chance candidates grow with the
// index) or a rare one as not enough (near pages with one shared key lost).
func TestCandidatesShared(t *testing.T) {
	var x Index
	const common, other, rare = 100, 200, 300
	for id := uint32(10); id < 10+rareKey+5; id++ { // more than rareKey under common
		x.Insert(id, []uint32{common})
	}
	x.Insert(10, []uint32{other}) // 10: common and other (other is rare, one ID)
	x.Insert(11, []uint32{other + 1, other + 2})
	x.Insert(12, []uint32{rare})
	x.Insert(13, []uint32{rare})
	got := x.candidatesShared([]uint32{common, other, rare}, rareKey, nil)
	if want := []uint32{10, 12, 13}; !slices.Equal(got, want) {
		t.Errorf("candidatesShared = %v, want %v", got, want)
	}
	// Two common keys make a candidate.
	for id := uint32(10); id < 10+rareKey+5; id++ {
		x.Insert(id, []uint32{other + 5})
	}
	got = x.candidatesShared([]uint32{common, other + 5}, rareKey, []uint32{1})
	if len(got) != 1+rareKey+5 || got[0] != 1 || got[1] != 10 {
		t.Errorf("candidatesShared with two common keys = %v", got)
	}
}
