package judge

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"

	"github.com/neardup/neardup/minhash/internal/sketch"
)

// The compact form of a record (version 2, docs/format.md). After the
// version byte, the host (length and bytes), the text hash (8 bytes, little
// endian) and the content share (1 byte), a bit stream, least significant
// bit first, padded with zero bits to a whole byte:
//
//	np, nlo, nhi, nb      9 bits each
//	page                  Rice-coded gaps (a 5-bit parameter, then np codes)
//	in content            np bits: page[i] is a content hash
//	lo                    content hashes below the page's last, not in it: Rice-coded gaps
//	hi                    content hashes above the page's last: Rice-coded gaps from it
//	blocks                Rice-coded gaps
//	tags                  one per content hash, in truncated binary over nb
//
// A page's content shingles are mostly its shingles too, so most of the
// content sketch is a bit per page hash; sorted uniform hashes have
// geometric gaps, which Rice codes within about a tenth of a bit of their
// entropy. A gap is the difference less one between a value and the one
// before it (the first value's is the value itself; hi's first is taken
// from the page's last hash plus one).

const (
	recordV1 = 1
	recordV2 = 2

	countBits = 9 // np, nlo, nhi, nb ≤ sketch.MaxSize
	riceBits  = 5 // a Rice parameter, 0..31
)

// errRecord is the error of a v2 record that does not decode; ParseRecord
// wraps it in neardup.ErrCorrupt.
var errRecord = errors.New("not a version 2 record")

// riceParam returns the Rice parameter that codes the gaps of ascending
// values v from start (the least value the first may have) in the fewest
// bits, and that many bits (the parameter's own included).
func riceParam(v []uint32, start uint64) (k uint, nbits int) {
	n := len(v)
	if n == 0 {
		return 0, riceBits
	}
	// The best parameter is about log2 of the mean gap, less a half: try
	// the three around it, in one pass.
	sum := uint64(v[n-1]) - start - uint64(n-1)
	k0 := max(bits.Len64(sum/uint64(n)), 2) - 2
	var q [3]int
	for _, x := range v {
		g := uint64(x) - start
		start = uint64(x) + 1
		q[0] += int(g >> k0)
		q[1] += int(g >> (k0 + 1))
		q[2] += int(g >> (k0 + 2))
	}
	best, bestK := math.MaxInt, 0
	for i, qi := range q {
		if c := qi + n*(k0+i+1); c < best && k0+i <= 31 {
			best, bestK = c, k0+i
		}
	}
	return uint(bestK), best + riceBits
}

// bitWriter writes bits into a byte slice of the stream's length, least
// significant first. It writes by index, not by append: its methods then
// store no pointer (no write barrier).
type bitWriter struct {
	b   []byte
	pos int // bytes written
	acc uint64
	n   uint // bits in acc, < 64
}

// write writes the low nb bits of v (nb ≤ 64; v < 1<<nb).
func (w *bitWriter) write(v uint64, nb uint) {
	w.acc |= v << w.n
	w.n += nb
	if w.n >= 64 {
		binary.LittleEndian.PutUint64(w.b[w.pos:], w.acc)
		w.pos += 8
		w.n -= 64
		w.acc = v >> (nb - w.n)
	}
}

// rice appends x's Rice code with parameter k: x>>k zero bits, a one bit,
// then x's low k bits.
func (w *bitWriter) rice(x uint32, k uint) {
	q := uint(x >> k)
	if q+1+k <= 64 {
		w.write(uint64(x)&(1<<k-1)<<(q+1)|1<<q, q+1+k)
		return
	}
	for ; q >= 32; q -= 32 {
		w.write(0, 32)
	}
	w.write(1<<q, q+1)
	w.write(uint64(x)&(1<<k-1), k)
}

// flush writes the bits left, padded with zeros to a whole byte.
func (w *bitWriter) flush() {
	for ; w.n > 0; w.n -= min(w.n, 8) {
		w.b[w.pos] = byte(w.acc)
		w.pos++
		w.acc >>= 8
	}
}

