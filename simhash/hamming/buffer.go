package hamming

import (
	"math/bits"
)

// buffer holds the entries added since the last merge, linked into one
// chain per table (keyed on the table's top bits) and one per id hash.
//
// A table's chain head is one word: the index of the chain's first entry, the
// number of entries (1, 2, 3, or 4 for four or more) and a tag of each of
// the first three entries: its low tagBits bits of permuted fingerprint
// (bits below any key). The index takes as many bits as the buffer's size
// needs and the tags share the rest (15 bits each at a million entries). A
// query whose own low bits differ from a tag in more than k places need not
// load that entry, so that a chain of up to three entries, which is nearly
// every chain (the buffer holds up to about two entries per chain), costs a
// random query the one load of its head, made together with the directory
// loads; only the entries whose tags match, and longer chains, are walked.
type buffer struct {
	fps     []uint64
	ids     []uint64
	dead    []uint64
	ndead   int
	next    []int32    // links per entry (links of them): entry index+1, 0 ends
	links   int        // len(tables)+1: a chain per table, then the id chain
	heads   [][]uint64 // per table: index+1 | (count-1)<<idxBits | tags<<(idxBits+2)
	sums    [][]uint16 // per table, beside heads: 0, sumOne|tag, or sumMany
	idxBits uint       // bits of a head's index: bits.Len(limit)
	tagBits uint       // bits of each of its three tags
	idHeads []int32    // id chain heads, keyed on mix64(id)
	shift   []uint     // per chain (tables, then ids): 64 - key bits
	limit   int
	probes  []int // probes[k']: chains a multi-probe query at k' looks up
}

// sumAdd returns the summary of a chain whose summary was s once an entry
// with permuted value key is put in front of it.
func sumAdd(s uint16, key uint64) uint16 {
	if s == 0 {
		return sumOne | uint16(key)&(sumOne-1)
	}
	return sumMany
}

// sumSkips reports whether summary s rules out every entry of its chain for
// a query with permuted value qt at distance k.
func sumSkips(s uint16, qt uint64, k int) bool {
	return s == 0 || s&sumOne != 0 && bits.OnesCount16((s^uint16(qt))&(sumOne-1)) > k
}

// sizeHeads splits a head's word for a buffer of up to limit entries: the
// index takes bits.Len(limit) bits (below 1<<30: limit is at most
// maxIndexEntries/8), the count two, and the three tags share the rest.
func (bf *buffer) sizeHeads(limit int) {
	bf.idxBits = uint(bits.Len(uint(limit)))
	bf.tagBits = (62 - bf.idxBits) / 3
}

// headEntry returns the first entry (index+1, 0: none) of the chain whose
// head is h.
func (bf *buffer) headEntry(h uint64) int32 {
	return int32(h & (1<<bf.idxBits - 1))
}

// headAdd returns the head of a chain whose head was h once the entry with
// index i and permuted value key is put in front of it.
func (bf *buffer) headAdd(h uint64, i int, key uint64) uint64 {
	ib, w := bf.idxBits, bf.tagBits
	tags := h >> (ib + 2)
	n := uint64(0)
	if h != 0 {
		n = min(h>>ib&3+1, 3)
	}
	tags = (tags<<w | key&(1<<w-1)) & (1<<(3*w) - 1)
	return uint64(i+1) | n<<ib | tags<<(ib+2)
}

// first returns the entry at which a query with permuted value qt, at
// distance k, must start its walk of the chain whose head is h (0: none):
// the first entry, unless its tag rules it out; then the second, unless the
// tags rule out every entry of the chain after the first.
func (bf *buffer) first(h uint64, t int, qt uint64, k int) int32 {
	e, near, rest := bf.scope(h, qt, k)
	switch {
	case near:
		return e
	case rest:
		return bf.next[int(e-1)*bf.links+t]
	}
	return 0
}

// scope reads the head h of a chain for a query with permuted value qt at
// distance k: the chain's first entry e (0: none), whether its tag leaves
// it possibly within k (near), and whether the tags and count leave any
// entry after it possibly within k (rest).
func (bf *buffer) scope(h, qt uint64, k int) (e int32, near, rest bool) {
	ib, w := bf.idxBits, bf.tagBits
	e = bf.headEntry(h)
	if e == 0 {
		return 0, false, false
	}
	mask := uint64(1)<<w - 1
	q := qt & mask
	tags := h >> (ib + 2)
	near = bits.OnesCount64(tags&mask^q) <= k
	switch h >> ib & 3 { // entries - 1
	case 0:
		rest = false
	case 1:
		rest = bits.OnesCount64(tags>>w&mask^q) <= k
	case 2:
		rest = bits.OnesCount64(tags>>w&mask^q) <= k || bits.OnesCount64(tags>>(2*w)&mask^q) <= k
	default:
		rest = true
	}
	return e, near, rest
}

