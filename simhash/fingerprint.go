package simhash

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// Fingerprint is a 64-bit SimHash fingerprint (f = 64, Kumar and Govindarajulu §3.2b).
// Bit i is 1 iff the weighted sum of bit i over the document's keyword hashes
// is > 0. Bit 0 is the least significant bit; String prints bit 63 first.
type Fingerprint uint64

// Distance returns the Hamming distance b_f between a and b: the number of
// bit positions in which they differ (Kumar and Govindarajulu §3.3). It never allocates.
func Distance(a, b Fingerprint) int {
	return bits.OnesCount64(uint64(a ^ b))
}

// String returns f as 64 binary digits, most significant bit first: the form
// of the paper's Tables 3 and 5.
func (f Fingerprint) String() string {
	var b [64]byte
	for i := range b {
		b[i] = '0' + byte(uint64(f)>>(63-i)&1)
	}
	return string(b[:])
}

// ErrSyntax reports a string that ParseBinary cannot read as a fingerprint.
var ErrSyntax = errors.New("simhash: invalid binary fingerprint")

// ParseBinary reads a fingerprint written as 1 to 64 binary digits, most
// significant first, as String writes it and as the paper prints it. A string
// shorter than 64 digits is the low bits of the fingerprint (so the paper's
// 6-bit example "110010" parses to 0b110010). Any other input, including the
// 71-digit Wp1 of the paper's Table 3, returns an error wrapping ErrSyntax.
func ParseBinary(s string) (Fingerprint, error) {
	if len(s) == 0 || len(s) > 64 {
		return 0, fmt.Errorf("%w: ParseBinary %q: %d digits, want 1 to 64", ErrSyntax, s, len(s))
	}
	var f uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '0' && c != '1' {
			return 0, fmt.Errorf("%w: ParseBinary %q: byte %d is %q", ErrSyntax, s, i, c)
		}
		f = f<<1 | uint64(c-'0')
	}
	return Fingerprint(f), nil
}

// Hash returns the 64-bit hash of one feature: xxhash64, with a zero seed, of its
// bytes. Builder.AddWeighted, Sum and FromText all hash features this way.
func Hash(feature string) uint64 {
	return xxhash.Sum64String(feature)
}

// A Builder computes a fingerprint from weighted features (Kumar and Govindarajulu Fig. 2):
// for every feature with weight w and every bit i, it adds w to the bit's sum
// when bit i of the feature's hash is 1 and subtracts w otherwise.
//
// The zero value is ready to use. A Builder is not safe for concurrent use.
// Feeding it the same features in any order gives the same fingerprint.
type Builder struct {
	sum [64]int64 // bit sums flushed from lane, plus out-of-range weights
	// lane counts weighted ones for weights in 1..0xffff, four bits per
	// uint64 (SWAR): 16-bit field k of lane[j] is Σ w over the features
	// whose bit 16k+j is 1, since the last flush. laneW is Σ w over those
	// features, at most 0xffff, so no field overflows.
	lane  [16]uint64
	laneW uint64
	n     int // features added with a non-zero weight
}

// AddWeighted adds feature with weight w (its term frequency in the paper).
// A zero weight adds nothing. Negative weights are allowed and count against
// the feature's bits.
func (b *Builder) AddWeighted(feature string, w int) {
	b.AddHash(Hash(feature), w)
}

const lane16 = 0x0001000100010001

// AddHash adds a feature already hashed to 64 bits (for example with Hash,
// or with another hash function of the caller's choice) with weight w.
func (b *Builder) AddHash(h uint64, w int) {
	if w == 0 {
		return
	}
	b.n++
	if w < 0 || w > 0xffff {
		w64 := int64(w)
		for i := range b.sum {
			// +w when the bit is 1, -w when it is 0, without a branch.
			bit := int64(h>>uint(i)) & 1
			b.sum[i] += (2*bit - 1) * w64
		}
		return
	}
	uw := uint64(w)
	if b.laneW+uw > 0xffff {
		b.flush()
	}
	b.laneW += uw
	for j := range b.lane {
		b.lane[j] += (h >> uint(j) & lane16) * uw
	}
}

