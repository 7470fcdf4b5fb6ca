package simhash

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sort"
)

// bucketSort sorts keys by a counting sort on their top bits (at most d, at
// most 16), then each bucket by insertion sort: the keys are fingerprints, so
// the buckets are tiny (clustered buckets fall back to a full sort). ids,
// when not nil, move with their keys. scratch must be as long as keys (and
// scratchIDs as ids).
func bucketSort(keys, ids, scratch, scratchIDs []uint64, d int) {
	if len(keys) < 2 {
		return
	}
	cb := min(d, 16, bits.Len(uint(len(keys))))
	cshift := uint(64 - cb)
	count := make([]int, 1<<cb+1)
	for _, k := range keys {
		count[k>>cshift+1]++
	}
	for j := 1; j < len(count); j++ {
		count[j] += count[j-1]
	}
	for i, k := range keys {
		j := k >> cshift
		scratch[count[j]] = k
		if ids != nil {
			scratchIDs[count[j]] = ids[i]
		}
		count[j]++
	}
	copy(keys, scratch)
	if ids != nil {
		copy(ids, scratchIDs)
	}
	lo := 0
	for _, hi := range count[:len(count)-1] {
		switch {
		case hi-lo > 32 && ids == nil:
			slices.Sort(keys[lo:hi])
		case hi-lo > 32:
			sort.Sort(pairs{keys[lo:hi], ids[lo:hi]})
		case ids == nil:
			insertionSort(keys[lo:hi], nil)
		default:
			insertionSort(keys[lo:hi], ids[lo:hi])
		}
		lo = hi
	}
}

func insertionSort(keys, ids []uint64) {
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		if keys[i-1] <= k {
			continue
		}
		j := i
		if ids == nil {
			for j > 0 && keys[j-1] > k {
				keys[j] = keys[j-1]
				j--
			}
			keys[j] = k
			continue
		}
		id := ids[i]
		for j > 0 && keys[j-1] > k {
			keys[j], ids[j] = keys[j-1], ids[j-1]
			j--
		}
		keys[j], ids[j] = k, id
	}
}

// pairs sorts keys with ids alongside.
type pairs struct{ k, v []uint64 }

func (p pairs) Len() int           { return len(p.k) }
func (p pairs) Less(i, j int) bool { return p.k[i] < p.k[j] }
func (p pairs) Swap(i, j int) {
	p.k[i], p.k[j] = p.k[j], p.k[i]
	p.v[i], p.v[j] = p.v[j], p.v[i]
}

// mergeTable writes a new table of n entries: the old table without the
// removed entries, plus adds (sorted permuted values). Runs of old entries
// between two edits are copied as they are (their stored bits do not change),
// so a merge costs little more than copying the table. For tables other
// than 0 the removed entries are given by value in gone (sorted; each is in
// the old table); for table 0 by their positions in dead, and the ids move
// with the entries (oldIDs, addIDs into ids). goneBuckets counts the removed
// entries per bucket, for the directory.
func mergeTable(tl *tableLayout, old table, adds, gone []uint64, n int, ids, oldIDs, addIDs, dead []uint64) table {
	stride, low, shift := tl.stride, tl.low, tl.shift
	data := make([]byte, n*stride+8)
	adviseHuge(data)
	odata, odir := old.data, old.dir
	oldN := int(odir[len(odir)-1])
	le := binary.LittleEndian

	// the directory: old offsets, shifted by the edits before each bucket
	dir := make([]uint32, len(odir))
	for _, v := range adds {
		dir[v>>shift+1]++
	}
	for _, v := range gone {
		dir[v>>shift+1]--
	}
	for j := 1; j < len(dir); j++ {
		dir[j] += dir[j-1]
	}
	for j := range dir {
		dir[j] += odir[j]
	}

	src, dst := 0, 0
	run := func(to int) { // copy old entries src..to
		copy(data[dst*stride:], odata[src*stride:to*stride])
		if ids != nil {
			copy(ids[dst:], oldIDs[src:to])
		}
		dst += to - src
		src = to
	}
	// lowerBound is the first old position >= from whose value is >= v.
	lowerBound := func(v uint64, from int) int {
		j := v >> shift
		i, hi := max(from, int(odir[j])), int(odir[j+1])
		vl := v & low
		for i < hi && le.Uint64(odata[i*stride:])&low < vl {
			i++
		}
		return max(i, from)
	}
	nextDead := func(w, from int) (int, int) { // next dead position >= from, scanning words from w
		for w = max(w, from>>6); w < len(dead); w++ {
			word := dead[w]
			if w == from>>6 {
				word &^= 1<<(uint(from)&63) - 1
			}
			if word != 0 {
				return w, w<<6 | bits.TrailingZeros64(word)
			}
		}
		return w, oldN
	}
	a, g := 0, 0
	dw, dp := 0, oldN
	if ids != nil {
		dw, dp = nextDead(0, 0)
	}
	for a < len(adds) || g < len(gone) || dp < oldN {
		// the next deletion's position, if any
		del := oldN
		switch {
		case ids != nil:
			del = dp
		case g < len(gone):
			// first old entry >= src equal to gone[g]
			del = lowerBound(gone[g], src)
		}
		if a < len(adds) {
			if p := lowerBound(adds[a], src); p <= del {
				run(p)
				le.PutUint64(data[dst*stride:], adds[a]&low)
				if ids != nil {
					ids[dst] = addIDs[a]
				}
				dst++
				a++
				continue
			}
		}
		if del == oldN {
			break
		}
		run(del)
		src++ // skip the removed entry
		if ids != nil {
			dw, dp = nextDead(dw, src)
		} else {
			g++
		}
	}
	run(oldN)
	if dst != n || int(dir[len(dir)-1]) != n {
		panic("simhash: internal error: merged table has the wrong size")
	}
	return table{data: data, dir: dir}
}

