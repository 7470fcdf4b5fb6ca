package simhash

import (
	"encoding/binary"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"
)

// merge folds the buffer into the base and drops removed entries, in one
// pass per table, one over the ids and one over the id lookup.
//
// Each table receives the added fingerprints counting-sorted on its
// directory bits (at the default sizes a bucket receives about two) and is
// written bucket by bucket: the old entries are copied up to each add's
// place in its bucket, and the run from the last add of a bucket to the
// first of the next at once. Table 0's merge records before which old entry
// each add went; from that the ids are merged, and the id lookup is updated
// from its old contents (through a compact map of old positions to new
// ones) rather than rebuilt by hashing and scattering every id. The tables
// other than 0 depend only on the adds and the removed entries: with more
// than one CPU they are merged on other goroutines meanwhile.
func (ix *Index) merge() {
	l := &ix.lay
	b, bf := &ix.base, &ix.buf
	t0 := &l.tables[0]
	m := len(bf.fps) - bf.ndead
	n := b.n - b.ndead + m
	gone := b.goneFingerprints(t0)

	nb := base{n: n, tabs: make([]table, len(l.tables))}
	nb.setIDParams()

	// the live buffer entries in table 0 order, with their ids
	keys := make([]uint64, 0, m)
	addIDs := make([]uint64, 0, m)
	for i, f := range bf.fps {
		if !bitGet(bf.dead, i) {
			keys = append(keys, f)
			addIDs = append(addIDs, bf.ids[i])
		}
	}
	end := make([]uint32, len(b.tabs[0].dir))
	keys, addIDs = bucketSort(keys, addIDs, make([]uint64, m), make([]uint64, m), end, t0.shift, t0.shift-8)

	// the other tables: adds and removed entries permuted and bucketed,
	// then merged, on workers when there are CPUs for them
	var next atomic.Int32
	next.Store(1)
	others := func() {
		var s mergeScratch
		for t := int(next.Add(1)) - 1; t < len(l.tables); t = int(next.Add(1)) - 1 {
			nb.tabs[t] = s.mergePermuted(l, t, b.tabs[t], bf, m, gone, n)
		}
	}
	var wg sync.WaitGroup
	workers := 0
	if m >= minParallelMerge {
		workers = min(runtime.GOMAXPROCS(0)-1, len(l.tables)-1)
	}
	for range workers {
		wg.Go(others)
	}

	ins := make([]uint32, m)
	nb.tabs[0] = mergeTable(t0, b.tabs[0], keys, end, nil, nil, b.dead, ins, n)
	var addPos []uint32
	nb.ids, addPos = mergeIDs(b.ids, b.dead, b.ndead, addIDs, ins, n)
	if nb.idsFollow(b) {
		nb.updateIDs(b, newPosMap(ins, b.dead, b.ndead, b.n), addIDs, addPos)
	} else {
		nb.buildIDs()
	}
	nb.dead = make([]uint64, (n+63)/64)

	others() // what the workers left, or all
	wg.Wait()
	for t := range nb.tabs {
		nb.tabs[t].setCompact()
	}
	ix.base = nb
	bf.reset(l, mergeThreshold(n))
}

// minParallelMerge is the fewest adds for which merge uses other
// goroutines: below it their start costs more than they save.
const minParallelMerge = 1 << 13

// goneFingerprints returns the fingerprints of the removed entries of the
// base, in table 0 order.
func (b *base) goneFingerprints(t0 *tableLayout) []uint64 {
	if b.ndead == 0 {
		return nil
	}
	gone := make([]uint64, 0, b.ndead)
	d, data := b.tabs[0].dir, b.tabs[0].data
	j := 0
	for w, word := range b.dead {
		for word != 0 {
			p := w<<6 | bits.TrailingZeros64(word)
			word &= word - 1
			for int(d[j+1]) <= p {
				j++
			}
			gone = append(gone, uint64(j)<<t0.shift|binary.LittleEndian.Uint64(data[p*t0.stride:])&t0.low)
		}
	}
	return gone
}

// prefixSums turns counts c[j+1] of bucket j into starts: c[j] becomes the
// sum of the counts of the buckets before j.
func prefixSums(c []uint32) {
	var s uint32
	for j, x := range c {
		s += x
		c[j] = s
	}
}

