package minhash

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup"
)

// Defaults of LSHOptions.
const (
	// DefaultSignatureSize is LSHOptions.K when it is zero.
	DefaultSignatureSize = 128
	// DefaultMinProbability is LSHOptions.MinProbability when it is zero.
	DefaultMinProbability = 0.99
	// MaxSignatureSize is the largest LSHOptions.K.
	MaxSignatureSize = 1024
)

// ErrSignatureLength is wrapped by the errors LSH.Insert returns for a
// signature whose length is not the LSH's K.
var ErrSignatureLength = errors.New("minhash: signature length is not the LSH's K")

// Signature is a MinHash signature of a set with aligned positions: its
// i-th value is the smallest value of the i-th of k hash functions over the
// set's elements. Two sets of Jaccard similarity J have equal i-th values
// with probability J, independently for each i (up to the hash functions'
// quality), which is what banding (LSH) needs; a bottom-k Sketch has no
// positions and estimates better for the same k (Jaccard), so use it to
// compare, and a Signature to find candidates by a threshold. An empty set
// has the signature of all 0xFFFFFFFF values.
type Signature []uint32

// NewSignature returns the k-value signature of the set of elements given
// by their 64-bit hashes (such as xxhash of a word; duplicates are
// harmless), appended to dst[:0]. k is clamped to 1..MaxSignatureSize. It
// costs k × len(elements) multiply-adds (BenchmarkSignature): cheap for
// records of a few words, k times a bottom-k Sketch's cost for a page of
// hundreds of shingles, where a Builder costs a hash a shingle.
func NewSignature(k int, elements []uint64, dst Signature) Signature {
	k = min(max(k, 1), MaxSignatureSize)
	dst = slices.Grow(dst[:0], k)[:k]
	if len(elements) <= 16 { // a record: one hash function at a time
		for i := range dst {
			a, c := signatureHash(i)
			m := uint32(math.MaxUint32)
			for _, x := range elements {
				if v := uint32((x*a + c) >> 32); v < m {
					m = v
				}
			}
			dst[i] = m
		}
		return dst
	}
	var a, c [MaxSignatureSize]uint64
	for i := range dst {
		a[i], c[i] = signatureHash(i)
		dst[i] = math.MaxUint32
	}
	for _, x := range elements {
		for i := range dst {
			if v := uint32((x*a[i] + c[i]) >> 32); v < dst[i] {
				dst[i] = v
			}
		}
	}
	return dst
}

// signatureHash returns the parameters of the i-th hash function of a
// signature: x ↦ the high 32 bits of a·x + c mod 2^64, a odd (a
// multiply-shift hash of the element's 64-bit hash, which is uniform
// already). They are SplitMix64 outputs, the same in every process.
func signatureHash(i int) (a, c uint64) {
	z := uint64(i)*2*0x9e3779b97f4a7c15 + 0x6a09e667f3bcc909
	return splitmix(z) | 1, splitmix(z + 0x9e3779b97f4a7c15)
}

func splitmix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// SignatureOf returns the k-value signature of the w-token shingles of
// tokens (w ≥ 1; with w = 1 every token is an element; a stream shorter
// than w tokens is one shingle of all its tokens), hashed as a Builder
// hashes them.
func SignatureOf(tokens []string, k, w int) Signature {
	w = max(w, 1)
	hs := make([]uint64, 0, len(tokens))
	window := make([]uint64, 0, w)
	for _, t := range tokens {
		h := xxhash.Sum64String(t)
		if len(window) < w-1 {
			window = append(window, h)
			continue
		}
		hs = append(hs, shingleHash(window, h))
		if len(window) > 0 {
			copy(window, window[1:])
			window[len(window)-1] = h
		}
	}
	if len(hs) == 0 && len(window) > 0 {
		hs = append(hs, shingleHash(window[:len(window)-1], window[len(window)-1]))
	}
	return NewSignature(k, hs, nil)
}

