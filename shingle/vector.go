package shingle

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/snapshot"
)

// MaxM is the largest shingle size a Vector supports: the size k of a pattern
// is kept in the top five bits of its key.
const MaxM = 32

// DefaultM is the largest shingle size used when Options.M is zero (Khan et al.
// §3.2: "the maximum k value is 4 as it provides an effective result").
const DefaultM = 4

const (
	kShift = 59                 // the top 5 bits of a key hold MaxM-k
	hMask  = 1<<kShift - 1      // the low 59 bits hold the pattern hash
	mulP   = 0x9E3779B97F4A7C15 // odd multiplier of the polynomial shingle hash
)

// Shingles returns the k-shingles of tokens: every run of k consecutive
// tokens, in document order, repeats included (Khan et al. Table 1). Each shingle
// is a subslice of tokens (no token is copied). It returns nil when k < 1 or
// len(tokens) < k.
func Shingles(tokens []string, k int) [][]string {
	if k < 1 || len(tokens) < k {
		return nil
	}
	out := make([][]string, 0, len(tokens)-k+1)
	for i := 0; i+k <= len(tokens); i++ {
		out = append(out, tokens[i:i+k:i+k])
	}
	return out
}

// PatternKey returns the key under which a Vector stores the pattern made of
// the given tokens (a len(pattern)-shingle). Keys sort by shingle size
// descending, then by a 59-bit xxhash-based hash of the token sequence; the
// hash does not depend on how the tokens are joined, so ["a b"] and ["a", "b"]
// are different patterns. It returns 0 when len(pattern) is not in 1..MaxM.
func PatternKey(pattern []string) uint64 {
	if len(pattern) < 1 || len(pattern) > MaxM {
		return 0
	}
	var h uint64
	for _, t := range pattern {
		h = h*mulP + xxhash.Sum64String(t)
	}
	return makeKey(h, len(pattern))
}

// makeKey finishes the polynomial hash h of a k-shingle and packs k into the
// key's top bits.
func makeKey(h uint64, k int) uint64 {
	// murmur3 fmix64: every input bit reaches the kept 59 bits.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return uint64(MaxM-k)<<kShift | h&hMask
}

// KeySize returns the shingle size k of a pattern key.
func KeySize(key uint64) int { return MaxM - int(key>>kShift) }

// Vector is the weighted pattern vector of one document (Khan et al. §3.2): for
// every distinct k-shingle of its tokens, k = 1..M, the key of the pattern and
// its length-normalised log weight
//
//	wt(p) = 1 + log10(tf(p)),   norm(p) = wt(p) / sqrt(Σ_q wt(q)²)
//
// where the sum runs over all patterns of the document, every k together.
// Entries are sorted by key (k descending, then hash), so two vectors are
// compared by one merge.
//
// A Vector is immutable once built and safe for concurrent use. It holds
// 12 bytes per distinct pattern, at most 12·M·len(tokens) bytes.
type Vector struct {
	m     int
	keys  []uint64
	s     []float32 // (k/M)·norm(p): the term of p in Eq. (1)
	sums  []float64 // sums[k-1] = Σ_{p in group k} s(p), over every pattern of the page
	total float64   // Σ_p s(p), over every pattern of the page
	// cut is complete for a vector of every pattern of its page; for a
	// sample (see sample) it is the largest pattern hash kept: the vector
	// holds exactly the page's patterns whose hash is ≤ cut.
	cut uint64
	// part is Σ s(p) over the patterns held: total, or less for a sample.
	part float64
}

// complete is the cut of a vector that holds every pattern of its page
// (above every 59-bit pattern hash).
const complete = math.MaxUint64

// hashOf is the 59-bit pattern hash of a key, by which samples are drawn.
func hashOf(key uint64) uint64 { return key & hMask }

// sampled reports whether v holds only a sample of its page's patterns.
func (v *Vector) sampled() bool { return v.cut != complete }

// sample returns v when it has at most p patterns (or p ≤ 0), else a
// consistent sample of it: the p patterns of smallest hash (ties at the cut
// included), with their terms unchanged and v's totals, so that two samples
// hold the same patterns of what their pages share (Broder's bottom-k
// sketch, here over weighted patterns).
func (v *Vector) sample(p int) *Vector {
	if p <= 0 || len(v.keys) <= p {
		return v
	}
	hs := make([]uint64, len(v.keys))
	for i, key := range v.keys {
		hs[i] = hashOf(key)
	}
	slices.Sort(hs)
	cut := hs[p-1]
	w := &Vector{m: v.m, sums: v.sums, total: v.total, cut: cut}
	for i, key := range v.keys {
		if hashOf(key) <= cut {
			w.keys = append(w.keys, key)
			w.s = append(w.s, v.s[i])
			w.part += float64(v.s[i])
		}
	}
	w.keys, w.s = slices.Clip(w.keys), slices.Clip(w.s)
	return w
}