// mergeScratch holds the buffers of the merges of the tables other than 0
// done by one goroutine.
type mergeScratch struct {
	adds, gone, tmp []uint64
}

// mergePermuted merges table t (old) given the buffer (m live entries) and
// the removed entries of the base (gone, in table 0 order): it puts them in
// the order of table t (bucketSort) and merges.
func (s *mergeScratch) mergePermuted(l *layout, t int, old table, bf *buffer, m int, gone []uint64, n int) table {
	if s.adds == nil {
		s.adds = make([]uint64, 0, m)
		s.gone = make([]uint64, len(gone))
		s.tmp = make([]uint64, max(m, len(gone)))
	}
	tl := &l.tables[t]
	shift, sub := tl.shift, uint(bits.Len64(tl.low)-8)
	adds := s.adds[:0]
	for i, f := range bf.fps {
		if !bitGet(bf.dead, i) {
			adds = append(adds, tl.stored(l.permute(t, f)))
		}
	}
	end := make([]uint32, len(old.dir))
	adds, _ = bucketSort(adds, nil, s.tmp[:m], nil, end, shift, sub)
	var goneEnd []uint32
	g := s.gone[:len(gone)]
	if len(gone) > 0 {
		for i, f := range gone {
			g[i] = tl.stored(l.permute(t, f))
		}
		goneEnd = make([]uint32, len(end))
		tmp := make([]uint64, len(gone))
		g, _ = bucketSort(g, nil, tmp, nil, goneEnd, shift, sub)
	}
	return mergeTable(&l.tables[t], old, adds, end, g, goneEnd, nil, nil, n)
}

// bucketSort sorts keys, with ids alongside when not nil, and sets end[j]
// (zero on entry, one slot per bucket plus one) to the end of the keys
// whose top bits (k >> shift) are j. It returns the sorted keys and ids:
// in keys and ids, or in tmp and tmpIDs (as long as them). Between the
// bucket bits and the 8 bits at sub (the top 8 bits a table stores: shift-8,
// or lower for a table that leaves a block out) the keys must be 0.
//
// Two counting sorts, on the 8 bits at sub and then on the bucket bits
// (stable), leave unsorted only keys equal in their bits from sub up, which
// are rare, and sorted in a last pass; so that mergeAdds needs no sort of
// each bucket's adds (the mispredicted ends of its loops cost more than
// these passes).
func bucketSort(keys, ids, tmp, tmpIDs []uint64, end []uint32, shift, sub uint) ([]uint64, []uint64) {
	var low [257]uint32
	for _, k := range keys {
		low[k>>sub&255+1]++
		end[k>>shift+1]++
	}
	prefixSums(low[:])
	prefixSums(end)
	tmp = tmp[:len(keys)]
	for i, k := range keys {
		d := k >> sub & 255
		tmp[low[d]] = k
		if ids != nil {
			tmpIDs[low[d]] = ids[i]
		}
		low[d]++
	}
	for i, k := range tmp {
		j := k >> shift
		keys[end[j]] = k
		if ids != nil {
			ids[end[j]] = tmpIDs[i]
		}
		end[j]++
	}
	// end[j] is now the end of bucket j. A key below the one before it is
	// in a group of keys equal in their bits from sub up, out of order:
	// sort the group (rare, and small but for clusters of fingerprints).
	for i := 1; i < len(keys); i++ {
		if keys[i-1] <= keys[i] {
			continue
		}
		top := keys[i] >> sub
		lo, hi := i-1, i+1
		for lo > 0 && keys[lo-1]>>sub == top {
			lo--
		}
		for hi < len(keys) && keys[hi]>>sub == top {
			hi++
		}
		if ids != nil {
			sort.Sort(pairs{keys[lo:hi], ids[lo:hi]})
		} else {
			slices.Sort(keys[lo:hi])
		}
		i = hi - 1
	}
	return keys, ids
}

