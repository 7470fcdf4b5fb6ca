package minhash

import "github.com/neardup/neardup/minhash/internal/sketch"

// Sketch is a bottom-k MinHash sketch of a set: its k smallest distinct
// 32-bit element hashes, ascending. A Sketch of a set with fewer than k
// elements holds all of them, and so is exact. Two sketches of the same k
// (and the same hashing: SketchOf's) estimate the Jaccard similarity of
// their sets (Jaccard).
type Sketch []uint32

// SketchOf returns the k-hash sketch of the w-token shingles of tokens
// (with w = 1 every token is an element; a stream shorter than w tokens is
// one shingle of all its tokens, no token an empty sketch). k is clamped to
// 1..MaxSketchSize and w raised to 1, so that no argument allocates beyond
// a sketch of MaxSketchSize hashes. Its cost is a hash a token, whatever
// k. For a record of a few words (a title, a product row) take w = 1 or 2:
// it has too few 4-token shingles.
func SketchOf(tokens []string, k, w int) Sketch {
	b := sketch.NewBuilder(k, w)
	for _, t := range tokens {
		b.Add(t)
	}
	return Sketch(b.Sketch())
}

// Jaccard returns the estimated Jaccard similarity |A ∩ B| / |A ∪ B| of the
// sets sketched by a and b with k hashes each: of the hashes of a ∪ b below
// the smaller of the two sketches' k-th hashes, the fraction found in both
// (a sketch shorter than k holds its whole set, so two such sketches are
// compared exactly). Two empty sketches are identical (1); an empty and a
// non-empty one share nothing (0). The Jaccard distance is 1 − Jaccard.
func Jaccard(a, b Sketch, k int) float64 {
	return 1 - sketch.Distance(sketch.Sketch(a), sketch.Sketch(b), k)
}

// shingleHash is the element hash of a shingle, for SignatureOf: the one
// SketchOf sketches.
func shingleHash(prev []uint64, last uint64) uint64 { return sketch.ShingleHash(prev, last) }