// sequence writes a Rice parameter k and the gaps of ascending values v
// from start with it.
func (w *bitWriter) sequence(v []uint32, start uint64, k uint) {
	w.write(uint64(k), riceBits)
	for _, x := range v {
		w.rice(uint32(uint64(x)-start), k)
		start = uint64(x) + 1
	}
}

// truncBits returns the bit lengths of a value under nb in truncated
// binary: the values below u take k bits, the others k+1.
func truncBits(nb int) (k, u uint) {
	k = uint(bits.Len(uint(nb))) - 1
	return k, 1<<(k+1) - uint(nb)
}

// appendRecordV2 appends f's record of version 2 to dst.
func appendRecordV2(dst []byte, f *Feature) []byte {
	// Split the content sketch: hashes of the page sketch (a bit each),
	// others below its last hash (lo), the rest above it (hi: a suffix).
	// (A feature without a page sketch, a zero Record's, is written as all
	// hi: ParseRecord refuses it, as it refuses its version 1.)
	var inContent [sketch.MaxSize/64 + 1]uint64
	var loBuf [sketch.MaxSize]uint32
	lo := loBuf[:0]
	hi, hiStart := f.Content, uint64(0)
	if len(f.Page) > 0 {
		last := f.Page[len(f.Page)-1]
		hi, hiStart = f.Content[len(f.Content):], uint64(last)+1
		i := 0
		for c, h := range f.Content {
			if h > last {
				hi = f.Content[c:]
				break
			}
			for f.Page[i] < h { // h ≤ last: i stays in the page
				i++
			}
			if f.Page[i] == h {
				inContent[i/64] |= 1 << (i % 64)
			} else {
				lo = append(lo, h)
			}
		}
	}
	kp, np := riceParam(f.Page, 0)
	kl, nl := riceParam(lo, 0)
	kh, nh := riceParam(hi, hiStart)
	kb, nbk := riceParam(f.Blocks, 0)
	tk, tu := uint(0), uint(0)
	nTag := 0
	if len(f.Blocks) > 0 {
		tk, tu = truncBits(len(f.Blocks))
		for _, t := range f.Tags {
			nTag += int(tk)
			if uint(t) >= tu {
				nTag++
			}
		}
	}
	nbits := 4*countBits + np + len(f.Page) + nl + nh + nbk + nTag
	stream := (nbits + 7) / 8 // the bit counts are exact: so is the stream's length
	size := 1 + binary.MaxVarintLen64 + len(f.Host) + 8 + 1 + stream
	if cap(dst)-len(dst) < size {
		dst = append(make([]byte, 0, len(dst)+size), dst...)
	}
	dst = append(dst, recordV2)
	dst = binary.AppendUvarint(dst, uint64(len(f.Host)))
	dst = append(dst, f.Host...)
	dst = binary.LittleEndian.AppendUint64(dst, f.Exact)
	dst = append(dst, f.Share)
	w := bitWriter{b: dst[len(dst) : len(dst)+stream]}
	w.write(uint64(len(f.Page)), countBits)
	w.write(uint64(len(lo)), countBits)
	w.write(uint64(len(hi)), countBits)
	w.write(uint64(len(f.Blocks)), countBits)
	w.sequence(f.Page, 0, kp)
	for i := 0; i < len(f.Page); i += 64 {
		w.write(inContent[i/64], uint(min(len(f.Page)-i, 64)))
	}
	w.sequence(lo, 0, kl)
	w.sequence(hi, hiStart, kh)
	w.sequence(f.Blocks, 0, kb)
	if len(f.Blocks) > 0 {
		for _, t := range f.Tags {
			if c := uint(t); c < tu {
				w.write(uint64(c), tk)
			} else {
				c += tu
				w.write(uint64(c>>1), tk)
				w.write(uint64(c&1), 1)
			}
		}
	}
	w.flush()
	return dst[:len(dst)+stream]
}

// bitReader reads the bits a bitWriter wrote. It reads by index (no
// pointer stores, as bitWriter).
type bitReader struct {
	b   []byte
	pos int    // bytes loaded into acc
	acc uint64 // the next n bits, and zeros above them
	n   uint
}