// mergeTable returns the new table of n entries: the old one without the
// removed entries, plus adds (permuted, sorted, end[j] the end of bucket
// j's). Removed entries are given for tables other than 0 by value in gone
// (sorted, goneEnd like end; each is in the old table), for table 0 by
// their positions in dead. ins, when not nil,
// receives the old position before which each add is inserted. end becomes
// the new table's directory. The tables stay sorted, so that equal entries
// stay adjacent.
func mergeTable(tl *tableLayout, old table, adds []uint64, end []uint32, gone []uint64, goneEnd []uint32, dead []uint64, ins []uint32, n int) table {
	stride := tl.stride
	data := make([]byte, n*stride+8)
	adviseHuge(data)
	odata, odir, dir := old.data, old.dir, end
	oldN := int(odir[len(odir)-1])
	nbk := len(dir) - 1

	w, span, a, g := 0, 0, 0, 0
	dp := oldN // table 0: the next removed position
	if dead != nil {
		dp = nextSet(dead, 0, oldN)
	}
	for j := 0; j < nbk; {
		// the next bucket with removed entries
		jd := nbk
		switch {
		case g < len(gone):
			jd = int(gone[g] >> tl.shift)
		case dp < oldN:
			jd = j + sort.Search(nbk-j, func(i int) bool { return int(odir[j+i+1]) > dp })
		}
		w, span, a = mergeAdds(data, odata, odir, dir, adds, ins, stride, tl.low, w, span, a, j, jd)
		if jd == nbk {
			break
		}
		lo, hi := int(odir[jd]), int(odir[jd+1])
		a1, g1 := int(dir[jd]), g
		if goneEnd != nil {
			g1 = int(goneEnd[jd])
		}
		dir[jd] = uint32(w + lo - span)
		w += copy(data[w*stride:], odata[span*stride:lo*stride]) / stride
		w, dp = mergeBucket(tl, data, odata, w, lo, hi, adds[a:a1], gone[g:g1], dead, dp, oldN, ins, a)
		span, a, g = hi, a1, g1
		j = jd + 1
	}
	w += copy(data[w*stride:], odata[span*stride:oldN*stride]) / stride
	dir[nbk] = uint32(w)
	if w != n || a != len(adds) || g != len(gone) {
		panic("simhash: internal error: merged table has the wrong size")
	}
	return table{data: data, dir: dir}
}

// mergeAdds writes buckets j0..j1 of a table, which have no removed
// entries: w entries are written to data, the old entries before span are
// handled, and a is the first add of bucket j0 (adds sorted, dir[j] the
// end of bucket j's). dir[j] receives the new start of bucket j, and ins (when not nil) the old position before which
// each add goes. It returns the new w, span and a.
//
// It is the inner loop of a merge, and most of its cost is mispredicted
// branches (a bucket receives about two adds; each ends a scan): old
// entries are copied in 8-byte words (the tables have 8 bytes of padding,
// and each write is followed by the next one's), up to each add's place
// one by one, the runs between buckets in a block of fixed size when they
// fit one; the tables are accessed through pointers, the ranges checked
// once per bucket. (Branch-free binary searches for the places were tried:
// no faster.)
//
//go:noinline
func mergeAdds(data, odata []byte, odir, dir []uint32, adds []uint64, ins []uint32, stride int, low uint64, w, span, a, j0, j1 int) (int, int, int) {
	if j0 < 0 || j1 >= len(odir) || j1 >= len(dir) || stride <= 0 || span < 0 || w < 0 || (ins != nil && len(ins) != len(adds)) {
		panic("simhash: internal error: merge out of range")
	}
	dp := unsafe.Pointer(unsafe.SliceData(data))
	sp := unsafe.Pointer(unsafe.SliceData(odata))
	maxW := (len(data) - 8) / stride
	maxS := (len(odata) - 8) / stride
	le := binary.LittleEndian
	for j := j0; j < j1; j++ {
		a1 := int(dir[j])
		lo := int(odir[j])
		dir[j] = uint32(w + lo - span)
		if a1 == a {
			continue
		}
		hi := int(odir[j+1])
		if span > lo || lo > hi || hi > maxS || a1 < a || a1 > len(adds) || w+(hi-span)+(a1-a) > maxW {
			panic("simhash: internal error: merge out of range")
		}
		ba := adds[a:a1]
		// the untouched run span..lo: most are short, and copied whole
		// in a block of fixed size (the next writes overwrite the excess)
		d := unsafe.Add(dp, w*stride)
		s := unsafe.Add(sp, span*stride)
		if (lo-span)*stride <= runBlock && w*stride+runBlock <= len(data) && span*stride+runBlock <= len(odata) {
			*(*[runBlock]byte)(d) = *(*[runBlock]byte)(s)
		} else {
			for e := unsafe.Add(sp, lo*stride); uintptr(s) < uintptr(e); s, d = unsafe.Add(s, 8), unsafe.Add(d, 8) {
				le.PutUint64((*[8]byte)(d)[:], le.Uint64((*[8]byte)(s)[:]))
			}
		}
		w += lo - span
		d = unsafe.Add(dp, w*stride)
		s = unsafe.Add(sp, lo*stride)
		e := unsafe.Add(sp, hi*stride)
		src := lo
		for k, x := range ba {
			x &= low
			for uintptr(s) < uintptr(e) {
				v := le.Uint64((*[8]byte)(s)[:])
				if v&low >= x {
					break
				}
				le.PutUint64((*[8]byte)(d)[:], v)
				s, d = unsafe.Add(s, stride), unsafe.Add(d, stride)
				src++
			}
			le.PutUint64((*[8]byte)(d)[:], x)
			d = unsafe.Add(d, stride)
			if ins != nil {
				ins[a+k] = uint32(src)
			}
		}
		w += src - lo + a1 - a
		span, a = src, a1
	}
	return w, span, a
}

