package hamming

import (
	"math/bits"
	"sort"
)

// find locates a live entry by id: in the base (position in table 0) or in
// the buffer (entry index).
func (ix *Index) find(id uint64) (inBase bool, i int, ok bool) {
	h := mix64(id)
	b, bf := &ix.base, &ix.buf
	T := len(bf.heads)
	// both first loads before either scan, so that their misses overlap
	j := h >> (64 - b.idBits)
	lo, hi := b.idDir[j], b.idDir[j+1]
	e := bf.idHeads[h>>bf.shift[T]]
	tag := uint32(h>>b.tagShift) & b.tagMask
	for _, x := range b.idPos[lo:hi] {
		if x>>b.posBits == tag {
			p := int(x & b.posMask)
			if b.ids[p] == id && !bitGet(b.dead, p) {
				return true, p, true
			}
		}
	}
	for ; e != 0; e = bf.next[int(e-1)*(T+1)+T] {
		p := int(e - 1)
		if bf.ids[p] == id && !bitGet(bf.dead, p) {
			return false, p, true
		}
	}
	return false, 0, false
}

// mix64 is the SplitMix64 finaliser: a bijection that spreads ids over the
// id lookup's buckets.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
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

// newPosMap builds the map for adds inserted before the old positions ins
// (ascending) into a table of oldN entries, ndead of them removed (set in
// dead).
func newPosMap(ins []uint32, dead []uint64, ndead, oldN int) *posMap {
	nblk := oldN>>6 + 1
	pm := &posMap{base: make([]uint32, nblk+1), off: make([]uint64, 8*nblk), ins: ins, dead: dead}
	count := pm.countAdds(ins, oldN)
	pm.sumOffsets(count)
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
		pm.dropDead(dead)
	}
	for B, c := range count {
		if c > maxBlockAdds {
			for t := range 8 {
				pm.off[8*B+t] = overOff * byteOnes
			}
		}
	}
	return pm
}

// byteOnes has a 1 in every byte.
const byteOnes = 0x0101010101010101

// countAdds counts the adds: an add before entry p counts in the base of
// p's block if p is the first of its block, else in the offsets of p and
// the entries after it in its block (counted at p here, summed along the
// block by sumOffsets), and in the bases of the blocks after. It returns the
// adds counted in the offsets of each block.
func (pm *posMap) countAdds(ins []uint32, oldN int) []uint32 {
	count := make([]uint32, len(pm.base)-1)
	for _, p := range ins {
		if int(p) >= oldN {
			break // after the last entry
		}
		B, g := p>>6, p&63
		pm.base[(p+63)>>6]++
		if g == 0 {
			continue
		}
		if count[B]++; count[B] <= maxBlockAdds {
			pm.off[p>>3] += 1 << (8 * (g & 7))
		}
	}
	return count
}

// sumOffsets turns each block's counted adds into offsets: prefix sums of
// the bytes along the block (no byte exceeds maxBlockAdds, so none carries),
// then the block's template (0, 1, ... 63).
func (pm *posMap) sumOffsets(count []uint32) {
	for B, c := range count {
		words := (*[8]uint64)(pm.off[8*B:])
		if c == 0 {
			for t := range words {
				words[t] = 0x0706050403020100 + uint64(t)*0x0808080808080808
			}
			continue
		}
		var carry uint64
		for t, x := range words {
			x += x << 8
			x += x << 16
			x += x << 32
			x += carry
			carry = (x >> 56) * byteOnes
			words[t] = x + 0x0706050403020100 + uint64(t)*0x0808080808080808
		}
	}
}

// dropDead takes each removed entry out of the offsets of the entries after
// it in its block and marks its own offset deadOff.
func (pm *posMap) dropDead(dead []uint64) {
	for B, d := range dead {
		words := (*[8]uint64)(pm.off[8*B:])
		for r := d; r != 0; r &= r - 1 {
			i := bits.TrailingZeros64(r)
			for t := range words { // one less in bytes i+1..63
				words[t] -= byteOnes << (8 * uint(min(max(i+1-8*t, 0), 8)))
			}
		}
		for r := d; r != 0; r &= r - 1 {
			i := bits.TrailingZeros64(r)
			words[i>>3] |= 0xff << (8 * uint(i&7))
		}
	}
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
// its adds. The lookup's bucket count either stays, doubles or halves with
// the merge; each case has its own loop (idsSame, idsSplit, idsJoin).
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
	// slack: the loops write entries before knowing whether they keep
	// them, and runs of fixed length
	u := idUpdate{pm: pm, odir: old.idDir, opos: old.idPos, opm: old.posMask, pmask: b.posMask,
		dir: dir, adds: adds, pos: make([]uint32, b.n+idSlack)}
	switch int(b.idBits) - int(old.idBits) {
	case 0:
		u.idsSame()
	case 1:
		u.idsSplit()
	case -1:
		u.idsJoin()
	}
	dir[len(dir)-1] = uint32(u.w)
	if u.w != b.n {
		panic("hamming: internal error: id lookup has the wrong size")
	}
	b.idDir, b.idPos = dir, u.pos[:b.n]
}