// SignatureJaccard estimates the Jaccard similarity of the sets of two
// signatures of one k: the share of positions at which they agree. It
// returns 0 for signatures of different lengths.
func SignatureJaccard(a, b Signature) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// LSHOptions configures an LSH. The zero value of every field but
// Threshold means its default.
type LSHOptions struct {
	// Threshold is the Jaccard similarity from which a pair is to be found,
	// in (0, 1]; required.
	Threshold float64
	// K is the length of the signatures (default 128, at most 1024).
	K int
	// FalsePositiveWeight and FalseNegativeWeight weigh, as datasketch's
	// MinHashLSH does, the area under the probability of finding a pair
	// below Threshold (pairs found that are not wanted) against the area
	// above the probability of missing one above it; the bands and rows
	// minimise their weighted sum. Zero means 0.5 each; negative is
	// invalid.
	FalsePositiveWeight, FalseNegativeWeight float64
	// MinProbability is the probability, at least, of finding a pair of
	// Jaccard similarity Threshold (default 0.99; negative: no floor, which
	// is datasketch's choice and finds 30–60 % of the pairs at the
	// threshold itself). The bands and rows are chosen among those that
	// reach it; when none of them do (a K too small), the ones that come
	// closest.
	MinProbability float64
	// Bands and Rows, both set (Bands × Rows ≤ K), override the choice.
	Bands, Rows int
}

// LSH is a MinHash LSH index with threshold semantics for any records:
// it files each record's Signature in b bands of r values and returns as
// candidates of a query the records that agree with it on a whole band.
// A record of Jaccard similarity J to the query is a candidate with
// probability
//
//	P(J) = 1 − (1 − J^r)^b
//
// (Probability), which rises steeply around Threshold: b and r are chosen
// from it (see LSHOptions). An unrelated record (J near 0) needs r
// coincidences in one band, so the candidates of a query do not grow with
// the number of records unless the records themselves are similar. A
// candidate still has to be compared (SignatureJaccard, or the records'
// sketches) to be a match.
//
// It keeps about 20 bytes a band per record (a band's 32-bit value and the
// record's ID in a map: 18–23 B measured, BenchmarkRecords); no signature. Records are named by the caller's
// uint32 IDs. An LSH is not safe for concurrent use: callers serialise
// Insert and Remove with Query.
//
// When not to use it: for a threshold below about 0.3 the bands needed
// (tens of 1- or 2-value bands) make chance candidates common; use an
// Index or compare exhaustively.
type LSH struct {
	o     LSHOptions
	b, r  int
	bands []Index
}

// NewLSH returns an empty LSH. Errors wrap neardup.ErrInvalidOption.
func NewLSH(o LSHOptions) (*LSH, error) {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("minhash: LSHOptions.%s = %v, want %s: %w", field, v, want, neardup.ErrInvalidOption)
	}
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		return nil, bad("Threshold", o.Threshold, "in (0, 1]")
	}
	switch {
	case o.K == 0:
		o.K = DefaultSignatureSize
	case o.K < 1 || o.K > MaxSignatureSize:
		return nil, bad("K", o.K, fmt.Sprintf("1 to %d", MaxSignatureSize))
	}
	for _, w := range []struct {
		name string
		v    *float64
	}{{"FalsePositiveWeight", &o.FalsePositiveWeight}, {"FalseNegativeWeight", &o.FalseNegativeWeight}} {
		switch {
		case *w.v == 0:
			*w.v = 0.5
		case !(*w.v > 0) || math.IsInf(*w.v, 0):
			return nil, bad(w.name, *w.v, "finite and not negative (0: 0.5)")
		}
	}
	switch {
	case o.MinProbability == 0:
		o.MinProbability = DefaultMinProbability
	case math.IsNaN(o.MinProbability) || o.MinProbability > 1:
		return nil, bad("MinProbability", o.MinProbability, "at most 1 (0: 0.99, negative: none)")
	}
	switch {
	case o.Bands == 0 && o.Rows == 0:
		o.Bands, o.Rows = optimalBands(o)
	case o.Bands < 1 || o.Rows < 1 || o.Bands*o.Rows > o.K:
		return nil, bad("Bands", fmt.Sprintf("%d (Rows %d)", o.Bands, o.Rows), fmt.Sprintf("Bands, Rows ≥ 1 with Bands × Rows ≤ K = %d, or both 0", o.K))
	}
	x := &LSH{o: o, b: o.Bands, r: o.Rows, bands: make([]Index, o.Bands)}
	for i := range x.bands {
		x.bands[i].init(IndexOptions{Keys: 1, MaxPostings: -1})
	}
	return x, nil
}

