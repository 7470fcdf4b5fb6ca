package minhash

import (
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Sketch is a bottom-k MinHash sketch of a set: its k smallest distinct
// 32-bit element hashes, ascending. A Sketch of a set with fewer than k
// elements holds all of them, and so is exact. Two sketches of the same k
// (and the same hashing: this package's Builder) estimate the Jaccard
// similarity of their sets (Jaccard).
type Sketch []uint32

// Jaccard returns the estimated Jaccard similarity |A ∩ B| / |A ∪ B| of the
// sets sketched by a and b with k hashes each: of the hashes of a ∪ b below
// the smaller of the two sketches' k-th hashes, the fraction found in both
// (a sketch shorter than k holds its whole set, so two such sketches are
// compared exactly). Two empty sketches are identical (1); an empty and a
// non-empty one share nothing (0).
func Jaccard(a, b Sketch, k int) float64 { return 1 - Distance(a, b, k) }

// Distance returns 1 − Jaccard(a, b, k), the estimated Jaccard distance.
func Distance(a, b Sketch, k int) float64 {
	return distanceT(a, b, threshold(a, k), threshold(b, k))
}

// whole is the threshold of a sketch that holds its whole set: above every
// hash (fold keeps hashes below it).
const whole = 0xFFFFFFFF

// threshold returns the largest hash a k-hash sketch s speaks for: its k-th
// hash, or whole when s holds its whole set.
func threshold(s Sketch, k int) uint32 {
	if k > 0 && len(s) >= k {
		return s[k-1]
	}
	return whole
}

// distanceT estimates the Jaccard distance of two sets from samples of
// them: a holds every hash of its set up to ta, b every hash of its set up
// to tb. Of the hashes of the union up to the smaller threshold, it returns
// the fraction not in both.
func distanceT(a, b Sketch, ta, tb uint32) float64 {
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
// the w-token shingles of a stream of tokens. It keeps k hashes however
// long the stream. The zero Builder is not ready: use NewBuilder. A Builder
// is not safe for concurrent use; Reset makes it ready for the next set.
type Builder struct {
	k, w   int
	window []uint64 // hashes of the last w-1 tokens, oldest first
	tokens int
	tag    uint32
	heap   []entry // max-heap of the k smallest hashes so far
	in     set32   // the hashes in heap
}

// entry is a hash with the tag it was added under and its element's index
// key (indexKey).
type entry struct{ hash, tag, key uint32 }

// NewBuilder returns a Builder of sketches of k hashes whose Add takes
// tokens and sketches their w-token shingles. k is clamped to
// 1..MaxSketchSize (a k below 1 is raised to 1, one above MaxSketchSize
// lowered to it: K reports the k in effect) and w raised to 1, so that no
// argument allocates beyond a sketch of MaxSketchSize hashes. With w = 1
// every token is an element.
func NewBuilder(k, w int) *Builder {
	k, w = min(max(k, 1), MaxSketchSize), max(w, 1)
	return &Builder{k: k, w: w, heap: make([]entry, 0, k), in: newSet32(k)}
}

// K returns the number of hashes the sketches keep.
func (b *Builder) K() int { return b.k }

// Reset empties b for a new set.
func (b *Builder) Reset() {
	b.window = b.window[:0]
	b.tokens = 0
	b.tag = 0
	b.heap = b.heap[:0]
	b.in.clear()
}

// setTag sets the tag of the elements added next (see tagged).
func (b *Builder) setTag(tag uint32) { b.tag = tag }

// Add adds the next token of the stream: the shingle it ends (with the w−1
// tokens before it) is an element of the set.
func (b *Builder) Add(token string) { b.AddHash(xxhash.Sum64String(token)) }

// AddHash is Add for a token given by its 64-bit hash.
func (b *Builder) AddHash(t uint64) {
	b.tokens++
	if len(b.window) < b.w-1 {
		b.window = append(b.window, t)
		return
	}
	b.push(shingleHash(b.window, t))
	if len(b.window) > 0 {
		copy(b.window, b.window[1:])
		b.window[len(b.window)-1] = t
	}
}

// AddElement adds one element of the set, given by its 64-bit hash,
// bypassing shingling: for sets that are not token streams (the words of a
// title, the fields of a row).
func (b *Builder) AddElement(h uint64) { b.push(h) }

// count returns the number of tokens added since the last Reset.
func (b *Builder) count() int { return b.tokens }

// shingleHash hashes the shingle of the tokens prev followed by last, in
// 64 bits (push folds them).
func shingleHash(prev []uint64, last uint64) uint64 {
	h := uint64(len(prev) + 1)
	for _, x := range prev {
		h = (h ^ x) * 0x9e3779b97f4a7c15
	}
	return (h ^ last) * 0x9e3779b97f4a7c15
}

// indexKey returns the index key of an element of 64-bit hash h: 32 bits
// of it mixed apart from the ones fold keeps. The elements a sketch keeps
// have small folded hashes (the smallest of their set), which unrelated
// sets share by chance more often the more sets there are; their keys are
// uniform over the 32-bit values whatever the folded hash.
func indexKey(h uint64) uint32 { return uint32((h * 0xff51afd7ed558ccd) >> 32) }

// push keeps the element of 64-bit hash x if its folded hash is among the
// k smallest distinct hashes so far.
func (b *Builder) push(x uint64) {
	v := fold(x)
	h := b.heap
	if len(h) == b.k && v >= h[0].hash {
		return
	}
	if !b.in.add(v) {
		return
	}
	e := entry{v, b.tag, indexKey(x)}
	if len(h) == b.k {
		b.in.remove(h[0].hash)
		h[0] = e
		down(h, 0)
		return
	}
	b.heap = append(h, e)
	up(b.heap, len(b.heap)-1)
}

// flush makes a stream shorter than w tokens one shingle of all its tokens.
func (b *Builder) flush() {
	if b.tokens > 0 && b.tokens < b.w && len(b.heap) == 0 {
		b.push(shingleHash(b.window[:len(b.window)-1], b.window[len(b.window)-1]))
	}
}

// Sketch returns the sketch of the set so far (a new slice). A token stream
// shorter than w tokens is one shingle of all its tokens; an empty stream
// has an empty sketch.
func (b *Builder) Sketch() Sketch { return b.appendSketch(nil) }

// appendSketch appends the sketch of the set so far to dst and returns the
// extended slice.
func (b *Builder) appendSketch(dst Sketch) Sketch {
	b.flush()
	n := len(dst)
	for _, e := range b.heap {
		dst = append(dst, e.hash)
	}
	slices.Sort(dst[n:])
	return dst
}

// tagged returns the sketch with the tag each hash was added under, both
// ascending by hash (tags[i] is the tag of s[i]), and the index key of
// each hash's element.
func (b *Builder) tagged() (s Sketch, tags, keys []uint32) {
	b.flush()
	es := slices.Clone(b.heap)
	slices.SortFunc(es, func(x, y entry) int {
		if x.hash < y.hash {
			return -1
		}
		if x.hash > y.hash {
			return 1
		}
		return 0
	})
	n := len(es)
	buf := make([]uint32, 2*n) // the sketch and its keys, kept together
	s, tags, keys = Sketch(buf[:n:n]), make([]uint32, n), buf[n:]
	for i, e := range es {
		s[i], tags[i], keys[i] = e.hash, e.tag, e.key
	}
	return s, tags, keys
}

// SketchOf returns the k-hash sketch of the w-token shingles of tokens, k
// and w clamped as NewBuilder clamps them (at most MaxSketchSize hashes).
func SketchOf(tokens []string, k, w int) Sketch {
	b := NewBuilder(k, w)
	for _, t := range tokens {
		b.Add(t)
	}
	return b.Sketch()
}

// up and down keep a max-heap of entries by hash (the largest kept on top).
func up(h []entry, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].hash >= h[i].hash {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func down(h []entry, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r].hash > h[l].hash {
			c = r
		}
		if h[i].hash >= h[c].hash {
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

// fold folds a 64-bit hash to the 32 bits a Sketch keeps, below MaxUint32.
func fold(h uint64) uint32 {
	v := uint32(h>>32 ^ h)
	if v == 0xFFFFFFFF {
		v--
	}
	return v
}
