package minhash

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
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
// geometric gaps, which Rice codes within a few hundredths of a bit of
// their entropy. A gap is the difference less one between a value and the
// one before it (the first value's is the value itself; hi's first is
// taken from the page's last hash).

const (
	recordV1 = 1
	recordV2 = 2

	countBits = 9 // np, nlo, nhi, nb ≤ MaxSketchSize
	riceBits  = 5 // a Rice parameter, 0..31
)

// errRecord is the error of a v2 record that does not decode; ParseRecord
// wraps it in neardup.ErrCorrupt.
var errRecord = errors.New("not a version 2 record")

// gapWriter collects a sequence's gaps to choose its Rice parameter.
type gapWriter struct {
	gaps [MaxSketchSize]uint32
	n    int
}

// riceParam returns the Rice parameter that codes g's gaps in the fewest
// bits, and that many bits (the parameter's own included).
func (g *gapWriter) riceParam() (k uint, nbits int) {
	gaps := g.gaps[:g.n]
	if len(gaps) == 0 {
		return 0, riceBits
	}
	var sum uint64
	for _, x := range gaps {
		sum += uint64(x)
	}
	// The best parameter is about log2 of the mean gap: try around it.
	k0 := bits.Len64(sum / uint64(len(gaps)))
	best, bestK := math.MaxInt, 0
	for k := max(k0-2, 0); k <= min(k0+1, 31); k++ {
		n := len(gaps) * (k + 1)
		for _, x := range gaps {
			n += int(x >> k)
		}
		if n < best {
			best, bestK = n, k
		}
	}
	return uint(bestK), best + riceBits
}

// bitWriter appends bits to a byte slice, least significant first.
type bitWriter struct {
	b   []byte
	acc uint64
	n   uint // bits in acc, < 64
}