// fill loads bytes into acc, up to 56 bits or the end of the input.
func (r *bitReader) fill() {
	if len(r.b)-r.pos >= 8 && r.n < 56 {
		x := binary.LittleEndian.Uint64(r.b[r.pos:])
		adv := (63 - r.n) / 8
		r.acc |= x << r.n
		r.pos += int(adv)
		r.n += adv * 8
		r.acc &= 1<<r.n - 1
		return
	}
	for ; r.n <= 56 && r.pos < len(r.b); r.n += 8 {
		r.acc |= uint64(r.b[r.pos]) << r.n
		r.pos++
	}
}

// read returns the next nb bits (nb ≤ 32); ok is false past the end.
func (r *bitReader) read(nb uint) (v uint64, ok bool) {
	if r.n < nb {
		return r.readSlow(nb)
	}
	v = r.acc & (1<<nb - 1)
	r.acc >>= nb
	r.n -= nb
	return v, true
}

// readSlow is read when acc holds fewer than nb bits.
func (r *bitReader) readSlow(nb uint) (v uint64, ok bool) {
	if r.fill(); r.n < nb {
		return 0, false
	}
	return r.read(nb)
}

// rice reads a Rice code with parameter k of a value that fits in 32 bits.
func (r *bitReader) rice(k uint) (uint32, bool) {
	if r.n < 56 {
		r.fill()
	}
	// Most codes are in the bits loaded: the quotient's zeros, its end and
	// the k low bits.
	if z := uint(bits.TrailingZeros64(r.acc)); z+1+k <= r.n && z <= 31 {
		x := uint64(z)<<k | r.acc>>(z+1)&(1<<k-1)
		r.acc >>= z + 1 + k
		r.n -= z + 1 + k
		return uint32(x), x <= math.MaxUint32
	}
	return r.riceSlow(k)
}

// riceSlow is rice for a code that runs past the bits loaded.
func (r *bitReader) riceSlow(k uint) (uint32, bool) {
	limit := uint64(math.MaxUint32) >> k // the largest quotient
	var q uint64
	for {
		if r.acc == 0 {
			q += uint64(r.n)
			r.n = 0
			if q > limit {
				return 0, false
			}
			if r.fill(); r.n == 0 {
				return 0, false
			}
			continue
		}
		z := uint(bits.TrailingZeros64(r.acc))
		q += uint64(z)
		r.acc >>= z + 1
		r.n -= z + 1
		break
	}
	low, ok := r.read(k)
	if !ok || q > limit {
		return 0, false
	}
	return uint32(q<<k | low), true
}

// next reads the next value of a Rice-coded ascending sequence whose
// values are at most top: start is the least value it may have (the one
// before it plus one).
func (r *bitReader) next(k uint, start uint64, top uint64) (uint64, bool) {
	g, ok := r.rice(k)
	v := start + uint64(g)
	return v, ok && v <= top
}

// sequence reads len(dst) values of an ascending Rice-coded sequence with
// parameter k into dst: start is the least value the first may have, top
// the largest any may have. It is next in a loop, with the common case
// (the code in the bits loaded) inline.
func (r *bitReader) sequence(dst []uint32, k uint, start, top uint64) bool {
	acc, n := r.acc, r.n
	for i := range dst {
		if n < 56 {
			r.acc, r.n = acc, n
			r.fill()
			acc, n = r.acc, r.n
		}
		var g uint64
		if z := uint(bits.TrailingZeros64(acc)); z+1+k <= n {
			g = uint64(z)<<k | acc>>(z+1)&(1<<k-1)
			acc >>= z + 1 + k
			n -= z + 1 + k
		} else {
			r.acc, r.n = acc, n
			x, ok := r.riceSlow(k)
			if !ok {
				return false
			}
			acc, n = r.acc, r.n
			g = uint64(x)
		}
		v := start + g
		if v > top {
			return false
		}
		dst[i] = uint32(v)
		start = v + 1
	}
	r.acc, r.n = acc, n
	return true
}