// NewVector builds the pattern vector of tokens with shingle sizes 1..m.
// A document with fewer than m tokens has only the groups k ≤ len(tokens);
// the weights k/m of the groups it has are unchanged. It returns an error
// wrapping neardup.ErrInvalidOption when m is not in 1..MaxM, and one
// wrapping neardup.ErrNoFeatures when tokens is empty.
func NewVector(tokens []string, m int) (*Vector, error) {
	if m < 1 || m > MaxM {
		return nil, fmt.Errorf("shingle: M = %d not in 1..%d: %w", m, MaxM, neardup.ErrInvalidOption)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("shingle: no tokens: %w", neardup.ErrNoFeatures)
	}
	n := len(tokens)
	th := make([]uint64, n)
	for i, t := range tokens {
		th[i] = xxhash.Sum64String(t)
	}
	kmax := min(m, n)
	keys := make([]uint64, 0, kmax*n)
	for i := range n {
		var h uint64
		for k := 1; k <= kmax && i+k <= n; k++ {
			h = h*mulP + th[i+k-1]
			keys = append(keys, makeKey(h, k))
		}
	}
	slices.Sort(keys)
	// Run-length the sorted keys into (key, tf) in place.
	tfs := make([]uint32, 0, len(keys))
	w := 0
	for r := 0; r < len(keys); {
		e := r + 1
		for e < len(keys) && keys[e] == keys[r] {
			e++
		}
		keys[w] = keys[r]
		tfs = append(tfs, uint32(e-r))
		w++
		r = e
	}
	return build(m, slices.Clip(keys[:w]), tfs), nil
}

// build weights sorted distinct keys with their term frequencies.
func build(m int, keys []uint64, tfs []uint32) *Vector {
	v := &Vector{m: m, keys: keys, s: make([]float32, len(keys)), sums: make([]float64, m), cut: complete}
	var sq float64
	for _, tf := range tfs {
		wt := logWeight(tf)
		sq += wt * wt
	}
	inv := 1 / math.Sqrt(sq)
	for i, key := range keys {
		k := KeySize(key)
		s := float64(k) / float64(m) * logWeight(tfs[i]) * inv
		v.s[i] = float32(s)
		v.sums[k-1] += float64(v.s[i])
		v.total += float64(v.s[i])
	}
	v.part = v.total
	return v
}

// logWeight is Eq. (2) for tf > 0.
func logWeight(tf uint32) float64 {
	if tf == 1 { // most patterns: skip the logarithm
		return 1
	}
	return 1 + math.Log10(float64(tf))
}

// PatternCount is one pattern of a document and its term frequency, for
// building a Vector from counts (Khan et al. Table 2).
type PatternCount struct {
	// Pattern is the k-shingle: k = len(Pattern) tokens.
	Pattern []string
	// Count is the pattern's term frequency tf in the document. Patterns
	// with Count 0 are absent (Eq. (2): weight 0).
	Count int
}