// reset empties the buffer and sizes it for limit entries.
func (bf *buffer) reset(l *layout, limit int) {
	T := len(l.tables)
	S := T + 1
	bb := bufferBits(limit)
	if bf.limit != limit || bf.heads == nil {
		bf.links = S
		bf.heads = make([][]uint64, T)
		bf.sums = make([][]uint16, T)
		bf.shift = make([]uint, S)
		for t := range T {
			kb := min(bb, l.tables[t].prefix)
			bf.heads[t] = make([]uint64, 1<<kb)
			bf.sums[t] = make([]uint16, 1<<kb)
			bf.shift[t] = uint(64 - kb)
		}
		bf.idHeads = make([]int32, 1<<bb)
		bf.shift[T] = uint(64 - bb)
		bf.fps = make([]uint64, 0, limit)
		bf.ids = make([]uint64, 0, limit)
		bf.next = make([]int32, 0, limit*S)
		bf.dead = make([]uint64, (limit+63)/64)
	} else {
		for t := range bf.heads {
			clear(bf.heads[t])
			clear(bf.sums[t])
		}
		clear(bf.idHeads)
		bf.fps, bf.ids, bf.next = bf.fps[:0], bf.ids[:0], bf.next[:0]
		clear(bf.dead)
	}
	bf.limit = limit
	bf.sizeHeads(limit)
	bf.ndead = 0
	bf.probes = make([]int, l.k+1)
	for kk := range bf.probes {
		for t := range l.nprobe[kk] {
			bf.probes[kk] += neighbours(64-int(bf.shift[t]), l.qradius[kk])
		}
	}
}

// prefetchAdd prefetches what adding an entry of fingerprint fp writes to:
// the table chain heads it joins, and the lines that the entries appended a
// few adds later will be stored to.
func (bf *buffer) prefetchAdd(l *layout, fp uint64) {
	var pl prefetchList
	bf.prefetchHeadsTo(&pl, l, fp)
	bf.prefetchAppends(&pl)
	pl.Flush()
}

// appendAhead is how many entries ahead of the next one prefetchAppends
// fetches the lines of.
const appendAhead = 8

// prefetchAppends adds to pl the lines that the entry appendAhead entries
// after the next will be stored to: its fingerprint, id and links. The
// arrays are written in order, a new line every few entries, and a store to
// a line not in cache holds up the next lock release until it arrives.
func (bf *buffer) prefetchAppends(pl *prefetchList) {
	i := len(bf.fps) + appendAhead
	prefetchTo(pl, bf.fps[:cap(bf.fps)], i)
	prefetchTo(pl, bf.ids[:cap(bf.ids)], i)
	prefetchTo(pl, bf.next[:cap(bf.next)], i*bf.links)
}

// prefetchEntry adds to pl the fingerprint and table t's link of entry e
// (index+1): what a walk of t's chain reads there.
func (bf *buffer) prefetchEntry(pl *prefetchList, e int32, t int) {
	prefetchTo(pl, bf.fps, int(e-1))
	prefetchTo(pl, bf.next, int(e-1)*bf.links+t)
}

// prefetchHeadsTo adds to pl the table chain heads an entry of fingerprint
// fp joins.
func (bf *buffer) prefetchHeadsTo(pl *prefetchList, l *layout, fp uint64) {
	for t, h := range bf.heads {
		j := int(l.permute(t, fp) >> bf.shift[t])
		prefetchTo(pl, h, j)
		prefetchTo(pl, bf.sums[t], j)
	}
}

func (bf *buffer) add(l *layout, id, fp uint64) {
	i := len(bf.fps)
	if i == len(bf.dead)*64 {
		bf.dead = append(bf.dead, 0)
	}
	bf.fps = append(bf.fps, fp)
	bf.ids = append(bf.ids, id)
	T := len(bf.heads)
	for t := range T {
		key := l.permute(t, fp)
		j := key >> bf.shift[t]
		h := &bf.heads[t][j]
		bf.next = append(bf.next, bf.headEntry(*h))
		*h = bf.headAdd(*h, i, key)
		bf.sums[t][j] = sumAdd(bf.sums[t][j], key)
	}
	h := &bf.idHeads[mix64(id)>>bf.shift[T]]
	bf.next = append(bf.next, *h)
	*h = int32(i + 1)
}

// Beside each chain head a table keeps a two-byte summary of the chain, in
// an array a quarter the size of the heads (128 KB per table at a million
// entries) that mostly stays in cache: 0 for no entry, sumOne with the low
// 15 bits of permuted fingerprint of a lone entry, or sumMany. Query reads
// the summaries with the directory entries and loads only the heads they
// cannot rule out, together with the buckets: a random query then waits
// for memory twice (buckets, then in one query in seven a chain entry)
// rather than for the heads too. QueryBatch, whose misses overlap anyway,
// reads the heads.
const (
	sumOne  = 1 << 15
	sumMany = 1
)
