package minhash

// slabs allocates the kept pages' slabs (kept.data) from shared chunks
// rather than one object each: a repository of millions of pages holds as
// many objects of a few size classes, all live, and the allocator sweeps
// spans of those classes, cold, looking for free room before it takes a new
// one. A chunk is a large object, allocated without that search, and a slab
// takes its exact length from it, with no rounding up to a size class.
//
// A slab freed (a page deleted, or filed under more or fewer keys) leaves
// its words unused in its chunk, which stays allocated while any other
// slab in it is kept; once the words freed outnumber the words in use, the
// store moves every kept slab to new chunks (compact), so the words freed
// cost at most as many again as the words in use, and the moves cost, per
// word freed, one word copied.
type slabs struct {
	chunk []uint32 // the free tail of the current chunk
	// live counts the words of the slabs in use; dead the words of the
	// chunks allocated since the last compaction that hold no slab in use.
	live, dead int
}

// chunkWords is the length of a chunk, and chunkWords/4 the longest slab
// taken from one (a longer one is allocated alone).
const chunkWords = 1 << 14

// alloc returns a zeroed slab of n words, with no spare capacity.
func (a *slabs) alloc(n int) []uint32 {
	a.live += n
	if n > len(a.chunk) {
		if n > chunkWords/4 {
			return make([]uint32, n)
		}
		a.dead += len(a.chunk)
		a.chunk = make([]uint32, chunkWords)
	}
	s := a.chunk[:n:n]
	a.chunk = a.chunk[n:]
	return s
}

// free records that a slab of n words is no longer in use. A slab too long
// for a chunk was allocated alone and leaves no words behind.
func (a *slabs) free(n int) {
	a.live -= n
	if n <= chunkWords/4 {
		a.dead += n
	}
}

// wasteful reports whether the words freed outnumber those in use (and a
// few chunks' worth, so that a small store is not compacted over and over).
func (a *slabs) wasteful() bool { return a.dead > a.live && a.dead > 4*chunkWords }