// flush moves the lane counts into sum: a bit with weighted ones o out of
// laneW gained o − (laneW − o).
func (b *Builder) flush() {
	if b.laneW == 0 {
		return
	}
	total := int64(b.laneW)
	for j, l := range b.lane {
		for k := 0; k < 4; k++ {
			ones := int64(l >> (16 * uint(k)) & 0xffff)
			b.sum[16*k+j] += 2*ones - total
		}
	}
	b.lane = [16]uint64{}
	b.laneW = 0
}

// Fingerprint returns the fingerprint of the features added so far: bit i is
// 1 iff its sum is > 0. When no feature with a non-zero weight was added it
// returns an error wrapping neardup.ErrNoFeatures, never a fingerprint. More
// features may be added afterwards.
func (b *Builder) Fingerprint() (Fingerprint, error) {
	if b.n == 0 {
		return 0, fmt.Errorf("simhash: no features: %w", neardup.ErrNoFeatures)
	}
	b.flush()
	var f uint64
	for i, s := range b.sum {
		if s > 0 {
			f |= 1 << uint(i)
		}
	}
	return Fingerprint(f), nil
}

// Reset empties the builder for reuse.
func (b *Builder) Reset() { *b = Builder{} }

// Sum returns the fingerprint of terms, each feature weighted by its count
// (Kumar and Govindarajulu §3.2b): the usual input is preprocess.Page.Terms. Terms with a
// zero count are ignored; when nothing is left it returns an error wrapping
// neardup.ErrNoFeatures.
func Sum(terms []preprocess.Term) (Fingerprint, error) {
	var b Builder
	for _, t := range terms {
		b.AddWeighted(t.Text, t.Count)
	}
	return b.Fingerprint()
}

// FromText returns the fingerprint a Detector gives a plain-text document
// whose text is text: Sum over the terms that the zero preprocess.Pipeline
// makes of it as text/plain (sentences, lower-cased tokens, CJK bigrams,
// stop words removed, stems). So FromText(t) equals Of(d) for every d made by
// neardup.NewDocument with a zero Pipeline from the bytes of t when they are
// read as text. Errors are the pipeline's (preprocess.ErrEmpty,
// ErrInvalidUTF8, ErrTooLarge) and, for a text with no terms, one wrapping
// neardup.ErrNoFeatures.
//
// FromText is the convenience path, safe for concurrent use: it borrows a
// zero Pipeline from a pool shared by all callers (so repeated calls reuse
// its word memos and buffers) and takes only the terms from it
// (preprocess.Pipeline.TextTerms), building no Page. A caller that wants
// other preprocess.Options, or the Page too, processes the text with its
// own Pipeline and calls Sum on the page's Terms.
func FromText(text string) (Fingerprint, error) {
	p := pipelines.Get().(*preprocess.Pipeline)
	var b Builder
	err := p.TextTerms(text, func(term string, count int) { b.AddWeighted(term, count) })
	pipelines.Put(p)
	if err != nil {
		return 0, fmt.Errorf("simhash: FromText: %w", err)
	}
	f, err := b.Fingerprint()
	if err != nil { // only a text without terms has no fingerprint
		return 0, fmt.Errorf("simhash: FromText: no terms: %w", neardup.ErrNoFeatures)
	}
	return f, nil
}

// pipelines holds zero preprocess.Pipelines for FromText to reuse. It is a
// cache, not state: a Pipeline's only memory is its bounded word memos and
// scratch buffers, which change how fast a page is processed, never the page
// it gives, so FromText returns the same fingerprint whichever Pipeline (or
// a new one, after the garbage collector empties the pool) serves a call.
var pipelines = sync.Pool{New: func() any { return new(preprocess.Pipeline) }}
