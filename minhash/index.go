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
// The keys are an open-addressing table of 8-byte slots, key<<32 | list
// (list: see listOf), so that looking a key up in an index of millions
// reads one slot, and the lists of a query's keys are found before any is
// read (candidatesShared), so that their cache misses overlap.
//
// Pages are named by their handles. An index is ready once init has run; it
// is not safe for concurrent use: the store serialises insert and remove
// with its queries.
type index struct {
	keys, maxPostings int
	// slots holds each key of a non-empty list as key<<32 | list; 0 is
	// a free slot. A key's home slot is homeOf(mix(key)), collisions probe
	// linearly, and the table grows by half when 13/16 full.
	slots []uint64
	n     int // keys in slots
	// ids holds the lists of two or more IDs (and of one ID too large to
	// be its list's value): each in a block of 1 << blockClass(n)
	// entries, its length n first and then its IDs, in no order, so that
	// a query reads a key's IDs from consecutive memory.
	ids []uint32
	// free is, by block class, the first free block of ids (a free block's
	// first entry is the next one), or noBlock.
	free           [33]uint32
	filed, stopped int
	// limit is the most entries ids may hold before a page more is refused
	// (full): maxEntries less a reserve for the pages a template change
	// files again.
	limit int
}

// maxEntries is the most entries index.ids can address (a block's offset is
// below stoppedList − blockList), and entryReserve the entries kept free
// for filing pages again.
const (
	maxEntries   = int(stoppedList - blockList)
	entryReserve = 1 << 28
)

// A list, the low half of a key's slot, is one of:
//
//   - 1 ≤ list < blockList: the list of the one ID list−1;
//   - blockList ≤ list < stoppedList: the block at offset list−blockList
//     of index.ids;
//   - stoppedList: the key passed MaxPostings.
//
// No list is 0, so that no slot in use is 0.
const (
	blockList   = 1 << 31
	stoppedList = ^uint32(0)
)

// noBlock ends a free list of blocks.
const noBlock = ^uint32(0)

// blockClass returns the class of the block that holds n ≥ 1 IDs: the
// block has 1 << class entries, the power of two above n (the length
// takes one), so a block is at least half full and grows by moving to the
// next class.
func blockClass(n int) int { return bits.Len(uint(n)) }

// mix scatters a key over 32 bits (keys are a sketch's smallest hashes:
// small numbers), bijectively.
func mix(k uint32) uint32 {
	k ^= k >> 16
	k *= 0x7feb352d
	k ^= k >> 15
	k *= 0x846ca68b
	return k ^ k>>16
}

// init empties x for keys and maxPostings (Options.Keys and
// Options.MaxPostings, resolved).
func (x *index) init(keys, maxPostings int) {
	*x = index{keys: keys, maxPostings: maxPostings, limit: maxEntries - entryReserve}
	for c := range x.free {
		x.free[c] = noBlock
	}
}

// keysOf returns the keys a sketch is filed under: its first (smallest)
// hashes, at most Options.Keys of them. The slice shares s's memory.
func (x *index) keysOf(s []uint32) []uint32 {
	return s[:min(len(s), x.keys)]
}

// home returns the home slot of key k (len(x.slots) > 0).
func (x *index) home(k uint32) int { return int(uint64(mix(k)) * uint64(len(x.slots)) >> 32) }

// next is the slot after i, wrapping.
func (x *index) next(i int) int {
	if i++; i == len(x.slots) {
		return 0
	}
	return i
}

// find returns the slot of key k, or the free slot where it would go, and
// whether k is there.
func (x *index) find(k uint32) (int, bool) {
	if len(x.slots) == 0 {
		return -1, false
	}
	i := x.home(k)
	for {
		s := x.slots[i]
		if s == 0 {
			return i, false
		}
		if uint32(s>>32) == k {
			return i, true
		}
		i = x.next(i)
	}
}

// listOf returns the list of key k, 0 when k has none.
func (x *index) listOf(k uint32) uint32 {
	if i, ok := x.find(k); ok {
		return uint32(x.slots[i])
	}
	return 0
}

// put sets the list of key k, whose slot find returned (i, ok), to l ≠ 0.
func (x *index) put(k uint32, i int, ok bool, l uint32) {
	if !ok {
		if (x.n+1)*16 > len(x.slots)*13 {
			x.grow()
			i, _ = x.find(k)
		}
		x.n++
	}
	x.slots[i] = uint64(k)<<32 | uint64(l)
}

// grow moves the keys to a table half as large again.
func (x *index) grow() {
	old := x.slots
	x.slots = make([]uint64, max(64, len(old)+len(old)/2))
	for _, s := range old {
		if s != 0 {
			i := x.home(uint32(s >> 32))
			for x.slots[i] != 0 {
				i = x.next(i)
			}
			x.slots[i] = s
		}
	}
}

// drop frees slot i, shifting the slots after it back so that no probe
// sequence is broken.
func (x *index) drop(i int) {
	size := len(x.slots)
	for j := x.next(i); x.slots[j] != 0; j = x.next(j) {
		// The slot at j stays when its home lies cyclically in (i, j].
		if h := x.home(uint32(x.slots[j] >> 32)); (j-h+size)%size < (j-i+size)%size {
			continue
		}
		x.slots[i] = x.slots[j]
		i = j
	}
	x.slots[i] = 0
	x.n--
}