// runBlock is the size of the blocks in which mergeAdds copies short runs.
const runBlock = 128

// mergeBucket writes the old entries lo..hi of a bucket holding removed
// entries, merged with the bucket's adds (sorted, the first being add a0;
// their places recorded in ins when not nil), from position w on, dropping the
// removed ones: gone for tables other than 0, the positions set in dead for
// table 0, dp being the first one at or after lo. gone is sorted. It returns the position
// after the bucket and the next removed position at or after hi.
func mergeBucket(tl *tableLayout, data, odata []byte, w, lo, hi int, adds, gone, dead []uint64, dp, oldN int, ins []uint32, a0 int) (int, int) {
	stride, low := tl.stride, tl.low
	le := binary.LittleEndian
	src, gi := lo, 0
	// old copies the old entries up to the place of x (all of them when x
	// is ^0), dropping the removed ones
	old := func(x uint64) {
		for ; src < hi; src++ {
			v := le.Uint64(odata[src*stride:])
			if src == dp {
				dp = nextSet(dead, src+1, oldN)
				continue
			}
			if gi < len(gone) && v&low == gone[gi]&low {
				gi++
				continue
			}
			if v&low >= x {
				return
			}
			le.PutUint64(data[w*stride:], v)
			w++
		}
	}
	for k, x := range adds {
		x &= low
		old(x)
		le.PutUint64(data[w*stride:], x)
		w++
		if ins != nil {
			ins[a0+k] = uint32(src)
		}
	}
	old(^uint64(0))
	if gi != len(gone) {
		panic("simhash: internal error: removed entry not in its bucket")
	}
	return w, dp
}

// nextSet returns the first set bit of s at or after i, or n if none is
// below n.
func nextSet(s []uint64, i, n int) int {
	for w := i >> 6; w < len(s); w++ {
		word := s[w]
		if w == i>>6 {
			word &^= 1<<(uint(i)&63) - 1
		}
		if word != 0 {
			return min(w<<6|bits.TrailingZeros64(word), n)
		}
	}
	return n
}

// pairs sorts keys with ids alongside.
type pairs struct{ k, v []uint64 }

func (p pairs) Len() int           { return len(p.k) }
func (p pairs) Less(i, j int) bool { return p.k[i] < p.k[j] }
func (p pairs) Swap(i, j int) {
	p.k[i], p.k[j] = p.k[j], p.k[i]
	p.v[i], p.v[j] = p.v[j], p.v[i]
}