// FromCounts builds a Vector from pattern counts instead of tokens, as in
// Khan et al. Table 2, where the counts are given rather than derived from a
// text. The counts of a pattern given twice are added. Every pattern must have
// 1..m tokens and a Count ≥ 0, and m must be in 1..MaxM (else the error wraps
// neardup.ErrInvalidOption); at least one Count must be positive (else
// neardup.ErrNoFeatures).
func FromCounts(m int, counts []PatternCount) (*Vector, error) {
	if m < 1 || m > MaxM {
		return nil, fmt.Errorf("shingle: M = %d not in 1..%d: %w", m, MaxM, neardup.ErrInvalidOption)
	}
	tf := make(map[uint64]uint64, len(counts))
	for _, c := range counts {
		if len(c.Pattern) < 1 || len(c.Pattern) > m || c.Count < 0 {
			return nil, fmt.Errorf("shingle: pattern %q count %d with M = %d: %w", c.Pattern, c.Count, m, neardup.ErrInvalidOption)
		}
		if c.Count > 0 {
			tf[PatternKey(c.Pattern)] += uint64(c.Count)
		}
	}
	if len(tf) == 0 {
		return nil, fmt.Errorf("shingle: no pattern with a positive count: %w", neardup.ErrNoFeatures)
	}
	keys := make([]uint64, 0, len(tf))
	for k := range tf {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	tfs := make([]uint32, len(keys))
	for i, k := range keys {
		tfs[i] = uint32(min(tf[k], math.MaxUint32))
	}
	return build(m, keys, tfs), nil
}

// M returns the largest shingle size of v.
func (v *Vector) M() int { return v.m }

// Len returns the number of distinct patterns of v.
func (v *Vector) Len() int { return len(v.keys) }

// Pattern returns the i-th pattern of v in key order: its key, its size k and
// its length-normalised weight norm(p) (Eq. (3), without the k/M factor).
// It panics if i is out of range.
func (v *Vector) Pattern(i int) (key uint64, k int, weight float64) {
	key = v.keys[i]
	k = KeySize(key)
	return key, k, float64(v.s[i]) * float64(v.m) / float64(k)
}

// GroupSum returns Σ_{p in group k} (k/M)·norm(p), the weighted sum of the
// k-shingle group of v, or 0 when k is not in 1..M.
func (v *Vector) GroupSum(k int) float64 {
	if k < 1 || k > v.m {
		return 0
	}
	return v.sums[k-1]
}

// prefixLen returns the length of the shortest prefix of v whose weighted sum
// reaches t (plus a rounding margin), or Len() when the whole vector does not
// reach it. Any document within Eq. (1) dissimilarity t of v shares a pattern
// with that prefix (see doc.go, "Candidates").
func (v *Vector) prefixLen(t float64) int {
	t += 1e-6
	var sum float64
	for i, s := range v.s {
		sum += float64(s)
		if sum >= t {
			return i + 1
		}
	}
	return len(v.s)
}

// encode writes v's keys (as ascending deltas) and terms to a snapshot, then
// for a sample its cut and its page's group sums.
func (v *Vector) encode(sw *snapshot.Writer) {
	sw.Uvarint(uint64(len(v.keys)))
	var prev uint64
	for i, key := range v.keys {
		sw.Uvarint(key - prev)
		sw.Float32(v.s[i])
		prev = key
	}
	if !v.sampled() {
		sw.Uvarint(0)
		return
	}
	sw.Uvarint(v.cut + 1)
	for _, x := range v.sums {
		sw.Uint64(math.Float64bits(x))
	}
}

// decodeVector reads a vector written by encode for shingle sizes 1..m, and
// checks what build guarantees: keys strictly ascending, of sizes 1..m, with
// positive finite terms.
func decodeVector(sr *snapshot.Reader, m int) *Vector {
	n := sr.Count()
	if sr.Err() == nil && n == 0 {
		sr.Fail("shingle: empty vector")
	}
	v := &Vector{m: m, sums: make([]float64, m)}
	var key uint64
	for i := uint64(0); sr.Err() == nil && i < n; i++ {
		d := sr.Uvarint()
		t := sr.Float32()
		if sr.Err() != nil {
			break
		}
		if (i > 0 && d == 0) || key+d < key {
			sr.Fail("shingle: vector keys not ascending")
			break
		}
		key += d
		k := KeySize(key)
		if k < 1 || k > m || !(t > 0) || math.IsInf(float64(t), 0) {
			sr.Fail("shingle: pattern of size %d with term %v (M = %d)", k, t, m)
			break
		}
		v.keys = append(v.keys, key)
		v.s = append(v.s, t)
		v.sums[k-1] += float64(t)
		v.total += float64(t)
	}
	v.part, v.cut = v.total, complete
	if c := sr.Uvarint(); sr.Err() == nil && c > 0 {
		// A sample: every key's hash is ≤ its cut, and its page's group
		// sums are at least the sample's.
		v.cut = c - 1
		if v.cut > hMask || hashOf(slices.MaxFunc(v.keys, func(a, b uint64) int { return cmp.Compare(hashOf(a), hashOf(b)) })) > v.cut {
			sr.Fail("shingle: sample cut %d below a kept pattern's hash", v.cut)
			return v
		}
		v.total = 0
		for k := range v.sums {
			x := math.Float64frombits(sr.Uint64())
			if sr.Err() != nil {
				break
			}
			if !(x >= v.sums[k]*(1-1e-6)) || math.IsInf(x, 0) {
				sr.Fail("shingle: sample's group %d sum %v below its patterns' %v", k+1, x, v.sums[k])
				break
			}
			v.sums[k] = x
			v.total += x
		}
	}
	return v
}
