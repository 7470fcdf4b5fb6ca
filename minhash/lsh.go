package minhash

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

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
// hundreds of shingles, where SketchOf costs a hash a shingle.
func NewSignature(k int, elements []uint64, dst Signature) Signature {
	k = min(max(k, 1), MaxSignatureSize)
	dst = slices.Grow(dst[:0], k)[:k]
	if len(elements) <= 16 {
		// A record: four hash functions at a time over its elements, so
		// that four minima are taken independently (one would wait on
		// each comparison); the least of the 64-bit values has the least
		// high 32 bits.
		i := 0
		for ; i+4 <= k; i += 4 {
			a0, c0 := signatureHash(i)
			a1, c1 := signatureHash(i + 1)
			a2, c2 := signatureHash(i + 2)
			a3, c3 := signatureHash(i + 3)
			m0, m1, m2, m3 := uint64(math.MaxUint64), uint64(math.MaxUint64), uint64(math.MaxUint64), uint64(math.MaxUint64)
			for _, x := range elements {
				m0 = min(m0, x*a0+c0)
				m1 = min(m1, x*a1+c1)
				m2 = min(m2, x*a2+c2)
				m3 = min(m3, x*a3+c3)
			}
			dst[i], dst[i+1], dst[i+2], dst[i+3] = uint32(m0>>32), uint32(m1>>32), uint32(m2>>32), uint32(m3>>32)
		}
		for ; i < k; i++ {
			a, c := signatureHash(i)
			m := uint64(math.MaxUint64)
			for _, x := range elements {
				m = min(m, x*a+c)
			}
			dst[i] = uint32(m >> 32)
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
// than w tokens is one shingle of all its tokens), hashed as SketchOf
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
	// K is the length of the signatures, at most 1024. Zero means the
	// bands × rows the choice below needs (at most 512; 128 when MaxChance
	// is negative).
	K int
	// MinProbability is the probability, at least, of finding a pair of
	// Jaccard similarity Threshold (default 0.99; negative: no floor, which
	// is datasketch's choice and finds 30–60 % of the pairs at the
	// threshold itself). When no bands reach it within K, the ones that
	// come closest are used.
	MinProbability float64
	// MaxChance is the probability, at most, that a record of Jaccard
	// similarity Threshold/2 to the query is a candidate (default 0.001).
	// The bands, rows and collisions are the cheapest that keep both
	// MinProbability and MaxChance (see LSH); when none within K keep
	// MaxChance, those with the least chance. Negative means datasketch's
	// rule instead: one band suffices and the bands and rows minimise the
	// weighted false-positive and false-negative areas.
	MaxChance float64
	// FalsePositiveWeight and FalseNegativeWeight weigh, as datasketch's
	// MinHashLSH does, the area under the probability of finding a pair
	// below Threshold (pairs found that are not wanted) against the area
	// above the probability of missing one above it, when MaxChance is
	// negative. Zero means 0.5 each; negative is invalid.
	FalsePositiveWeight, FalseNegativeWeight float64
	// Bands and Rows, both set (Bands × Rows ≤ K), override the choice,
	// with Collisions (default 1, at most Bands): the bands a record must
	// agree on with the query to be its candidate.
	Bands, Rows, Collisions int
}

// DefaultMaxChance is LSHOptions.MaxChance when it is zero.
const DefaultMaxChance = 0.001

// maxChosenK bounds the signature length the choice of bands may use when
// LSHOptions.K is zero.
const maxChosenK = 512

// LSH is a MinHash LSH index with threshold semantics for any records:
// it files each record's Signature in b bands of r values and returns as
// candidates of a query the records that agree with it on at least m
// whole bands. A record of Jaccard similarity J to the query agrees on
// each band with probability J^r, independently, so it is a candidate
// with probability
//
//	P(J) = P(Binomial(b, J^r) ≥ m)
//
// (Probability; with m = 1 the classic 1 − (1 − J^r)^b). Asking for m
// agreeing bands instead of one makes the curve fall steeply below the
// threshold: a chance candidate needs m·r coincidences, so records that
// share a common word or two with the query, which become more numerous
// with every record filed, stay out of the candidates. By default b, r and
// m are the cheapest (least b·(1 + b·(t/2)^r): the entries a record keeps,
// and those a record at half the threshold shares with a query) that find
// a pair at the threshold t with probability ≥ MinProbability and one at
// t/2 with probability ≤ MaxChance, and K is b·r. A candidate still has to
// be compared (SignatureJaccard, or the records' sketches) to be a match.
//
// It keeps b entries per record (a band's 32-bit value and the record's
// ID; BenchmarkRecords measures the bytes); no signature. Records are
// named by the caller's uint32 IDs. An LSH is not safe for concurrent
// use: callers serialise Insert and Remove with Query.
//
// When not to use it: for a threshold below about 0.3 the bands needed
// make chance candidates common; compare Sketches (Jaccard) exhaustively.
type LSH struct {
	o       LSHOptions
	b, r, m int
	lf      []float64 // ln(i!) for i = 0 … b, for Probability
	bands   []bandTable
	scratch sync.Pool // *queryScratch
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
	case o.MaxChance == 0:
		o.MaxChance = DefaultMaxChance
	case math.IsNaN(o.MaxChance) || o.MaxChance >= 1:
		return nil, bad("MaxChance", o.MaxChance, "below 1 (0: 0.001, negative: datasketch's rule)")
	}
	switch {
	case o.Bands == 0 && o.Rows == 0 && o.Collisions == 0:
		if o.MaxChance < 0 {
			if o.K == 0 {
				o.K = DefaultSignatureSize
			}
			o.Bands, o.Rows = optimalBands(o)
			o.Collisions = 1
			break
		}
		o.Bands, o.Rows, o.Collisions = cheapestBands(o)
		if o.K == 0 {
			o.K = o.Bands * o.Rows
		}
	default:
		if o.K == 0 {
			o.K = o.Bands * o.Rows
		}
		if o.Bands < 1 || o.Rows < 1 || o.Bands*o.Rows > o.K || o.K > MaxSignatureSize {
			return nil, bad("Bands", fmt.Sprintf("%d (Rows %d)", o.Bands, o.Rows), fmt.Sprintf("Bands, Rows ≥ 1 with Bands × Rows ≤ K (%d) and %d, or all of Bands, Rows and Collisions 0", o.K, MaxSignatureSize))
		}
		if o.Collisions == 0 {
			o.Collisions = 1
		}
		if o.Collisions < 1 || o.Collisions > o.Bands {
			return nil, bad("Collisions", o.Collisions, fmt.Sprintf("0 to Bands = %d", o.Bands))
		}
	}
	x := &LSH{o: o, b: o.Bands, r: o.Rows, m: o.Collisions, lf: logFactorials(o.Bands), bands: make([]bandTable, o.Bands)}
	return x, nil
}

// Options returns the options in effect, Bands and Rows filled in.
func (x *LSH) Options() LSHOptions { return x.o }

// Probability returns the probability that a record of Jaccard similarity
// j to a query is its candidate: that it agrees with the query on at least
// m of the b bands, each of r values, P(Binomial(b, j^r) ≥ m).
func (x *LSH) Probability(j float64) float64 {
	if x.m == 1 {
		return bandProbability(j, x.b, x.r)
	}
	return binomialAtLeast(x.b, x.m, math.Pow(j, float64(x.r)), x.lf)
}

// binomialAtLeast is P(Binomial(b, p) ≥ m), m ≥ 1, summed over the side
// of m away from the mean (the terms there fall geometrically), so that it
// costs about m terms and a small tail keeps its precision; lf holds ln(i!)
// for i = 0 … b.
func binomialAtLeast(b, m int, p float64, lf []float64) float64 {
	switch {
	case p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	term := func(i int) float64 { return math.Exp(lf[b] - lf[i] - lf[b-i] + float64(i)*lp + float64(b-i)*lq) }
	if float64(b)*p >= float64(m) {
		below := 0.0
		for i := range m {
			below += term(i)
		}
		return max(0, 1-below)
	}
	sum := 0.0
	for i := m; i <= b; i++ {
		t := term(i)
		sum += t
		if t <= sum*1e-17 {
			break
		}
	}
	return min(sum, 1)
}

// bandProbability is 1 − (1 − j^r)^b: P(Binomial(b, j^r) ≥ 1).
func bandProbability(j float64, b, r int) float64 {
	return 1 - math.Pow(1-math.Pow(j, float64(r)), float64(b))
}

// logFactorials returns ln(i!) for i = 0 … n.
func logFactorials(n int) []float64 {
	lf := make([]float64, n+1)
	for i := 2; i <= n; i++ {
		lf[i] = lf[i-1] + math.Log(float64(i))
	}
	return lf
}

// binomialTail returns, in dst[:b+2], P(Binomial(b, p) ≥ m) for m = 0 … b
// (and 0 for m = b + 1), summed from the top so that small tails keep
// their precision; lf holds ln(i!) for i = 0 … b at least.
func binomialTail(b int, p float64, lf, dst []float64) []float64 {
	dst = slices.Grow(dst[:0], b+2)[:b+2]
	dst[b+1] = 0
	switch {
	case p <= 0:
		for i := range dst[:b+1] {
			dst[i] = 0
		}
		dst[0] = 1
		return dst
	case p >= 1:
		for i := range dst[:b+1] {
			dst[i] = 1
		}
		return dst
	}
	lp, lq := math.Log(p), math.Log1p(-p)
	for i := b; i >= 0; i-- {
		dst[i] = dst[i+1] + math.Exp(lf[b]-lf[i]-lf[b-i]+float64(i)*lp+float64(b-i)*lq)
	}
	for i := range dst[:b+1] {
		dst[i] = min(dst[i], 1)
	}
	return dst
}

// cheapestBands returns the b, r, m (b·r ≤ K, or ≤ maxChosenK when K is
// zero) of least cost b·(1 + b·(t/2)^r) among those that find a pair at
// the threshold t with probability ≥ MinProbability and one at t/2 with
// probability ≤ MaxChance, taking for each b and r the most collisions m
// that keep MinProbability (the fewest chance candidates). When none keep
// MaxChance, the ones with the least chance at t/2; when none reach
// MinProbability, the single band that comes closest.
func cheapestBands(o LSHOptions) (b, r, m int) {
	k := o.K
	if k == 0 {
		k = maxChosenK
	}
	t := o.Threshold
	type choice struct {
		b, r, m      int
		cost, chance float64
	}
	var kept []choice // those that keep MaxChance
	least := choice{chance: math.Inf(1)}
	var at []float64
	lf := logFactorials(k)
	for r := 1; r <= k; r++ {
		pt, ph := math.Pow(t, float64(r)), math.Pow(t/2, float64(r))
		if 1-math.Pow(1-pt, float64(k/r)) < o.MinProbability {
			continue // not even k/r bands of r reach it
		}
		for b := 1; b*r <= k; b++ {
			at = binomialTail(b, pt, lf, at)
			if at[1] < o.MinProbability {
				continue
			}
			m := 1
			for m < b && at[m+1] >= o.MinProbability {
				m++
			}
			c := choice{b, r, m, float64(b) * (1 + float64(b)*ph), binomialAtLeast(b, m, ph, lf)}
			if c.chance <= o.MaxChance {
				kept = append(kept, c)
			}
			if c.chance < least.chance || c.chance == least.chance && c.cost < least.cost {
				least = c
			}
		}
	}
	if len(kept) > 0 {
		// The least cost; of costs within 1 % of it, the shortest signature.
		lo := slices.MinFunc(kept, func(a, b choice) int { return cmp.Compare(a.cost, b.cost) }).cost
		best := choice{}
		for _, c := range kept {
			if c.cost <= lo*1.01 && (best.b == 0 || c.b*c.r < best.b*best.r || c.b*c.r == best.b*best.r && c.cost < best.cost) {
				best = c
			}
		}
		return best.b, best.r, best.m
	}
	if least.b > 0 {
		return least.b, least.r, least.m
	}
	o.K = k
	b, r = optimalBands(o)
	return b, r, 1
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
		x.bands[i].insert(k, id)
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
		x.bands[i].remove(k, id)
	}
}

// Query appends to dst, once each and ascending, the IDs of the records
// that agree with s on at least Collisions whole bands, and returns the
// extended slice. A signature of the wrong length has no candidates.
func (x *LSH) Query(s Signature, dst []uint32) []uint32 {
	if len(s) != x.o.K {
		return dst
	}
	n := len(dst)
	sc, _ := x.scratch.Get().(*queryScratch)
	if sc == nil {
		sc = &queryScratch{keys: make([]uint32, x.b), first: make([]uint64, x.b)}
	}
	defer x.scratch.Put(sc)
	// The band values first, then each band's home slot, then the
	// lookups: the loads of the home slots (most of them cache misses)
	// come in a loop of a few instructions each, so that many are under
	// way at once, and the lookups find them in the cache.
	keys, first := sc.keys[:len(x.bands)], sc.first[:len(x.bands)]
	for i := range keys {
		keys[i] = min(x.bandKey(s, i), maxBandValue)
	}
	for i := range first {
		first[i] = emptySlot
		if t := &x.bands[i]; t.n > 0 {
			first[i] = t.slots[t.home(keys[i])]
		}
	}
	for i, f := range first {
		// The home slot's entry ascends past the value's entries (or is
		// empty) when none is filed: most bands.
		if f < uint64(keys[i]+1)<<32 {
			dst = x.bands[i].appendIDs(dst, keys[i])
		}
	}
	hits := dst[n:]
	if x.m == 1 || len(hits) < countingHits {
		slices.Sort(hits)
		if x.m == 1 {
			return append(dst[:n], slices.Compact(hits)...)
		}
		out := dst[:n]
		for i := 0; i < len(hits); {
			j := i + 1
			for j < len(hits) && hits[j] == hits[i] {
				j++
			}
			if j-i >= x.m {
				out = append(out, hits[i])
			}
			i = j
		}
		return out
	}
	return x.counted(dst[:n], hits, sc)
}

// queryScratch is the memory a Query works in: the band values, the home
// slots' entries, and the counters and table counting band hits per ID.
type queryScratch struct {
	keys     []uint32
	first    []uint64
	counters []uint8
	counts   []uint64
}

// countingHits is the number of band hits from which Query counts them in
// a hash table instead of sorting them.
const countingHits = 256

// counted appends to out, ascending, the IDs that occur at least m ≥ 2
// times in hits. Most hits are an ID's only one (records that share a
// band with the query by chance), so a first pass counts the hits in
// saturating 8-bit counters, an ID's the sum of those of the IDs that hash
// to its counter (at least its own count); the hits whose counter reaches
// m are then counted exactly in an open-addressed table of ID<<32 | count.
// out may end where hits begins: an ID is appended when its count reaches
// m, by then out has grown by at most half the hits read, so it never
// overwrites a hit still to be read.
func (x *LSH) counted(out, hits []uint32, sc *queryScratch) []uint32 {
	m := uint64(x.m)
	cbits := 10
	for 1<<cbits < 4*len(hits) {
		cbits++
	}
	ctr := slices.Grow(sc.counters[:0], 1<<cbits)[:1<<cbits]
	sc.counters = ctr
	clear(ctr)
	for _, id := range hits {
		i := (uint64(id) * 0x9e3779b97f4a7c15) >> (64 - cbits)
		ctr[i] = max(ctr[i], ctr[i]+1) // 255 stays
	}
	bits, kept := 1, 0
	for _, id := range hits {
		if uint64(ctr[(uint64(id)*0x9e3779b97f4a7c15)>>(64-cbits)]) >= m || m > 255 {
			kept++
		}
	}
	for 1<<bits < 2*kept {
		bits++
	}
	tab := slices.Grow(sc.counts[:0], 1<<bits)[:1<<bits]
	sc.counts = tab
	clear(tab)
	mask := len(tab) - 1
	n := len(out)
	for _, id := range hits {
		h := uint64(id) * 0x9e3779b97f4a7c15
		if uint64(ctr[h>>(64-cbits)]) < m && m <= 255 {
			continue
		}
		e := uint64(id) << 32
		i := int(h >> (64 - bits))
		for tab[i] != 0 && tab[i]&^0xFFFFFFFF != e {
			i = (i + 1) & mask
		}
		c := tab[i]&0xFFFFFFFF + 1
		tab[i] = e | c
		if c == m {
			out = append(out, id)
		}
	}
	slices.Sort(out[n:])
	return out
}

// Len returns the number of (band, ID) entries filed: Bands × the records.
func (x *LSH) Len() int {
	n := 0
	for i := range x.bands {
		n += x.bands[i].n
	}
	return n
}