// block returns the IDs of the block list l (blockList ≤ l < stoppedList).
func (x *index) block(l uint32) []uint32 {
	b := l - blockList
	return x.ids[b+1 : b+1+x.ids[b]]
}

// insert files id under keys (keysOf its content).
func (x *index) insert(id uint32, keys []uint32) {
	for _, k := range keys {
		i, ok := x.find(k)
		var l uint32
		if ok {
			l = uint32(x.slots[i])
		}
		switch {
		case l == stoppedList:
			continue
		case l == 0 && id < blockList-1:
			l = id + 1
		case l == 0:
			b := x.newBlock(blockClass(1))
			x.ids[b], x.ids[b+1] = 1, id
			l = blockList + b
		case l < blockList && x.maxPostings == 1:
			x.stop(k, i, l)
			continue
		case l < blockList:
			b := x.newBlock(blockClass(2))
			x.ids[b], x.ids[b+1], x.ids[b+2] = 2, l-1, id
			l = blockList + b
		default:
			b := l - blockList
			n := int(x.ids[b])
			if x.maxPostings > 0 && n >= x.maxPostings {
				x.stop(k, i, l)
				continue
			}
			if c := blockClass(n + 1); c != blockClass(n) { // full: move to a block twice the size
				nb := x.newBlock(c)
				copy(x.ids[nb:nb+1+uint32(n)], x.ids[b:b+1+uint32(n)])
				x.freeBlock(b, c-1)
				b = nb
			}
			x.ids[b] = uint32(n + 1)
			x.ids[b+1+uint32(n)] = id
			l = blockList + b
		}
		x.put(k, i, ok, l)
		x.filed++
	}
}

// stop drops the list l of key k (in slot i): k passed MaxPostings.
func (x *index) stop(k uint32, i int, l uint32) {
	n := 1
	if l >= blockList {
		b := l - blockList
		n = int(x.ids[b])
		x.freeBlock(b, blockClass(n))
	}
	x.filed -= n
	x.slots[i] = uint64(k)<<32 | uint64(stoppedList)
	x.stopped++
}

// remove takes id out of the lists of keys (the keys it was filed under).
// Keys it is not filed under are ignored.
func (x *index) remove(id uint32, keys []uint32) {
	for _, k := range keys {
		i, ok := x.find(k)
		if !ok {
			continue
		}
		l := uint32(x.slots[i])
		switch {
		case l == stoppedList:
			continue
		case l < blockList:
			if l-1 == id {
				x.drop(i)
				x.filed--
			}
			continue
		}
		b := l - blockList
		n := int(x.ids[b])
		list := x.ids[b+1 : b+1+uint32(n)]
		j := slices.Index(list, id)
		if j < 0 {
			continue
		}
		list[j] = list[n-1]
		x.filed--
		switch c := blockClass(n - 1); {
		case n == 1: // the only ID
			x.freeBlock(b, blockClass(1))
			x.drop(i)
			continue
		case n == 2 && list[0] < blockList-1: // back to one ID: keep it in the slot
			x.freeBlock(b, blockClass(2))
			x.slots[i] = uint64(k)<<32 | uint64(list[0]+1)
			continue
		case c != blockClass(n): // half full: move to a block half the size
			nb := x.newBlock(c)
			copy(x.ids[nb+1:nb+uint32(n)], list[:n-1])
			x.freeBlock(b, c+1)
			b = nb
		}
		x.ids[b] = uint32(n - 1)
		x.slots[i] = uint64(k)<<32 | uint64(blockList+b)
	}
}

// appendFiled appends to dst the IDs filed under key k (none when k is
// not a key or has stopped being one), and returns the extended slice and
// how many it appended.
func (x *index) appendFiled(dst []uint32, k uint32) ([]uint32, int) {
	return x.appendList(dst, x.listOf(k))
}

// appendList appends to dst the IDs of list l (none for 0 and
// stoppedList), and returns the extended slice and how many it appended.
func (x *index) appendList(dst []uint32, l uint32) ([]uint32, int) {
	switch {
	case l == 0 || l == stoppedList:
		return dst, 0
	case l < blockList:
		return append(dst, l-1), 1
	}
	ids := x.block(l)
	return append(dst, ids...), len(ids)
}

// newBlock returns the offset in x.ids of a block of class c, a free one
// when there is one.
func (x *index) newBlock(c int) uint32 {
	if b := x.free[c]; b != noBlock {
		x.free[c] = x.ids[b]
		return b
	}
	b := len(x.ids)
	if b+1<<c > maxEntries {
		// store.Insert refuses a page once full: what a template change
		// files again would have to outgrow entryReserve to get here.
		panic("minhash: candidate index of more than 2^31 entries")
	}
	x.ids = append(x.ids, make([]uint32, 1<<c)...)
	return uint32(b)
}

// freeBlock returns the block of class c at offset b to the free blocks.
func (x *index) freeBlock(b uint32, c int) {
	x.ids[b] = x.free[c]
	x.free[c] = b
}

// full reports whether x holds so many entries that it takes no page more:
// about 2.7 × 10⁸ pages at the default eight keys.
func (x *index) full() bool { return len(x.ids) > x.limit }

// stoppedKey reports whether k passed MaxPostings.
func (x *index) stoppedKey(k uint32) bool { return x.listOf(k) == stoppedList }
