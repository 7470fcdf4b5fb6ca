package preprocess

import (
	"hash/maphash"
	"math/bits"
)

// strIndex interns the distinct strings of one page: it numbers them 0, 1,
// 2... in order of first appearance. It is an open-addressing hash table
// (linear probing, load at most 1/2) of ids, sized to the page when reset, so
// reusing it for the next page clears only as many slots as that page needs
// instead of a Go map's every bucket. Hashes are seeded per index
// (maphash), so crafted pages cannot force collisions.
type strIndex struct {
	seed   maphash.Seed
	slots  []uint64 // tag<<32 | id+1 (0: empty); len is a power of two
	keys   []string // by id
	hashes []uint64 // by id, for growing without rehashing
}

func newStrIndex() *strIndex {
	return &strIndex{seed: maphash.MakeSeed()}
}

// reset empties x and sizes it for about n strings.
func (x *strIndex) reset(n int) {
	size := 1 << bits.Len(uint(max(n, 32)*2-1)) // a power of two >= 2n
	if cap(x.slots) >= size {
		x.slots = x.slots[:size]
		clear(x.slots)
	} else {
		x.slots = make([]uint64, size)
	}
	clear(x.keys) // drop references to page strings
	x.keys, x.hashes = x.keys[:0], x.hashes[:0]
	if cap(x.keys) < n {
		x.keys, x.hashes = make([]string, 0, n), make([]uint64, 0, n)
	}
}

// len returns the number of strings in x.
func (x *strIndex) len() int { return len(x.keys) }

// find returns the id of s, adding s when it is new.
func (x *strIndex) find(s string) (id int32, added bool) {
	return x.findHashed(maphash.String(x.seed, s), s)
}

// findHashed is find for a key whose hash under x.seed is h.
func (x *strIndex) findHashed(h uint64, s string) (id int32, added bool) {
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return x.add(i, h, s), true
		}
		if v>>32 == tag && x.keys[uint32(v)-1] == s {
			return int32(uint32(v) - 1), false
		}
	}
}

// findBytes is find for a key held in a byte slice; the key is copied into a
// new string only when it is added.
func (x *strIndex) findBytes(b []byte) (id int32, added bool) {
	h := maphash.Bytes(x.seed, b)
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return x.add(i, h, string(b)), true
		}
		if v>>32 == tag && x.keys[uint32(v)-1] == string(b) {
			return int32(uint32(v) - 1), false
		}
	}
}

// add stores s with hash h in the empty slot i and returns its new id.
func (x *strIndex) add(i, h uint64, s string) int32 {
	id := int32(len(x.keys))
	x.keys = append(x.keys, s)
	x.hashes = append(x.hashes, h)
	x.slots[i] = h>>32<<32 | uint64(id+1)
	if 2*len(x.keys) > len(x.slots) {
		x.grow()
	}
	return id
}

// grow doubles the table and reinserts every id.
func (x *strIndex) grow() {
	x.slots = make([]uint64, 2*len(x.slots))
	mask := uint64(len(x.slots) - 1)
	for id, h := range x.hashes {
		i := h & mask
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = h>>32<<32 | uint64(id+1)
	}
}

// lookup returns the id of s, or -1 when s is not in x.
func (x *strIndex) lookup(s string) int32 {
	h := maphash.String(x.seed, s)
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return -1
		}
		if v>>32 == tag && x.keys[uint32(v)-1] == s {
			return int32(uint32(v) - 1)
		}
	}
}

// lookupBytes is lookup for a key held in a byte slice.
func (x *strIndex) lookupBytes(b []byte) int32 {
	h := maphash.Bytes(x.seed, b)
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return -1
		}
		if v>>32 == tag && x.keys[uint32(v)-1] == string(b) {
			return int32(uint32(v) - 1)
		}
	}
}

// lookupHashed is lookup for a key whose hash under x.seed is h.
func (x *strIndex) lookupHashed(h uint64, s string) int32 {
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return -1
		}
		if v>>32 == tag && x.keys[uint32(v)-1] == s {
			return int32(uint32(v) - 1)
		}
	}
}

// addHashed adds s, whose hash under x.seed is h and which x does not hold,
// and returns its id.
func (x *strIndex) addHashed(h uint64, s string) int32 {
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	return x.add(i, h, s)
}
