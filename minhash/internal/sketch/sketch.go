// Package sketch holds package minhash's bottom-k MinHash sketches: the
// Builder that makes them from tokens or element hashes, and the estimate
// of the Jaccard distance of two sets from their sketches. Package minhash
// gives them to its users as minhash.Sketch, SketchOf and Jaccard; its
// Detector, its records (minhash/internal/judge) and its LSH's shingles use
// them directly.
package sketch

import (
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Sketch is a bottom-k MinHash sketch of a set: its k smallest distinct
// 32-bit element hashes, ascending (minhash.Sketch is the same).
type Sketch []uint32

// MaxSize is the largest k of a Builder (minhash.MaxSketchSize).
const MaxSize = 256

// Distance returns the estimated Jaccard distance of the sets sketched by a
// and b with k hashes each: of the hashes of a ∪ b below the smaller of the
// two sketches' k-th hashes, the fraction not found in both (a sketch
// shorter than k holds its whole set, so two such sketches are compared
// exactly). Two empty sketches are identical (0); an empty and a non-empty
// one share nothing (1).
func Distance(a, b Sketch, k int) float64 {
	return DistanceT(a, b, Threshold(a, k), Threshold(b, k))
}

// Whole is the threshold of a sketch that holds its whole set: above every
// hash (a Builder keeps hashes below it).
const Whole = 0xFFFFFFFF

// Threshold returns the largest hash a k-hash sketch s speaks for: its k-th
// hash, or Whole when s holds its whole set.
func Threshold(s Sketch, k int) uint32 {
	if k > 0 && len(s) >= k {
		return s[k-1]
	}
	return Whole
}

// DistanceT estimates the Jaccard distance of two sets from samples of
// them: a holds every hash of its set up to ta, b every hash of its set up
// to tb. Of the hashes of the union up to the smaller threshold, it returns
// the fraction not in both.
func DistanceT(a, b Sketch, ta, tb uint32) float64 {
	t := min(ta, tb)
	i, j, union, both := 0, 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		if min(x, y) > t {
			break
		}
		// Branch-free merge step: the comparisons are unpredictable.
		var di, dj int
		if x <= y {
			di = 1
		}
		if y <= x {
			dj = 1
		}
		union++
		both += di & dj
		i += di
		j += dj
	}
	for ; i < len(a) && a[i] <= t; i++ {
		union++
	}
	for ; j < len(b) && b[j] <= t; j++ {
		union++
	}
	if union == 0 {
		if len(a) == 0 && len(b) == 0 {
			return 0
		}
		if len(a) == 0 || len(b) == 0 {
			return 1
		}
		return 0
	}
	return 1 - float64(both)/float64(union)
}

// Builder computes the bottom-k sketch of a stream of set elements, or of
// the w-token shingles of a stream of tokens, with the tag each hash was
// added under (SetTag) and the index key of its element. It keeps k hashes
// however long the stream. The zero Builder is not ready: use NewBuilder. A
// Builder is not safe for concurrent use; Reset makes it ready for the next
// set.
type Builder struct {
	k, w int
	// window holds the hashes of the last w-1 tokens: oldest first while
	// fewer have come, then twice over, so that window[p:p+w-1] holds them
	// oldest first and a token replaces the oldest without moving the rest.
	window []uint64
	p      int
	tokens int
	tag    uint32
	// heap is a max-heap of the k smallest hashes so far, each as
	// hash<<32 | its slot in tags and keys (the hashes are distinct, so
	// the order is the hashes'); a heap of words moves less than one of
	// the hashes with their tags and keys.
	heap       []uint64
	tags, keys []uint32 // by slot: the tag a hash was added under, its element's index key
	sorted     []uint64 // Tagged's copy of heap
	in         set32    // the hashes in heap
}

// NewBuilder returns a Builder of sketches of k hashes whose Add takes
// tokens and sketches their w-token shingles. k is clamped to 1..MaxSize
// (a k below 1 is raised to 1, one above MaxSize lowered to it) and w raised to 1, so that no argument allocates beyond
// a sketch of MaxSize hashes. With w = 1 every token is an element.
func NewBuilder(k, w int) *Builder {
	k, w = min(max(k, 1), MaxSize), max(w, 1)
	return &Builder{k: k, w: w, heap: make([]uint64, 0, k), tags: make([]uint32, k), keys: make([]uint32, k), in: newSet32(k)}
}

// Reset empties b for a new set.
func (b *Builder) Reset() {
	b.window, b.p = b.window[:0], 0
	b.tokens = 0
	b.tag = 0
	b.heap = b.heap[:0]
	b.in.clear()
}

// SetTag sets the tag of the elements added next (see Tagged).
func (b *Builder) SetTag(tag uint32) { b.tag = tag }

// Add adds the next token of the stream: the shingle it ends (with the w−1
// tokens before it) is an element of the set.
func (b *Builder) Add(token string) { b.AddHash(xxhash.Sum64String(token)) }

// AddHash is Add for a token given by its 64-bit hash.
func (b *Builder) AddHash(t uint64) {
	b.tokens++
	m := b.w - 1
	if len(b.window) < m {
		b.window = append(b.window, t)
		if len(b.window) == m {
			b.window = append(b.window, b.window...)
		}
		return
	}
	if m == 0 {
		b.push(ShingleHash(nil, t))
		return
	}
	p := b.p
	b.push(ShingleHash(b.window[p:p+m], t))
	b.window[p], b.window[p+m] = t, t
	if p++; p == m {
		p = 0
	}
	b.p = p
}