// mergeIDs returns the ids of the new table 0 of n entries: the old ones
// without the removed ones (ndead of them, set in dead), addIDs[k] inserted
// before old position ins[k]; and the new position of each add.
func mergeIDs(oldIDs, dead []uint64, ndead int, addIDs []uint64, ins []uint32, n int) ([]uint64, []uint32) {
	ids := make([]uint64, n)
	addPos := make([]uint32, len(addIDs))
	w, src := 0, 0
	live := func(to int) { // the live old ids src..to
		if ndead == 0 && to-src <= 16 && w+16 <= len(ids) && src+16 <= len(oldIDs) {
			// most runs are short: whole, without a loop or call on the
			// length (the next writes overwrite the excess)
			*(*[16]uint64)(ids[w:]) = *(*[16]uint64)(oldIDs[src:])
			w += to - src
			src = to
			return
		}
		for src < to {
			d := to
			if ndead > 0 {
				d = nextSet(dead, src, to)
			}
			w += copy(ids[w:], oldIDs[src:d])
			src = min(d+1, to)
		}
	}
	for k, p := range ins {
		live(int(p))
		addPos[k] = uint32(w)
		ids[w] = addIDs[k]
		w++
	}
	live(len(oldIDs))
	if w != n {
		panic("simhash: internal error: merged ids have the wrong size")
	}
	return ids, addPos
}

// posMap maps the positions of the old table 0 to the new one after a
// merge in a byte per entry (an array of new positions, 4 bytes per entry,
// looked up in random order, misses the cache): per block of 64 old
// positions, the new position of the block's first entry (base), and per
// entry its offset from it: its index in the block, plus the adds inserted
// in the block before it, less the removed entries of the block before it.
// A removed entry's offset is deadOff; a block that receives more adds than
// its offsets can count has overOff in all of them and is looked up in ins.
type posMap struct {
	base []uint32
	off  []uint64 // the offsets, 8 per word, little endian
	ins  []uint32
	dead []uint64
}

const (
	overOff = 254
	deadOff = 255
	// maxBlockAdds is the most adds a block's offsets count: 63 + 190 is
	// below overOff.
	maxBlockAdds = 190
)

// newPosMap builds the map for adds inserted before the old positions ins
// (ascending) into a table of oldN entries, ndead of them removed (set in
// dead).
func newPosMap(ins []uint32, dead []uint64, ndead, oldN int) *posMap {
	const ones = 0x0101010101010101
	nblk := oldN>>6 + 1
	pm := &posMap{base: make([]uint32, nblk+1), off: make([]uint64, 8*nblk), ins: ins, dead: dead}
	// An add before entry p counts in the base of p's block if p is the
	// first of its block, else in the offsets of p and the entries after it
	// in its block (counted at p, then summed along the block), and in the
	// bases of the blocks after.
	var count []uint32 // adds counted in the offsets of each block
	for _, p := range ins {
		if int(p) >= oldN {
			break // after the last entry
		}
		B, g := p>>6, p&63
		pm.base[(p+63)>>6]++
		if g == 0 {
			continue
		}
		if count == nil {
			count = make([]uint32, nblk)
		}
		if count[B]++; count[B] <= maxBlockAdds {
			pm.off[p>>3] += 1 << (8 * (g & 7))
		}
	}
	if count == nil {
		count = make([]uint32, nblk)
	}
	for B, c := range count {
		if c == 0 {
			words := (*[8]uint64)(pm.off[8*B:])
			for t := range words {
				words[t] = 0x0706050403020100 + uint64(t)*0x0808080808080808
			}
			continue
		}
		// prefix sums of the bytes along the block (no byte exceeds
		// maxBlockAdds, so none carries), then the block's template
		words := (*[8]uint64)(pm.off[8*B:])
		var carry uint64
		for t, x := range words {
			x += x << 8
			x += x << 16
			x += x << 32
			x += carry
			carry = (x >> 56) * ones
			words[t] = x + 0x0706050403020100 + uint64(t)*0x0808080808080808
		}
	}
	sum, removed := uint32(0), 0
	for B := range nblk {
		sum += pm.base[B]
		pm.base[B] = uint32(B<<6-removed) + sum
		if ndead > 0 && B < len(dead) {
			removed += bits.OnesCount64(dead[B])
		}
	}
	pm.base = pm.base[:nblk]
	if ndead > 0 {
		for B, d := range dead {
			words := (*[8]uint64)(pm.off[8*B:])
			for r := d; r != 0; r &= r - 1 {
				i := bits.TrailingZeros64(r)
				for t := range words { // one less in bytes i+1..63
					words[t] -= ones << (8 * uint(min(max(i+1-8*t, 0), 8)))
				}
			}
			for r := d; r != 0; r &= r - 1 {
				i := bits.TrailingZeros64(r)
				words[i>>3] |= 0xff << (8 * uint(i&7))
			}
		}
	}
	for B, c := range count {
		if c > maxBlockAdds {
			for t := range 8 {
				pm.off[8*B+t] = overOff * ones
			}
		}
	}
	return pm
}