// idUpdate is the state of updateIDs: the old lookup (odir, opos, opm), the
// new one being written (dir, pos, pmask; w entries so far) and its adds
// (a of them placed).
type idUpdate struct {
	pm         *posMap
	odir, opos []uint32
	opm, pmask uint32
	dir, adds  []uint32
	pos        []uint32
	w, a       int
}

// moved returns the new position of old lookup entry x's table position, and
// whether it is live. Short loops call it rather than copy: the runs are a
// few entries, for which the loop costs less than the call.
func (u *idUpdate) moved(x uint32) (uint32, bool) {
	p := x & u.opm
	o := uint32(u.pm.off[p>>3]>>(8*(p&7))) & 0xff
	if o >= overOff {
		q := u.pm.slow(p, o)
		return q, q != deadPos
	}
	return u.pm.base[p>>6] + o, true
}

// idsSame: same buckets, same tags.
func (u *idUpdate) idsSame() {
	for J := range len(u.dir) - 1 {
		start := u.w
		for _, x := range u.opos[u.odir[J]:u.odir[J+1]] {
			if q, ok := u.moved(x); ok {
				u.pos[u.w] = x&^u.opm | q
				u.w++
			}
		}
		a1 := int(u.dir[J])
		u.dir[J] = uint32(start)
		u.w, u.a = putAdds(u.pos, u.adds, u.w, u.a, a1)
	}
}

// idsSplit: old bucket j splits into 2j and 2j+1 by its top tag bit.
func (u *idUpdate) idsSplit() {
	var h1 []uint32
	for j := range len(u.odir) - 1 {
		bucket := u.opos[u.odir[j]:u.odir[j+1]]
		if len(bucket) > len(h1) {
			h1 = make([]uint32, max(2*len(bucket), idSlack))
		}
		start, n1 := u.w, 0
		for _, x := range bucket {
			q, ok := u.moved(x)
			live := 0
			if ok {
				live = 1
			}
			// the entry goes to half 0 (in place) or half 1 (h1),
			// without a branch on its bit
			e := x<<1&^u.pmask | q
			hi := int(x >> 31)
			u.pos[u.w], h1[n1] = e, e
			u.w += live &^ hi
			n1 += live & hi
		}
		a1, a2 := int(u.dir[2*j]), int(u.dir[2*j+1])
		u.dir[2*j] = uint32(start)
		u.w, u.a = putAdds(u.pos, u.adds, u.w, u.a, a1)
		u.dir[2*j+1] = uint32(u.w)
		if n1 <= idSlack && len(h1) >= idSlack {
			// whole, without a loop on the count
			*(*[idSlack]uint32)(u.pos[u.w:]) = *(*[idSlack]uint32)(h1)
			u.w += n1
		} else {
			u.w += copy(u.pos[u.w:], h1[:n1])
		}
		u.w, u.a = putAdds(u.pos, u.adds, u.w, u.a, a2)
	}
}

// idsJoin: old buckets 2J and 2J+1 join; their low bit tops the tag.
func (u *idUpdate) idsJoin() {
	for J := range len(u.dir) - 1 {
		start := u.w
		for h := range 2 {
			j := 2*J + h
			for _, x := range u.opos[u.odir[j]:u.odir[j+1]] {
				if q, ok := u.moved(x); ok {
					u.pos[u.w] = uint32(h)<<31 | (x&^u.opm)>>1 | q
					u.w++
				}
			}
		}
		a1 := int(u.dir[J])
		u.dir[J] = uint32(start)
		u.w, u.a = putAdds(u.pos, u.adds, u.w, u.a, a1)
	}
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
		panic("hamming: internal error: merged ids have the wrong size")
	}
	return ids, addPos
}

const (
	overOff = 254
	deadOff = 255
	// maxBlockAdds is the most adds a block's offsets count: 63 + 190 is
	// below overOff.
	maxBlockAdds = 190
)
