package hamming

import (
	"encoding/binary"
	"math/bits"
)

// query answers Query for a k within the index's range. The three layouts
// share the steps below: locate the query's bucket in each table, prefetch
// the buckets and buffer chain heads so that their misses overlap, scan the
// buckets (scanRange), resolve hits of tables other than 0 through table 0
// (baseHit, resolve), and walk the buffer's chains (buffer.hit).
func (ix *Index) query(q uint64, k int, dst []Hit) []Hit {
	l := &ix.lay
	switch {
	case l.qradius[k] > 0:
		dst = ix.multiBase(q, k, dst)
		return ix.multiBuffer(q, k, dst)
	case l.rot != nil:
		return ix.queryRot(q, k, dst)
	}
	return ix.querySegments(q, k, dst)
}

// scanRange reports the entries of table t at positions [lo, hi), one
// bucket, whose stored bits are within kk of the query's: top holds the
// bucket's permuted bits above the stored ones, qt the query's permuted
// code, and k the distance the query asks (kk is k less the bits a
// multi-probe flipped in the bucket number). Equal entries of tables other
// than 0 stand for one code and are resolved once.
func (ix *Index) scanRange(t, lo, hi int, top, qt, q uint64, k, kk int, dst []Hit) []Hit {
	tl := &ix.lay.tables[t]
	stride, low := tl.stride, tl.low
	end := hi * stride
	data := ix.base.tabs[t].data
	ql := qt & low
	for x := lo * stride; ; x += stride {
		if x = scanBucket(data, x, end, stride, low, ql, kk, nil); x >= end {
			return dst
		}
		v := binary.LittleEndian.Uint64(data[x:]) & low
		dst = ix.baseHit(t, k, x/stride, top|v, qt, q, dst)
		if t > 0 {
			for x+stride < end && binary.LittleEndian.Uint64(data[x+stride:])&low == v {
				x += stride
			}
		}
	}
}

// hit returns buffer entry i as a Hit of table t for query q if it is one:
// within k bits, canonical for t (no earlier table reports it) and live.
func (bf *buffer) hit(l *layout, i, t int, q uint64, k int) (Hit, bool) {
	diff := bf.fps[i] ^ q
	d := bits.OnesCount64(diff)
	if d > k || !l.canonical(diff, t, k) || bitGet(bf.dead, i) {
		return Hit{}, false
	}
	return Hit{ID: bf.ids[i], Distance: d}, true
}

// walkChain reports the hits of table t's buffer chain from entry e on.
func (ix *Index) walkChain(e int32, t int, q uint64, k int, dst []Hit) []Hit {
	bf := &ix.buf
	for ; e != 0; e = bf.next[int(e-1)*bf.links+t] {
		if h, ok := bf.hit(&ix.lay, int(e-1), t, q, k); ok {
			dst = append(dst, h)
		}
	}
	return dst
}

// chainStep checks the buffer entry at the head of each table's chain in
// head and advances it by one link.
func (ix *Index) chainStep(head []int32, q uint64, k int, dst []Hit) []Hit {
	bf := &ix.buf
	for t, e := range head {
		if e == 0 {
			continue
		}
		i := int(e - 1)
		head[t] = bf.next[i*bf.links+t]
		if h, ok := bf.hit(&ix.lay, i, t, q, k); ok {
			dst = append(dst, h)
		}
	}
	return dst
}

// probe is where a query looks in each table: its permuted code, its bucket
// and, when the buffer is not empty, its chain summary and chain head.
type probe struct {
	qt     uint64
	lo, hi uint32
	sum    uint16
	head   int32
}