// pos returns the new position of old position p, or deadPos if it is
// removed. (updateIDs has it inline.)
func (pm *posMap) pos(p uint32) uint32 {
	o := uint32(pm.off[p>>3]>>(8*(p&7))) & 0xff
	if o < overOff {
		return pm.base[p>>6] + o
	}
	return pm.slow(p, o)
}

// slow is pos for an offset of overOff or deadOff.
func (pm *posMap) slow(p, o uint32) uint32 {
	if o == deadOff || (len(pm.dead) > 0 && bitGet(pm.dead, int(p))) {
		return deadPos
	}
	B := p >> 6
	q := pm.base[B] + p&63
	if len(pm.dead) > 0 {
		q -= uint32(bits.OnesCount64(pm.dead[B] & (1<<(p&63) - 1)))
	}
	// the adds inserted after the block's first entry, up to p
	from := sort.Search(len(pm.ins), func(k int) bool { return pm.ins[k] > B<<6 })
	to := sort.Search(len(pm.ins), func(k int) bool { return pm.ins[k] > p })
	return q + uint32(to-from)
}

// idSlack is the slack of updateIDs' output: runs of up to that many
// entries are written whole, the next writes overwriting the excess.
const idSlack = 16

// putAdds writes adds[a:a1] to pos at w and returns the positions after
// them. Buckets have about one add: the first two are written without a
// loop on the count (adds has two entries of slack, pos idSlack).
func putAdds(pos, adds []uint32, w, a, a1 int) (int, int) {
	pos[w], pos[w+1] = adds[a], adds[a+1]
	for i := a + 2; i < a1; i++ {
		pos[w+i-a] = adds[i]
	}
	return w + a1 - a, a1
}

// deadPos is posMap.pos of a removed entry.
const deadPos = ^uint32(0)

// setIDParams sizes the id lookup for b.n entries: about 16 entries per
// bucket, and a tag of the hash bits that the bucket number and the
// position leave in 32 bits.
func (b *base) setIDParams() {
	n := b.n
	b.idBits = uint(max(bits.Len(uint(n))-4, 1))
	b.posBits = uint(max(bits.Len(uint(n)), 1))
	b.posMask = uint32(lowMask(int(b.posBits)))
	tagBits := 32 - b.posBits
	b.tagShift = 64 - b.idBits - tagBits
	b.tagMask = uint32(lowMask(int(tagBits)))
}

// buildIDs rebuilds the id lookup from b.ids.
func (b *base) buildIDs() {
	b.setIDParams()
	n := b.n
	dir := make([]uint32, 1<<b.idBits+1)
	for _, id := range b.ids {
		dir[mix64(id)>>(64-b.idBits)+1]++
	}
	for j := 1; j < len(dir); j++ {
		dir[j] += dir[j-1]
	}
	cur := make([]uint32, len(dir)-1)
	copy(cur, dir)
	pos := make([]uint32, n)
	for p, id := range b.ids {
		h := mix64(id)
		j := h >> (64 - b.idBits)
		tag := uint32(h>>b.tagShift) & b.tagMask
		pos[cur[j]] = uint32(p) | tag<<b.posBits
		cur[j]++
	}
	b.idDir, b.idPos = dir, pos
}

// idsFollow reports whether b's id lookup (parameters set) can be derived
// from old's by updateIDs: the hash bits the tag starts at are the same, and
// the buckets differ by at most one bit (the bit moves between the bucket
// number and the tag). A merge changes the size by at most 1/8 except at
// the smallest sizes, so this holds but for the first few merges.
func (b *base) idsFollow(old *base) bool {
	if old.n == 0 || b.tagShift != old.tagShift {
		return false
	}
	switch int(b.idBits) - int(old.idBits) {
	case 0, -1:
		return true
	case 1:
		return old.posBits < 32 // the tag has a bit to give
	}
	return false
}