// parseRecordV2 decodes the bit stream and fields after a v2 record's
// version byte, for sketches of at most pk (page) and ck (content) hashes.
func parseRecordV2(b []byte, pk, ck int) (Feature, error) {
	var f Feature
	n, w := binary.Uvarint(b)
	var canon [binary.MaxVarintLen64]byte
	if w <= 0 || n > uint64(len(b)-w) || w != binary.PutUvarint(canon[:], n) {
		return f, errRecord // short, or not the canonical (shortest) encoding
	}
	b = b[w:]
	host := b[:n]
	b = b[n:]
	if len(b) < 9 {
		return f, errRecord
	}
	f.Exact = binary.LittleEndian.Uint64(b)
	f.Share = b[8]
	r := bitReader{b: b[9:]}
	var cnt [4]int
	for i := range cnt {
		v, ok := r.read(countBits)
		if !ok {
			return f, errRecord
		}
		cnt[i] = int(v)
	}
	np, nlo, nhi, nb := cnt[0], cnt[1], cnt[2], cnt[3]
	if np == 0 || np > pk || nlo+nhi > ck || nb > ck {
		return f, errRecord
	}
	var page [sketch.MaxSize]uint32
	kp, ok := r.read(riceBits)
	if !ok || !r.sequence(page[:np], uint(kp), 0, math.MaxUint32-1) {
		return Feature{}, errRecord
	}
	var inContent [sketch.MaxSize/64 + 1]uint64
	nIn := 0
	for i := 0; i < np; i += 32 {
		bits32, ok := r.read(uint(min(np-i, 32)))
		if !ok {
			return Feature{}, errRecord
		}
		inContent[i/64] |= bits32 << (i % 64)
		nIn += bits.OnesCount64(bits32)
	}
	nc := nIn + nlo + nhi
	if nc > ck || nb > nc || (nb == 0) != (nc == 0) {
		return Feature{}, errRecord
	}
	// One slab for the three sketches, each capped at its length.
	slab := make([]uint32, np+nc+nb)
	f.Page = slab[:np:np]
	copy(f.Page, page[:np])
	// Merge the page hashes in content with lo, then append hi.
	content := slab[np : np : np+nc]
	last := uint64(f.Page[np-1])
	kl, ok := r.read(riceBits)
	start, i := uint64(0), 0
	for j := 0; j < nlo && ok; j++ {
		var v uint64
		if v, ok = r.next(uint(kl), start, last); !ok {
			break
		}
		start = v + 1
		for ; i < np && uint64(f.Page[i]) <= v; i++ {
			if uint64(f.Page[i]) == v {
				ok = false // a page hash is a bit, not a lo value
				break
			}
			if inContent[i/64]>>(i%64)&1 != 0 {
				content = append(content, f.Page[i])
			}
		}
		content = append(content, uint32(v))
	}
	for ; i < np && ok; i++ {
		if inContent[i/64]>>(i%64)&1 != 0 {
			content = append(content, f.Page[i])
		}
	}
	kh, ok2 := r.read(riceBits)
	if !ok || !ok2 || !r.sequence(content[len(content):nc], uint(kh), last+1, math.MaxUint32-1) {
		return Feature{}, errRecord
	}
	f.Content = content[:nc]
	f.Blocks = slab[np+nc : np+nc+nb : np+nc+nb]
	kb, ok := r.read(riceBits)
	if !ok || !r.sequence(f.Blocks, uint(kb), 0, math.MaxUint32) {
		return Feature{}, errRecord
	}
	if nc > 0 {
		f.Tags = make([]uint8, nc)
		tk, tu := truncBits(nb)
		for j := range f.Tags {
			v, ok := r.read(tk)
			if ok && uint(v) >= tu {
				var bit uint64
				bit, ok = r.read(1)
				v = v<<1 | bit - uint64(tu)
			}
			if !ok {
				return Feature{}, errRecord
			}
			f.Tags[j] = uint8(v)
		}
	}
	// Only the zero bits that pad the last byte may be left.
	if r.pos < len(r.b) || r.n >= 8 || r.acc != 0 {
		return Feature{}, errRecord
	}
	f.Host = string(host)
	return f, nil
}