// querySegments is query for an exact layout whose tables are permuted by
// segments (not rotations): every table's bucket and chain summary first,
// then the buckets prefetched and the chain heads the summaries do not rule
// out loaded, then the first entries of those chains prefetched, so that the
// loads of each round are in flight together before anything needs them.
func (ix *Index) querySegments(q uint64, k int, dst []Hit) []Hit {
	l := &ix.lay
	np := l.nprobe[k]
	b, bf := &ix.base, &ix.buf
	buffered := len(bf.fps) > 0
	var pa [maxIndexTables]probe
	ps := pa[:np]
	for t := range ps {
		p := &ps[t]
		tl := &l.tables[t]
		p.qt = applySegments(tl.perm, q)
		p.lo, p.hi = b.tabs[t].bucket(p.qt >> tl.shift)
		if buffered {
			p.sum = bf.sums[t][p.qt>>bf.shift[t]]
		}
	}
	var headH [maxIndexTables]uint64
	for t := range ps {
		p := &ps[t]
		stride := l.tables[t].stride
		prefetchSpan(b.tabs[t].data, int(p.lo)*stride, scanEnd(int(p.hi)*stride, stride))
		if buffered && !sumSkips(p.sum, p.qt, k) {
			headH[t] = bf.heads[t][p.qt>>bf.shift[t]]
		}
	}
	var pl prefetchList
	for t := range ps {
		if headH[t] != 0 {
			if e := bf.first(headH[t], t, ps[t].qt, k); e != 0 {
				ps[t].head = e
				bf.prefetchEntry(&pl, e, t)
			}
		}
	}
	pl.Flush()
	for t := range ps {
		p := &ps[t]
		if p.lo < p.hi {
			dst = ix.scanRange(t, int(p.lo), int(p.hi), p.qt&^l.tables[t].low, p.qt, q, k, k, dst)
		}
	}
	for t := range ps {
		dst = ix.walkChain(ps[t].head, t, q, k, dst)
	}
	return dst
}

// baseHit handles entry i of table t whose permuted fingerprint cand is
// within distance kk of the query's qt: it reports it if t is its canonical
// table, resolving the ids through table 0 for the other tables.
func (ix *Index) baseHit(t, kk, i int, cand, qt, q uint64, dst []Hit) []Hit {
	l := &ix.lay
	diff := l.unpermute(t, cand^qt)
	if !l.canonical(diff, t, kk) {
		return dst
	}
	b := &ix.base
	dist := bits.OnesCount64(diff)
	if t == 0 {
		if !bitGet(b.dead, i) {
			dst = append(dst, Hit{ID: b.ids[i], Distance: dist})
		}
		return dst
	}
	return ix.resolve(q^diff, l.tables[t].drop, q, kk, dist, dst)
}

// resolve appends the live entries of table 0 that a hit of a table other
// than 0 stands for: f is the hit's fingerprint, exact but for the bits
// that table leaves out (drop, taken from the query). With drop 0 they are
// the entries equal to f, at distance dist; otherwise the entries equal to
// f outside drop whose own distance from q is at most k.
func (ix *Index) resolve(f, drop, q uint64, k, dist int, dst []Hit) []Hit {
	b := &ix.base
	t0 := &ix.lay.tables[0]
	lo, hi := b.tabs[0].bucket(f >> t0.shift)
	data := b.tabs[0].data
	for p := int(lo); p < int(hi); p++ {
		v := binary.LittleEndian.Uint64(data[p*t0.stride:])
		if d, ok := t0.standsFor(v, f, drop, q, k, dist); ok && !bitGet(b.dead, p) {
			dst = append(dst, Hit{ID: b.ids[p], Distance: d})
		}
	}
	return dst
}

// standsFor reports whether the table 0 entry with stored bits v, in the
// bucket of fingerprint f, is an entry a hit f of a table that leaves out
// the bits drop stands for (equal to f outside drop; within k of q when
// drop is not 0), and its distance from q (dist when drop is 0). t0 is
// table 0's layout.
func (t0 *tableLayout) standsFor(v, f, drop, q uint64, k, dist int) (int, bool) {
	mask := t0.low &^ drop
	if (v^f)&mask != 0 {
		return 0, false
	}
	if drop == 0 {
		return dist, true
	}
	d := bits.OnesCount64((f&^t0.low | v&t0.low) ^ q)
	return d, d <= k
}