// Options returns the options in effect, Bands and Rows filled in.
func (x *LSH) Options() LSHOptions { return x.o }

// Probability returns the probability that a record of Jaccard similarity
// j to a query is its candidate: 1 − (1 − j^r)^b.
func (x *LSH) Probability(j float64) float64 { return bandProbability(j, x.b, x.r) }

func bandProbability(j float64, b, r int) float64 {
	return 1 - math.Pow(1-math.Pow(j, float64(r)), float64(b))
}

// optimalBands returns the b, r (b·r ≤ K) that minimise the weighted false
// positive and false negative areas among those whose probability at the
// threshold reaches MinProbability (or, if none does, that come closest).
func optimalBands(o LSHOptions) (int, int) {
	const steps = 200
	area := func(lo, hi float64, f func(float64) float64) float64 {
		h, s := (hi-lo)/steps, 0.0
		for i := range steps {
			s += f(lo + (float64(i)+0.5)*h)
		}
		return s * h
	}
	t := o.Threshold
	reachB, reachR, reachE := 0, 0, math.Inf(1) // the best that reach MinProbability
	closeB, closeR, closeP := 1, 1, -1.0        // the one that comes closest
	for r := 1; r <= o.K; r++ {
		for b := 1; b*r <= o.K; b++ {
			p := bandProbability(t, b, r)
			if p < o.MinProbability {
				if p > closeP {
					closeB, closeR, closeP = b, r, p
				}
				continue
			}
			fp := area(0, t, func(s float64) float64 { return bandProbability(s, b, r) })
			fn := area(t, 1, func(s float64) float64 { return 1 - bandProbability(s, b, r) })
			if e := o.FalsePositiveWeight*fp + o.FalseNegativeWeight*fn; e < reachE {
				reachB, reachR, reachE = b, r, e
			}
		}
	}
	if reachB == 0 {
		return closeB, closeR
	}
	return reachB, reachR
}

// bandKey hashes band i of s (its r values) to 32 bits.
func (x *LSH) bandKey(s Signature, i int) uint32 {
	h := uint64(i+1) * 0x9e3779b97f4a7c15
	for _, v := range s[i*x.r : (i+1)*x.r] {
		h = (h ^ uint64(v)) * 0xff51afd7ed558ccd
		h ^= h >> 29
	}
	return uint32(h >> 32)
}

// Insert files id under the bands of s. It returns an error wrapping
// ErrSignatureLength when len(s) is not K. Inserting an id twice files it
// twice; Remove it first to file it again.
func (x *LSH) Insert(id uint32, s Signature) error {
	if len(s) != x.o.K {
		return fmt.Errorf("minhash: LSH.Insert: signature of %d values, K = %d: %w", len(s), x.o.K, ErrSignatureLength)
	}
	for i := range x.bands {
		k := x.bandKey(s, i)
		x.bands[i].Insert(id, []uint32{k})
	}
	return nil
}

// Remove takes id, filed under s, out of the index. A signature of the
// wrong length, or an id not filed under s, is ignored.
func (x *LSH) Remove(id uint32, s Signature) {
	if len(s) != x.o.K {
		return
	}
	for i := range x.bands {
		k := x.bandKey(s, i)
		x.bands[i].Remove(id, []uint32{k})
	}
}

// Query appends to dst, once each and ascending, the IDs of the records
// that agree with s on a whole band, and returns the extended slice. A
// signature of the wrong length has no candidates.
func (x *LSH) Query(s Signature, dst []uint32) []uint32 {
	if len(s) != x.o.K {
		return dst
	}
	n := len(dst)
	for i := range x.bands {
		dst, _ = x.bands[i].appendFiled(dst, x.bandKey(s, i))
	}
	slices.Sort(dst[n:])
	return append(dst[:n], slices.Compact(dst[n:])...)
}

// Len returns the number of (band, ID) entries filed: Bands × the records.
func (x *LSH) Len() int {
	n := 0
	for i := range x.bands {
		n += x.bands[i].Len()
	}
	return n
}