// merge folds the buffer into the base and drops removed entries: one
// sorted merge per table, linear in the size of the index.
func (ix *Index) merge() {
	l := &ix.lay
	b, bf := &ix.base, &ix.buf

	// live buffer entries, sorted by fingerprint (table 0 order)
	m := len(bf.fps) - bf.ndead
	fps := make([]uint64, 0, m)
	addIDs := make([]uint64, 0, m)
	for i, f := range bf.fps {
		if !bitGet(bf.dead, i) {
			fps = append(fps, f)
			addIDs = append(addIDs, bf.ids[i])
		}
	}
	scratch := make([]uint64, max(m, b.ndead))
	scratchIDs := make([]uint64, m)
	t0 := &l.tables[0]
	bucketSort(fps, addIDs, scratch, scratchIDs, t0.dbits)

	// fingerprints removed from the base, in table 0 order
	gone := make([]uint64, 0, b.ndead)
	if b.ndead > 0 {
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
	}

	n := b.n - b.ndead + m
	nb := base{n: n, tabs: make([]table, len(l.tables)), ids: make([]uint64, n)}
	nb.tabs[0] = mergeTable(t0, b.tabs[0], fps, gone, n, nb.ids, b.ids, addIDs, b.dead)

	keys := make([]uint64, m)
	goneKeys := make([]uint64, len(gone))
	for t := 1; t < len(l.tables); t++ {
		tl := &l.tables[t]
		for i, f := range fps {
			keys[i] = l.permute(t, f)
		}
		bucketSort(keys, nil, scratch, nil, tl.dbits)
		for i, f := range gone {
			goneKeys[i] = l.permute(t, f)
		}
		bucketSort(goneKeys, nil, scratch, nil, tl.dbits)
		nb.tabs[t] = mergeTable(tl, b.tabs[t], keys, goneKeys, n, nil, nil, nil, nil)
	}

	nb.dead = make([]uint64, (n+63)/64)
	nb.buildIDs()
	ix.base = nb
	bf.reset(l, mergeThreshold(n))
}

// buildIDs rebuilds the id lookup from b.ids.
func (b *base) buildIDs() {
	n := b.n
	b.idBits = uint(max(bits.Len(uint(n))-4, 1))
	b.posBits = uint(max(bits.Len(uint(n)), 1))
	b.posMask = uint32(lowMask(int(b.posBits)))
	tagBits := 32 - b.posBits
	b.tagShift = 64 - b.idBits - tagBits
	b.tagMask = uint32(lowMask(int(tagBits)))
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