// updateIDs builds b's id lookup (parameters set) from old's, given where
// the old entries of table 0 went (pm) and the ids added at addPos: each
// new bucket receives the live entries of the old bucket(s) it covers, then
// its adds.
func (b *base) updateIDs(old *base, pm *posMap, addIDs []uint64, addPos []uint32) {
	idShift := 64 - b.idBits
	dir := make([]uint32, 1<<b.idBits+1)
	for _, id := range addIDs {
		dir[mix64(id)>>idShift+1]++
	}
	prefixSums(dir)
	adds := make([]uint32, len(addIDs)+2) // slack for putAdds
	for k, id := range addIDs {
		h := mix64(id)
		j := h >> idShift
		tag := uint32(h>>b.tagShift) & b.tagMask
		adds[dir[j]] = addPos[k] | tag<<b.posBits
		dir[j]++
	}

	// slack: the loops below write entries before knowing whether they
	// keep them, and runs of fixed length
	pos := make([]uint32, b.n+idSlack)
	odir, opos := old.idDir, old.idPos
	opm, pmask := old.posMask, b.posMask
	off, base := pm.off, pm.base // pm.pos, inline below
	w, a := 0, 0
	// Short loops rather than copy: the runs are a few entries, for which
	// the loop costs less than the call.
	switch int(b.idBits) - int(old.idBits) {
	case 0: // same bucket, same tag
		for J := range len(dir) - 1 {
			start := w
			for _, x := range opos[odir[J]:odir[J+1]] {
				p := x & opm
				o := uint32(off[p>>3]>>(8*(p&7))) & 0xff
				q := base[p>>6] + o
				if o >= overOff {
					if q = pm.slow(p, o); q == deadPos {
						continue
					}
				}
				pos[w] = x&^opm | q
				w++
			}
			a1 := int(dir[J])
			dir[J] = uint32(start)
			w, a = putAdds(pos, adds, w, a, a1)
		}
	case 1: // old bucket j splits into 2j and 2j+1 by its top tag bit
		var h1 []uint32
		for j := range len(odir) - 1 {
			bucket := opos[odir[j]:odir[j+1]]
			if len(bucket) > len(h1) {
				h1 = make([]uint32, max(2*len(bucket), idSlack))
			}
			start, n1 := w, 0
			for _, x := range bucket {
				p := x & opm
				o := uint32(off[p>>3]>>(8*(p&7))) & 0xff
				q := base[p>>6] + o
				live := 1
				if o >= overOff {
					if q = pm.slow(p, o); q == deadPos {
						live = 0
					}
				}
				// the entry goes to half 0 (in place) or half 1 (h1),
				// without a branch on its bit
				e := x<<1&^pmask | q
				hi := int(x >> 31)
				pos[w], h1[n1] = e, e
				w += live &^ hi
				n1 += live & hi
			}
			a1, a2 := int(dir[2*j]), int(dir[2*j+1])
			dir[2*j] = uint32(start)
			w, a = putAdds(pos, adds, w, a, a1)
			dir[2*j+1] = uint32(w)
			if n1 <= idSlack && len(h1) >= idSlack {
				// whole, without a loop on the count
				*(*[idSlack]uint32)(pos[w:]) = *(*[idSlack]uint32)(h1)
				w += n1
			} else {
				w += copy(pos[w:], h1[:n1])
			}
			w, a = putAdds(pos, adds, w, a, a2)
		}
	case -1: // old buckets 2J and 2J+1 join: their low bit tops the tag
		for J := range len(dir) - 1 {
			start := w
			for h := range 2 {
				j := 2*J + h
				for _, x := range opos[odir[j]:odir[j+1]] {
					p := x & opm
					o := uint32(off[p>>3]>>(8*(p&7))) & 0xff
					q := base[p>>6] + o
					if o >= overOff {
						if q = pm.slow(p, o); q == deadPos {
							continue
						}
					}
					pos[w] = uint32(h)<<31 | (x&^opm)>>1 | q
					w++
				}
			}
			a1 := int(dir[J])
			dir[J] = uint32(start)
			w, a = putAdds(pos, adds, w, a, a1)
		}
	}
	dir[len(dir)-1] = uint32(w)
	if w != b.n {
		panic("simhash: internal error: id lookup has the wrong size")
	}
	b.idDir, b.idPos = dir, pos[:b.n]
}
