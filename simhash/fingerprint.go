package simhash

import (
	"errors"
	"fmt"
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// Fingerprint is a 64-bit SimHash fingerprint (f = 64, seed 000 §3.2b).
// Bit i is 1 iff the weighted sum of bit i over the document's keyword hashes
// is > 0. Bit 0 is the least significant bit; String prints bit 63 first.
type Fingerprint uint64

// Distance returns the Hamming distance b_f between a and b: the number of
// bit positions in which they differ (seed 000 §3.3). It never allocates.
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
		return 0, fmt.Errorf("simhash: ParseBinary %q: %d digits, want 1 to 64: %w", s, len(s), ErrSyntax)
	}
	var f uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '0' && c != '1' {
			return 0, fmt.Errorf("simhash: ParseBinary %q: byte %d is %q: %w", s, i, c, ErrSyntax)
		}
		f = f<<1 | uint64(c-'0')
	}
	return Fingerprint(f), nil
}

// Hash returns the 64-bit hash of one feature: xxhash64 (seed 0) of its
// bytes. Builder.AddWeighted, Sum and FromText all hash features this way.
func Hash(feature string) uint64 {
	return xxhash.Sum64String(feature)
}

// A Builder computes a fingerprint from weighted features (seed 000 Fig. 2):
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
// (seed 000 §3.2b): the usual input is preprocess.Page.Terms. Terms with a
// zero count are ignored; when nothing is left it returns an error wrapping
// neardup.ErrNoFeatures.
func Sum(terms []preprocess.Term) (Fingerprint, error) {
	var b Builder
	for _, t := range terms {
		b.AddWeighted(t.Text, t.Count)
	}
	return b.Fingerprint()
}

// Character classes of ASCII bytes for FromText's fast path.
const (
	clSep   = iota // not part of a word
	clLower        // a-z, 0-9: part of a word, already lower case
	clUpper        // A-Z: part of a word, needs lower-casing
	clMulti        // >= 0x80: the start or continuation of a multi-byte rune
)

var asciiClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = clMulti
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = clLower
		case 'A' <= c && c <= 'Z':
			t[c] = clUpper
		}
	}
	return t
}()

// IsWordRune reports whether r belongs to a word for FromText: a Unicode
// letter, decimal digit or mark. A rune for which IsIdeograph is true is a
// word on its own.
func IsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// IsIdeograph reports whether r is a Han, Hiragana or Katakana letter.
// FromText makes each of them a word of its own, since those scripts do not
// separate words with spaces. (Han symbols such as the Kangxi radicals are not
// letters, so they separate words.)
func IsIdeograph(r rune) bool {
	return unicode.IsLetter(r) && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// bitCounter counts, for each of the 64 bits, how many hashes added to it had
// that bit set. It counts eight bits at once per uint64 (SWAR): byte k of
// lane[j] counts bit 8k+j. A byte overflows after 255 adds, so the lanes are
// flushed to count every 255 hashes.
type bitCounter struct {
	lane    [8]uint64
	pending int
	n       int
	count   [64]uint32
}

const laneMask = 0x0101010101010101

func (c *bitCounter) add(h uint64) {
	c.lane[0] += h & laneMask
	c.lane[1] += h >> 1 & laneMask
	c.lane[2] += h >> 2 & laneMask
	c.lane[3] += h >> 3 & laneMask
	c.lane[4] += h >> 4 & laneMask
	c.lane[5] += h >> 5 & laneMask
	c.lane[6] += h >> 6 & laneMask
	c.lane[7] += h >> 7 & laneMask
	c.pending++
	if c.pending == 255 {
		c.flush()
	}
}

func (c *bitCounter) flush() {
	for j, l := range c.lane {
		for k := 0; k < 8; k++ {
			c.count[8*k+j] += uint32(l >> (8 * uint(k)) & 0xff)
		}
	}
	c.n += c.pending
	c.pending = 0
	c.lane = [8]uint64{}
}

// fingerprint returns the fingerprint of the hashes added, each with weight
// 1: bit i's sum is ones − (n − ones), which is > 0 iff 2·ones > n.
func (c *bitCounter) fingerprint() (Fingerprint, error) {
	c.flush()
	if c.n == 0 {
		return 0, fmt.Errorf("simhash: no words: %w", neardup.ErrNoFeatures)
	}
	var f uint64
	n := uint64(c.n)
	for i, ones := range c.count {
		if 2*uint64(ones) > n {
			f |= 1 << uint(i)
		}
	}
	return Fingerprint(f), nil
}

// maxStackWord is the longest lower-cased word FromText builds without
// allocating. Longer words are still handled, with a heap buffer.
const maxStackWord = 64

// FromText returns the fingerprint of text's words, each weighted by its
// frequency: the same fingerprint as Sum over the word counts, computed
// without a map. A word is a maximal run of runes for which IsWordRune is
// true, lower-cased rune by rune with unicode.ToLower, except that each rune
// for which IsIdeograph is true is a word of its own. There is no stemming and
// no stop-word removal. Invalid UTF-8 bytes separate words.
//
// Weighting a word by its frequency tf is the same as adding it tf times with
// weight 1, so FromText hashes every occurrence and counts, for each bit, how
// many hashes had it set. Text with no word returns an error wrapping
// neardup.ErrNoFeatures. FromText does not allocate unless a word that needs
// lower-casing is longer than 64 bytes.
func FromText(text string) (Fingerprint, error) {
	var c bitCounter
	var buf [maxStackWord]byte
	n := len(text)
	i := 0
	for i < n {
		cl := asciiClass[text[i]]
		if cl == clSep {
			i++
			continue
		}
		if cl == clMulti {
			i = slowWord(text, i, &c, buf[:0])
			continue
		}
		start := i
		upper := cl == clUpper
		for i++; i < n; i++ {
			cl = asciiClass[text[i]]
			if cl == clLower {
				continue
			}
			if cl != clUpper {
				break
			}
			upper = true
		}
		if cl == clMulti && i < n {
			// The word may go on with a non-ASCII letter: redo it slowly.
			i = slowWord(text, start, &c, buf[:0])
			continue
		}
		if !upper {
			c.add(xxhash.Sum64String(text[start:i]))
			continue
		}
		w := text[start:i]
		b := buf[:0]
		if len(w) > len(buf) {
			b = make([]byte, 0, len(w))
		}
		for j := 0; j < len(w); j++ {
			ch := w[j]
			if 'A' <= ch && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			b = append(b, ch)
		}
		c.add(xxhash.Sum64(b))
	}
	return c.fingerprint()
}

// slowWord reads the word (if any) that starts at text[i] rune by rune, adds
// its hash to c and returns the index just past it. buf is scratch space.
func slowWord(text string, i int, c *bitCounter, buf []byte) int {
	n := len(text)
	start := i
	for i < n {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if !IsWordRune(r) {
			if i == start {
				return i + size // a separator: skip it
			}
			break
		}
		if IsIdeograph(r) {
			if i == start {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
				i += size
			}
			break // an ideograph ends the word before it
		}
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
		i += size
	}
	c.add(xxhash.Sum64(buf))
	return i
}
