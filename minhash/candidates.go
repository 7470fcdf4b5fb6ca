package minhash

import (
	"math/bits"
	"runtime"
	"slices"

	"github.com/neardup/neardup/minhash/internal/judge"
)

// queryKeys returns the keys a sketch is looked up under: its first
// judge.QueryWidth × Options.Keys hashes.
func (x *index) queryKeys(s []uint32) []uint32 {
	return s[:min(len(s), judge.QueryWidth*x.keys)]
}

// candidatesShared appends to dst, once each and ascending, the IDs filed
// under two or more of keys, and those filed under one key only, filed
// under at most rare IDs, for which alone reports true (every one when
// alone is nil), and returns the extended slice.
//
// A key filed under many sketches (a common phrase, boilerplate that is
// not yet template) is shared by chance the more often the more sketches
// there are, so through it a sketch is a candidate only with a second
// coincidence: the chance candidates of a query do not grow with the
// index, as those of any shared key do until each key reaches MaxPostings,
// while a near sketch almost always shares several of its smallest hashes.
// A key few sketches share (a rare one) is evidence enough where alone
// says so: the Detector asks it for a page of the query's host, whose keys
// the host's template shifts (store.Search). With rare at least the most
// IDs any of keys is filed under and a nil alone, the candidates are the
// IDs filed under any of keys.
func (x *index) candidatesShared(keys []uint32, rare int, alone func(id uint32) bool, dst []uint32) []uint32 {
	if x.n == 0 {
		return dst
	}
	// Find every key's list before reading any, so that the slots' cache
	// misses overlap rather than follow one another.
	var lists [2 * judge.QueryWidth * DefaultKeys]uint32
	var rbuf [2 * judge.QueryWidth * DefaultKeys]uint32
	rares := rbuf[:0] // the IDs of the rare keys' lists
	n := len(dst)
	for len(keys) > 0 {
		batch := keys[:min(len(keys), len(lists))]
		keys = keys[len(batch):]
		runtime.KeepAlive(x.touchHomes(batch))
		for i, k := range batch {
			lists[i] = x.listOf(k)
		}
		runtime.KeepAlive(x.touchBlocks(lists[:len(batch)]))
		for _, l := range lists[:len(batch)] {
			var filed int
			if dst, filed = x.appendList(dst, l); filed > 0 && filed <= rare {
				rares = append(rares, dst[len(dst)-filed:]...)
			}
		}
	}
	s := dst[n:]
	if len(s) > countSlots/2 {
		return sharedSorted(dst, n, rares, alone)
	}
	// Count the IDs in an open-addressing table of at least twice as many
	// slots, then keep, in place, each ID counted twice or more once, and
	// each rare key's ID counted once that alone takes.
	var ids [countSlots]uint32
	var counts [countSlots]uint8 // 0: a free slot
	logSlots := max(6, bits.Len(uint(2*len(s)-1)))
	mask := uint32(1)<<logSlots - 1
	slot := func(id uint32) uint32 {
		i := id * 0x9e3779b1 >> (32 - logSlots)
		for counts[i] != 0 && ids[i] != id {
			i = (i + 1) & mask
		}
		return i
	}
	for _, id := range s {
		i := slot(id)
		ids[i] = id
		counts[i] = min(counts[i]+1, 2)
	}
	out := n
	for _, id := range s {
		if i := slot(id); counts[i] == 2 {
			counts[i] = 3 // kept once
			dst[out] = id
			out++
		}
	}
	for _, id := range rares {
		if i := slot(id); counts[i] == 1 {
			counts[i] = 3 // judged once
			if alone == nil || alone(id) {
				dst[out] = id
				out++
			}
		}
	}
	slices.Sort(dst[n:out])
	return dst[:out]
}

// touchHomes reads the home slot of each of keys, all before any is
// searched: a search branches on what it reads, and a branch mispredicted
// on a cache miss would hold the next key's miss back until the first is
// served. It returns what it read.
func (x *index) touchHomes(keys []uint32) uint64 {
	var sum uint64
	for _, k := range keys {
		sum += x.slots[x.home(k)]
	}
	return sum
}

// touchBlocks reads the first entry of the blocks of lists (the length of
// each list of two or more IDs), all before any is read in full, for the
// same reason, and returns what it read.
func (x *index) touchBlocks(lists []uint32) uint32 {
	var sum uint32
	for _, l := range lists {
		if l >= blockList && l != stoppedList {
			sum += x.ids[l-blockList]
		}
	}
	return sum
}

// countSlots is the size of candidatesShared's count table: it counts up
// to countSlots/2 IDs in it, and sorts more.
const countSlots = 2048

// sharedSorted is candidatesShared's rule (the IDs of dst[n:] that occur
// twice or more, and those of rares that occur once and alone takes), by
// sorting them.
func sharedSorted(dst []uint32, n int, rares []uint32, alone func(id uint32) bool) []uint32 {
	s := dst[n:]
	slices.Sort(s)
	slices.Sort(rares)
	out := n
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i >= 2 || j-i == 1 && isRare(rares, s[i]) && (alone == nil || alone(s[i])) {
			dst[out] = s[i]
			out++
		}
		i = j
	}
	return dst[:out]
}

// isRare reports whether the sorted rares hold id.
func isRare(rares []uint32, id uint32) bool {
	_, ok := slices.BinarySearch(rares, id)
	return ok
}