// write appends the low nb bits of v (nb ≤ 64; v < 1<<nb).
func (w *bitWriter) write(v uint64, nb uint) {
	w.acc |= v << w.n
	w.n += nb
	if w.n >= 64 {
		w.b = binary.LittleEndian.AppendUint64(w.b, w.acc)
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

// flush appends the bits left, padded with zeros to a whole byte.
func (w *bitWriter) flush() {
	for ; w.n > 0; w.n -= min(w.n, 8) {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
	}
}

// sequence writes a Rice parameter and the gaps of g with it.
func (w *bitWriter) sequence(g *gapWriter, k uint) {
	w.write(uint64(k), riceBits)
	for _, x := range g.gaps[:g.n] {
		w.rice(x, k)
	}
}

// truncBits returns the bit lengths of a value under nb in truncated
// binary: the values below u take k bits, the others k+1.
func truncBits(nb int) (k, u uint) {
	k = uint(bits.Len(uint(nb))) - 1
	return k, 1<<(k+1) - uint(nb)
}

// gapsOf fills g with the gaps of ascending values s from start (start is
// the value before the first, plus one).
func (g *gapWriter) gapsOf(s []uint32, start uint32) {
	g.n = 0
	for _, h := range s {
		g.gaps[g.n] = h - start
		g.n++
		start = h + 1
	}
}

// appendRecordV2 appends f's record of version 2 to dst.
func appendRecordV2(dst []byte, f *feature) []byte {
	var page, lo, hi, blk gapWriter
	page.gapsOf(f.page, 0)
	last := f.page[len(f.page)-1]
	// Split the content sketch: hashes of the page sketch (a bit each),
	// others below its last hash (lo), the rest above it (hi).
	var inContent [MaxSketchSize/64 + 1]uint64
	loStart, hiStart := uint32(0), last+1
	i := 0
	for _, h := range f.content {
		if h > last {
			hi.gaps[hi.n] = h - hiStart
			hi.n++
			hiStart = h + 1
			continue
		}
		for i < len(f.page) && f.page[i] < h {
			i++
		}
		if f.page[i] == h {
			inContent[i/64] |= 1 << (i % 64)
			continue
		}
		lo.gaps[lo.n] = h - loStart
		lo.n++
		loStart = h + 1
	}
	blk.gapsOf(f.blocks, 0)
	kp, np := page.riceParam()
	kl, nl := lo.riceParam()
	kh, nh := hi.riceParam()
	kb, nbk := blk.riceParam()
	tk, tu := uint(0), uint(0)
	nTag := 0
	if len(f.blocks) > 0 {
		tk, tu = truncBits(len(f.blocks))
		for _, t := range f.tags {
			nTag += int(tk)
			if uint(t) >= tu {
				nTag++
			}
		}
	}
	nbits := 4*countBits + np + len(f.page) + nl + nh + nbk + nTag
	size := 1 + binary.MaxVarintLen64 + len(f.host) + 8 + 1 + (nbits+7)/8 + 8
	if cap(dst)-len(dst) < size {
		dst = append(make([]byte, 0, len(dst)+size), dst...)
	}
	dst = append(dst, recordV2)
	dst = binary.AppendUvarint(dst, uint64(len(f.host)))
	dst = append(dst, f.host...)
	dst = binary.LittleEndian.AppendUint64(dst, f.exact)
	dst = append(dst, f.share)
	w := bitWriter{b: dst}
	w.write(uint64(len(f.page)), countBits)
	w.write(uint64(lo.n), countBits)
	w.write(uint64(hi.n), countBits)
	w.write(uint64(len(f.blocks)), countBits)
	w.sequence(&page, kp)
	for i := 0; i < len(f.page); i += 64 {
		w.write(inContent[i/64], uint(min(len(f.page)-i, 64)))
	}
	w.sequence(&lo, kl)
	w.sequence(&hi, kh)
	w.sequence(&blk, kb)
	if len(f.blocks) > 0 {
		for _, t := range f.tags {
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
	return w.b
}

// bitReader reads the bits a bitWriter wrote.
type bitReader struct {
	b   []byte
	acc uint64 // the next n bits, and zeros above them
	n   uint
}

// fill loads bytes into acc, up to 56 bits or the end of the input.
func (r *bitReader) fill() {
	if len(r.b) >= 8 && r.n < 56 {
		x := binary.LittleEndian.Uint64(r.b)
		adv := (63 - r.n) / 8
		r.acc |= x << r.n
		r.b = r.b[adv:]
		r.n += adv * 8
		r.acc &= 1<<r.n - 1
		return
	}
	for ; r.n <= 56 && len(r.b) > 0; r.n += 8 {
		r.acc |= uint64(r.b[0]) << r.n
		r.b = r.b[1:]
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

// parseRecordV2 decodes the bit stream and fields after a v2 record's
// version byte, for sketches of at most pk (page) and ck (content) hashes.
func parseRecordV2(b []byte, pk, ck int) (feature, error) {
	var f feature
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return f, errRecord
	}
	b = b[w:]
	host := b[:n]
	b = b[n:]
	if len(b) < 9 {
		return f, errRecord
	}
	f.exact = binary.LittleEndian.Uint64(b)
	f.share = b[8]
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
	var page [MaxSketchSize]uint32
	kp, ok := r.read(riceBits)
	start := uint64(0)
	for i := 0; i < np && ok; i++ {
		var v uint64
		v, ok = r.next(uint(kp), start, math.MaxUint32-1)
		page[i] = uint32(v)
		start = v + 1
	}
	if !ok {
		return feature{}, errRecord
	}
	var inContent [MaxSketchSize/64 + 1]uint64
	nIn := 0
	for i := 0; i < np; i += 32 {
		bits32, ok := r.read(uint(min(np-i, 32)))
		if !ok {
			return feature{}, errRecord
		}
		inContent[i/64] |= bits32 << (i % 64)
		nIn += bits.OnesCount64(bits32)
	}
	nc := nIn + nlo + nhi
	if nc > ck || nb > nc || (nb == 0) != (nc == 0) {
		return feature{}, errRecord
	}
	// One slab for the three sketches, each capped at its length.
	slab := make([]uint32, np+nc+nb)
	f.page = slab[:np:np]
	copy(f.page, page[:np])
	// Merge the page hashes in content with lo, then append hi.
	content := slab[np : np : np+nc]
	last := uint64(f.page[np-1])
	kl, ok := r.read(riceBits)
	start, i := 0, 0
	for j := 0; j < nlo && ok; j++ {
		var v uint64
		if v, ok = r.next(uint(kl), start, last); !ok {
			break
		}
		start = v + 1
		for ; i < np && uint64(f.page[i]) <= v; i++ {
			if uint64(f.page[i]) == v {
				ok = false // a page hash is a bit, not a lo value
				break
			}
			if inContent[i/64]>>(i%64)&1 != 0 {
				content = append(content, f.page[i])
			}
		}
		content = append(content, uint32(v))
	}
	for ; i < np && ok; i++ {
		if inContent[i/64]>>(i%64)&1 != 0 {
			content = append(content, f.page[i])
		}
	}
	kh, ok2 := r.read(riceBits)
	ok = ok && ok2
	start = last + 1
	for j := 0; j < nhi && ok; j++ {
		var v uint64
		v, ok = r.next(uint(kh), start, math.MaxUint32-1)
		content = append(content, uint32(v))
		start = v + 1
	}
	if !ok {
		return feature{}, errRecord
	}
	f.content = content
	f.blocks = slab[np+nc : np+nc : np+nc+nb]
	kb, ok := r.read(riceBits)
	start = 0
	for j := 0; j < nb && ok; j++ {
		var v uint64
		v, ok = r.next(uint(kb), start, math.MaxUint32)
		f.blocks = append(f.blocks, uint32(v))
		start = v + 1
	}
	if !ok {
		return feature{}, errRecord
	}
	if nc > 0 {
		f.tags = make([]uint8, nc)
		tk, tu := truncBits(nb)
		for j := range f.tags {
			v, ok := r.read(tk)
			if ok && uint(v) >= tu {
				var bit uint64
				bit, ok = r.read(1)
				v = v<<1 | bit - uint64(tu)
			}
			if !ok {
				return feature{}, errRecord
			}
			f.tags[j] = uint8(v)
		}
	}
	// Only the zero bits that pad the last byte may be left.
	if len(r.b) > 0 || r.n >= 8 || r.acc != 0 {
		return feature{}, errRecord
	}
	f.host = string(host)
	return f, nil
}
