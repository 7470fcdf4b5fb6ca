package hamming

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
		panic("hamming: internal error: merged table has the wrong size")
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
	checkMerge(mergeArgsOK(j0, j1, len(odir), len(dir), stride, span, w, ins, len(adds)))
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
		checkMerge(runOK(span, lo, hi, maxS, a, a1, len(adds), w, maxW))
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

// checkMerge panics unless ok: mergeAdds writes through unsafe pointers, so
// it checks its ranges (once per bucket) and stops rather than write out of
// bounds on an internal error.
func checkMerge(ok bool) {
	if !ok {
		panic("hamming: internal error: merge out of range")
	}
}

// mergeArgsOK checks mergeAdds's arguments.
func mergeArgsOK(j0, j1, nodir, ndir, stride, span, w int, ins []uint32, nadds int) bool {
	return j0 >= 0 && j1 < nodir && j1 < ndir && stride > 0 && span >= 0 && w >= 0 && (ins == nil || len(ins) == nadds)
}

// runOK checks the ranges of one bucket of mergeAdds: the old entries
// span..hi and the adds a..a1 fit the tables.
func runOK(span, lo, hi, maxS, a, a1, nadds, w, maxW int) bool {
	return span <= lo && lo <= hi && hi <= maxS && a <= a1 && a1 <= nadds && w+(hi-span)+(a1-a) <= maxW
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
		panic("hamming: internal error: removed entry not in its bucket")
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

func (ix *Index) maybeMerge() {
	if len(ix.buf.fps)+ix.base.ndead >= ix.buf.limit {
		ix.merge()
	}
}