// Count returns the number of tokens added since the last Reset.
func (b *Builder) Count() int { return b.tokens }

// ShingleHash hashes the shingle of the tokens (by their 64-bit hashes)
// prev followed by last, in 64 bits: the element a Builder sketches for
// it, and the one minhash's signatures take.
func ShingleHash(prev []uint64, last uint64) uint64 {
	h := uint64(len(prev) + 1)
	for _, x := range prev {
		h = (h ^ x) * 0x9e3779b97f4a7c15
	}
	return (h ^ last) * 0x9e3779b97f4a7c15
}

// IndexKey returns the index key of an element of 64-bit hash h: 32 bits
// of it mixed apart from the ones fold keeps. The elements a sketch keeps
// have small folded hashes (the smallest of their set), which unrelated
// sets share by chance more often the more sets there are; their keys are
// uniform over the 32-bit values whatever the folded hash.
func IndexKey(h uint64) uint32 { return uint32((h * 0xff51afd7ed558ccd) >> 32) }

// push keeps the element of 64-bit hash x if its folded hash is among the
// k smallest distinct hashes so far.
func (b *Builder) push(x uint64) {
	v := fold(x)
	h := b.heap
	if len(h) == b.k && v >= uint32(h[0]>>32) {
		return
	}
	if !b.in.add(v) {
		return
	}
	if len(h) == b.k {
		slot := uint32(h[0])
		b.in.remove(uint32(h[0] >> 32))
		b.tags[slot], b.keys[slot] = b.tag, IndexKey(x)
		h[0] = uint64(v)<<32 | uint64(slot)
		down(h, 0)
		return
	}
	slot := len(h)
	b.tags[slot], b.keys[slot] = b.tag, IndexKey(x)
	b.heap = append(h, uint64(v)<<32|uint64(slot))
	up(b.heap, slot)
}

// flush makes a stream shorter than w tokens one shingle of all its tokens.
func (b *Builder) flush() {
	if b.tokens > 0 && b.tokens < b.w && len(b.heap) == 0 {
		win := b.window[:b.tokens] // every token, oldest first
		b.push(ShingleHash(win[:len(win)-1], win[len(win)-1]))
	}
}

// Sketch returns the sketch of the set so far (a new slice). A token stream
// shorter than w tokens is one shingle of all its tokens; an empty stream
// has an empty sketch.
func (b *Builder) Sketch() Sketch {
	b.flush()
	s := make(Sketch, 0, len(b.heap))
	for _, e := range b.heap {
		s = append(s, uint32(e>>32))
	}
	slices.Sort(s)
	return s
}

// Tagged returns the sketch with the tag each hash was added under, both
// ascending by hash (tags[i] is the tag of s[i]), and the index key of
// each hash's element.
func (b *Builder) Tagged() (s Sketch, tags, keys []uint32) {
	b.flush()
	es := append(b.sorted[:0], b.heap...)
	slices.Sort(es)
	b.sorted = es
	n := len(es)
	buf := make([]uint32, 2*n) // the sketch and its keys, kept together
	s, tags, keys = Sketch(buf[:n:n]), make([]uint32, n), buf[n:]
	for i, e := range es {
		s[i], tags[i], keys[i] = uint32(e>>32), b.tags[uint32(e)], b.keys[uint32(e)]
	}
	return s, tags, keys
}

// up and down keep a max-heap of words (the largest kept on top).
func up(h []uint64, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p] >= h[i] {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func down(h []uint64, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r] > h[l] {
			c = r
		}
		if h[i] >= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// set32 is a small open-addressing set of uint32 below MaxUint32 (linear
// probing, backward-shift deletion) for the hashes a Builder holds: faster
// than a map for the few hundred members of a sketch.
type set32 struct {
	slots []uint32 // member+1; 0 is empty
	n     int
}

func newSet32(k int) set32 {
	size := 16
	for size < 4*k {
		size <<= 1
	}
	return set32{slots: make([]uint32, size)}
}

func (s *set32) clear() {
	if s.n > 0 {
		clear(s.slots)
		s.n = 0
	}
}

func (s *set32) home(v uint32) int { return int((v * 0x9e3779b1) >> 7 & uint32(len(s.slots)-1)) }

// add inserts v and reports whether it was absent.
func (s *set32) add(v uint32) bool {
	m := len(s.slots) - 1
	for i := s.home(v); ; i = (i + 1) & m {
		switch s.slots[i] {
		case 0:
			s.slots[i] = v + 1
			s.n++
			return true
		case v + 1:
			return false
		}
	}
}

// remove deletes v, which must be present.
func (s *set32) remove(v uint32) {
	m := len(s.slots) - 1
	i := s.home(v)
	for s.slots[i] != v+1 {
		i = (i + 1) & m
	}
	for j := (i + 1) & m; s.slots[j] != 0; j = (j + 1) & m {
		if k := s.home(s.slots[j] - 1); (j-k)&m >= (j-i)&m {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = 0
	s.n--
}

// fold folds a 64-bit hash to the 32 bits a Sketch keeps, below Whole.
func fold(h uint64) uint32 {
	v := uint32(h>>32 ^ h)
	if v == 0xFFFFFFFF {
		v--
	}
	return v
}
