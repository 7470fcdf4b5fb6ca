package minhash

import (
	"math/bits"
	"slices"
)

// index is the Detector's candidate index: it finds, among the kept pages
// it files, those that may be near a query page. Each is filed under the
// keys of its Options.Keys smallest content hashes (keysOf), and the
// candidates of a query are those that share its keys (candidatesShared).
// Two sets of Jaccard similarity J have the same smallest hash with
// probability J, so with Keys keys a near pair is almost always found; a
// candidate still has to be compared to be a match.
//
// A key filed under more than Options.MaxPostings pages stops being a key,
// so the work of a query is bounded whatever the number of pages filed; a
// pair found only through keys that have been dropped is missed (the
// recall this costs the Detector is measured in docs/BENCHMARKS.md).
//
// Pages are named by their handles. An index is ready once init has run; it
// is not safe for concurrent use: the store serialises insert and remove
// with its queries.
type index struct {
	keys, maxPostings int
	lists             map[uint32]posting
	// ids holds the IDs of the keys filed under two or more: each such
	// key's IDs, in no order, at the start of a block of blockCap(n)
	// entries, so that a query reads a key's IDs from consecutive memory.
	ids []uint32
	// free is, by block class, the first free block of ids (a free block's
	// first entry is the next one), or noBlock.
	free           [33]uint32
	filed, stopped int
}

// posting is the list of one key: how many IDs it has (stoppedList for a
// key that passed MaxPostings) and the offset of its block in index.ids,
// or for a key of one ID (most keys), that ID itself.
type posting struct {
	head uint32
	n    int32
}

const stoppedList = -1

// noBlock ends a free list of blocks.
const noBlock = ^uint32(0)

// blockClass returns the class of the block that holds n ≥ 2 IDs: the
// block has 1 << class entries, the power of two at or above n, so a
// block is at least half full and grows by moving to the next class.
func blockClass(n int) int { return bits.Len(uint(n - 1)) }

// init empties x for keys and maxPostings (Options.Keys and
// Options.MaxPostings, resolved).
func (x *index) init(keys, maxPostings int) {
	x.keys, x.maxPostings = keys, maxPostings
	x.lists = make(map[uint32]posting)
	for c := range x.free {
		x.free[c] = noBlock
	}
}

// keysOf returns the keys a sketch is filed under: its first (smallest)
// hashes, at most Options.Keys of them. The slice shares s's memory.
func (x *index) keysOf(s []uint32) []uint32 {
	return s[:min(len(s), x.keys)]
}

// insert files id under keys (keysOf its content).
func (x *index) insert(id uint32, keys []uint32) {
	for _, k := range keys {
		p := x.lists[k]
		switch {
		case p.n == stoppedList:
			continue
		case x.maxPostings > 0 && int(p.n) >= x.maxPostings:
			if p.n > 1 {
				x.freeBlock(p.head, blockClass(int(p.n)))
			}
			x.filed -= int(p.n)
			x.lists[k] = posting{n: stoppedList}
			x.stopped++
			continue
		case p.n == 0:
			p.head = id
		case p.n == 1:
			b := x.newBlock(blockClass(2))
			x.ids[b], x.ids[b+1] = p.head, id
			p.head = b
		default:
			n := int(p.n)
			if c := blockClass(n + 1); c != blockClass(n) { // full: move to a block twice the size
				b := x.newBlock(c)
				copy(x.ids[b:b+uint32(n)], x.ids[p.head:p.head+uint32(n)])
				x.freeBlock(p.head, c-1)
				p.head = b
			}
			x.ids[p.head+uint32(n)] = id
		}
		p.n++
		x.lists[k] = p
		x.filed++
	}
}

// remove takes id out of the lists of keys (the keys it was filed under).
// Keys it is not filed under are ignored.
func (x *index) remove(id uint32, keys []uint32) {
	for _, k := range keys {
		p, ok := x.lists[k]
		if !ok || p.n == stoppedList {
			continue
		}
		if p.n == 1 {
			if p.head == id {
				delete(x.lists, k)
				x.filed--
			}
			continue
		}
		n := int(p.n)
		list := x.ids[p.head : p.head+uint32(n)]
		i := slices.Index(list, id)
		if i < 0 {
			continue
		}
		list[i] = list[n-1]
		x.filed--
		p.n--
		switch c := blockClass(n - 1); {
		case n-1 == 1: // back to one ID: keep it in the posting
			last := list[0]
			x.freeBlock(p.head, blockClass(n))
			p.head = last
		case c != blockClass(n): // half full: move to a block half the size
			b := x.newBlock(c)
			copy(x.ids[b:b+uint32(n-1)], list[:n-1])
			x.freeBlock(p.head, c+1)
			p.head = b
		}
		x.lists[k] = p
	}
}

// appendFiled appends to dst the IDs filed under key k (none when k is
// not a key or has stopped being one), and returns the extended slice and
// how many it appended.
func (x *index) appendFiled(dst []uint32, k uint32) ([]uint32, int) {
	p, ok := x.lists[k]
	switch {
	case !ok || p.n == stoppedList:
		return dst, 0
	case p.n == 1:
		return append(dst, p.head), 1
	}
	return append(dst, x.ids[p.head:p.head+uint32(p.n)]...), int(p.n)
}

// newBlock returns the offset in x.ids of a block of class c, a free one
// when there is one.
func (x *index) newBlock(c int) uint32 {
	if b := x.free[c]; b != noBlock {
		x.free[c] = x.ids[b]
		return b
	}
	b := len(x.ids)
	x.ids = append(x.ids, make([]uint32, 1<<c)...)
	return uint32(b)
}

// freeBlock returns the block of class c at offset b to the free blocks.
func (x *index) freeBlock(b uint32, c int) {
	x.ids[b] = x.free[c]
	x.free[c] = b
}

// stoppedKey reports whether k passed MaxPostings.
func (x *index) stoppedKey(k uint32) bool { return x.lists[k].n == stoppedList }
