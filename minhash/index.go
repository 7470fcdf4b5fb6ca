package minhash

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/neardup/neardup"
)

// Defaults of IndexOptions.
const (
	// DefaultKeys is IndexOptions.Keys when it is zero.
	DefaultKeys = 8
	// DefaultMaxPostings is IndexOptions.MaxPostings when it is zero.
	DefaultMaxPostings = 256
)

// Named negative values of options, whose zero means their default.
const (
	// NoLimit, as IndexOptions.MaxPostings or Options.MaxPostings, files
	// any number of sketches under a key: a key is never dropped.
	NoLimit = -1
	// NoTemplates, as Options.TemplatePages, turns the per-host template
	// model off: no block counts as a host's template.
	NoTemplates = -1
)

// IndexOptions configures an Index. The zero value selects the defaults.
type IndexOptions struct {
	// Keys is the number of a sketch's smallest hashes it is filed under
	// (Index.Keys); zero means DefaultKeys.
	Keys int
	// MaxPostings bounds the sketches filed under one key: a key filed
	// under more stops being a key (it is dropped and never searched
	// again), so that the hashes of text that many sets share — a site's
	// template, boilerplate, a common phrase — cannot make every query
	// compare with a growing part of the index. Zero means
	// DefaultMaxPostings; NoLimit means no bound; other negative values
	// are invalid.
	MaxPostings int
}

// Index finds, among the sketches it files, those that may be near a query
// sketch: each sketch is filed under its Keys smallest hashes, and the
// candidates of a query are the sketches that share one of its keys. Two sets
// of Jaccard similarity J have the same smallest hash with probability J, so
// with Keys keys a near pair is almost always found; a candidate still has to
// be compared (Jaccard) to be a match.
//
// The work of a query is bounded by Keys × MaxPostings whatever the number of
// sketches filed; a pair of sets found only through keys that have been
// dropped is missed (the recall this costs the Detector is measured in
// docs/BENCHMARKS.md).
//
// Sketches are named by the caller's uint32 IDs (row numbers, handles). The
// zero Index is ready to use with the default options. An Index is not safe
// for concurrent use: callers serialise Insert and Remove with Candidates.
type Index struct {
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
// key that passed MaxPostings) and the offset of its block in Index.ids,
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

// NewIndex returns an empty Index. It returns an error wrapping
// neardup.ErrInvalidOption for a negative Keys or a negative MaxPostings
// other than NoLimit.
func NewIndex(opts IndexOptions) (*Index, error) {
	if opts.Keys < 0 {
		return nil, fmt.Errorf("minhash: IndexOptions.Keys = %d < 0: %w", opts.Keys, neardup.ErrInvalidOption)
	}
	if opts.MaxPostings < 0 && opts.MaxPostings != NoLimit {
		return nil, fmt.Errorf("minhash: IndexOptions.MaxPostings = %d, want NoLimit, 0 or more: %w", opts.MaxPostings, neardup.ErrInvalidOption)
	}
	x := &Index{}
	x.init(opts)
	return x, nil
}

func (x *Index) init(opts IndexOptions) {
	x.keys, x.maxPostings = opts.Keys, opts.MaxPostings
	if x.keys == 0 {
		x.keys = DefaultKeys
	}
	if x.maxPostings == 0 {
		x.maxPostings = DefaultMaxPostings
	}
	x.lists = make(map[uint32]posting)
	for c := range x.free {
		x.free[c] = noBlock
	}
}

func (x *Index) ready() {
	if x.lists == nil {
		x.init(IndexOptions{})
	}
}

// Keys returns the keys a sketch is filed under: its first (smallest)
// hashes, at most IndexOptions.Keys of them. The slice shares s's memory.
func (x *Index) Keys(s Sketch) []uint32 {
	x.ready()
	return s[:min(len(s), x.keys)]
}

// Insert files id under keys (normally Keys of its sketch).
func (x *Index) Insert(id uint32, keys []uint32) {
	x.ready()
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

// Remove takes id out of the lists of keys (the keys it was filed under).
// Keys it is not filed under are ignored.
func (x *Index) Remove(id uint32, keys []uint32) {
	x.ready()
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

// Candidates appends to dst, once each and ascending, the IDs filed under
// any of keys, and returns the extended slice. It appends at most
// len(keys) × MaxPostings IDs.
func (x *Index) Candidates(keys []uint32, dst []uint32) []uint32 {
	if x.lists == nil {
		return dst
	}
	n := len(dst)
	for _, k := range keys {
		dst, _ = x.appendFiled(dst, k)
	}
	slices.Sort(dst[n:])
	return append(dst[:n], slices.Compact(dst[n:])...)
}

// appendFiled appends to dst the IDs filed under key k (none when k is
// not a key or has stopped being one), and returns the extended slice and
// how many it appended.
func (x *Index) appendFiled(dst []uint32, k uint32) ([]uint32, int) {
	p, ok := x.lists[k]
	switch {
	case !ok || p.n == stoppedList:
		return dst, 0
	case p.n == 1:
		return append(dst, p.head), 1
	}
	return append(dst, x.ids[p.head:p.head+uint32(p.n)]...), int(p.n)
}

// Len returns the number of (key, ID) entries filed.
func (x *Index) Len() int { return x.filed }

// Stopped returns the number of keys dropped for passing MaxPostings.
func (x *Index) Stopped() int { return x.stopped }

// newBlock returns the offset in x.ids of a block of class c, a free one
// when there is one.
func (x *Index) newBlock(c int) uint32 {
	if b := x.free[c]; b != noBlock {
		x.free[c] = x.ids[b]
		return b
	}
	b := len(x.ids)
	x.ids = append(x.ids, make([]uint32, 1<<c)...)
	return uint32(b)
}

// freeBlock returns the block of class c at offset b to the free blocks.
func (x *Index) freeBlock(b uint32, c int) {
	x.ids[b] = x.free[c]
	x.free[c] = b
}

// stoppedKey reports whether k passed MaxPostings.
func (x *Index) stoppedKey(k uint32) bool { return x.lists[k].n == stoppedList }
