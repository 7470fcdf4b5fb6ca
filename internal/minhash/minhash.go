// Package minhash keeps bottom-k MinHash sketches of the word shingles of a
// text (A. Z. Broder, "On the resemblance and containment of documents",
// SEQUENCES 1997; the bottom-k form of E. Cohen and H. Kaplan, "Summarizing
// data using bottom-k sketches", PODC 2007): the k smallest distinct 32-bit
// hashes of its w-token shingles. Two sketches estimate the Jaccard
// similarity of the two shingle sets: of the k smallest hashes of their
// union, the fraction found in both. A sketch costs 4·k bytes however long
// the text, and is built in one pass with memory for k hashes.
package minhash

import (
	"cmp"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Sketch is the k smallest distinct shingle hashes of a text, ascending.
type Sketch []uint32

// Entry is a shingle hash with a tag: the block of the text its last token
// is in, so that a sketch of a whole text yields sketches of parts of it
// (Tagged.Keep).
type Entry struct{ Hash, Tag uint32 }

// Tagged is the k smallest distinct shingle hashes of a text with their
// tags, ascending by hash.
type Tagged []Entry

// Hashes returns the sketch of t's hashes.
func (t Tagged) Hashes() Sketch {
	s := make(Sketch, len(t))
	for i, e := range t {
		s[i] = e.Hash
	}
	return s
}

// Split returns t's hashes and tags as two slices.
func (t Tagged) Split() (Sketch, []uint32) {
	s, tags := make(Sketch, len(t)), make([]uint32, len(t))
	for i, e := range t {
		s[i], tags[i] = e.Hash, e.Tag
	}
	return s, tags
}

// Keep returns the hashes of the entries whose tags keep accepts: the
// bottom-k' sketch of the shingles of those parts of the text, k' being the
// number kept (the smallest shingles of a part are among the smallest of
// the whole text, or the whole text's sketch has them all).
func (t Tagged) Keep(keep func(tag uint32) bool) Sketch {
	var s Sketch
	for _, e := range t {
		if keep(e.Tag) {
			s = append(s, e.Hash)
		}
	}
	return s
}

// Builder builds a Sketch from a stream of tokens. The zero value is not
// ready: use NewBuilder.
type Builder struct {
	k, w   int
	window []uint64 // the hashes of the last w-1 tokens, oldest first
	tokens int
	tag    uint32
	h      maxHeap
	in     map[uint32]struct{}
}

// NewBuilder returns a Builder of sketches of k hashes over w-token
// shingles (k ≥ 1, w ≥ 1).
func NewBuilder(k, w int) *Builder {
	return &Builder{k: k, w: w, in: make(map[uint32]struct{}, k)}
}

// Reset empties b for a new text.
func (b *Builder) Reset() {
	b.window = b.window[:0]
	b.tokens = 0
	b.h = b.h[:0]
	clear(b.in)
}

// SetTag sets the tag of the shingles ending in the tokens added next.
func (b *Builder) SetTag(tag uint32) { b.tag = tag }

// Add adds the next token of the text.
func (b *Builder) Add(token string) {
	t := xxhash.Sum64String(token)
	b.tokens++
	if len(b.window) == b.w-1 {
		b.shingle(b.window, t)
		if len(b.window) > 0 {
			copy(b.window, b.window[1:])
			b.window[len(b.window)-1] = t
		}
		return
	}
	b.window = append(b.window, t)
}

// Tokens returns the number of tokens added since the last Reset.
func (b *Builder) Tokens() int { return b.tokens }

// shingle adds the shingle of the tokens prev followed by last.
func (b *Builder) shingle(prev []uint64, last uint64) {
	h := uint64(len(prev) + 1)
	for _, x := range prev {
		h = (h ^ x) * 0x9e3779b97f4a7c15
	}
	h = (h ^ last) * 0x9e3779b97f4a7c15
	b.push(uint32(h>>32 ^ h))
}

// push keeps v if it is among the k smallest distinct hashes so far.
func (b *Builder) push(v uint32) {
	if len(b.h) == b.k && v >= b.h[0].Hash {
		return
	}
	if _, dup := b.in[v]; dup {
		return
	}
	e := Entry{v, b.tag}
	if len(b.h) == b.k {
		delete(b.in, b.h[0].Hash)
		b.h[0] = e
		b.h.down(0)
	} else {
		b.h = append(b.h, e)
		b.h.up(len(b.h) - 1)
	}
	b.in[v] = struct{}{}
}

// Sketch returns the sketch of the tokens added since the last Reset. A text
// shorter than w tokens gets one shingle of all its tokens; a text of no
// token an empty sketch.
func (b *Builder) Sketch() Sketch { return b.Tagged().Hashes() }

// Tagged returns the sketch with the tags of its shingles.
func (b *Builder) Tagged() Tagged {
	if b.tokens > 0 && b.tokens < b.w && len(b.h) == 0 {
		b.shingle(b.window[:len(b.window)-1], b.window[len(b.window)-1])
	}
	t := make(Tagged, len(b.h))
	copy(t, b.h)
	slices.SortFunc(t, func(x, y Entry) int { return cmp.Compare(x.Hash, y.Hash) })
	return t
}

// Distance returns one minus the Jaccard similarity of the shingle sets of
// a and b estimated from their sketches: of the k smallest hashes of a ∪ b,
// the fraction not in both. Each sketch must hold the smallest hashes of its
// set (at least k of them, or all of the set); a k larger than both sketches
// compares them whole (the exact distance of two complete sets). Two empty
// sketches are 0 apart; an empty and a non-empty one, 1.
func Distance(a, b Sketch, k int) float64 {
	i, j, n, both := 0, 0, 0, 0
	for n < k && (i < len(a) || j < len(b)) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			i++
		case i == len(a) || b[j] < a[i]:
			j++
		default:
			both++
			i++
			j++
		}
		n++
	}
	if n == 0 {
		return 0
	}
	return 1 - float64(both)/float64(n)
}

// maxHeap is a max-heap of entries by hash (the largest of the k kept on
// top).
type maxHeap []Entry

func (h maxHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].Hash >= h[i].Hash {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (h maxHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r].Hash > h[l].Hash {
			c = r
		}
		if h[i].Hash >= h[c].Hash {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
