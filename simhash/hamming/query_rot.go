package hamming

import (
	"encoding/binary"
	"math/bits"
)

// rotQuery is the state of one query of a rotation layout (queryRot): where
// it looks in each table, which chain heads it still has to read, and the
// hits whose ids it reads after the scans.
type rotQuery struct {
	qv uint64 // the query
	k  int    // the distance asked
	np int    // the tables probed

	qt     [maxRotTables]uint64
	lo, hi [maxRotTables]uint32
	sum    [maxRotTables]uint16
	head   [maxRotTables]int32
	need   uint32 // tables whose chain heads are read after table 0's scan

	// hits of table 0: positions whose ids are read (prefetched till then)
	// after the scans; positions fit in uint32 (maxIndexEntries)
	pos0  [8]uint32
	dis0  [8]uint8
	npos0 int
	// hits of other tables, resolved through table 0 after the scans
	pend  [8]pending
	npend int
}

// pending is a hit of a table other than 0 to resolve through table 0.
type pending struct {
	f    uint64
	dist int // its distance, or a bound below it (drop)
	drop uint64
}

// queryRot is query for a layout whose tables are rotations (l.rot set):
// every table's key is one rotate of the query, so no loop over segments
// stands between the query and its loads.
//
// It prefetches every line of the buckets and the chain heads the summaries
// do not rule out, reads the heads once table 0's bucket is scanned
// (prefetching the first entry of every chain to walk) and follows the
// chains in lockstep, one link of every chain after each bucket scan from
// table 1's on, so that all these misses overlap each other and the scans.
// Hits are turned into ids once every bucket is scanned, their loads
// prefetched when they are found: table 0's from their positions, the other
// tables' resolved through table 0 (its bucket and the bucket's ids
// prefetched whole). Loads in place of the prefetches made every query wait
// for its last line before its first scan.
func (ix *Index) queryRot(q uint64, k int, dst []Hit) []Hit {
	var rq rotQuery
	ix.rotLocate(&rq, q, k)
	buffered := len(ix.buf.fps) > 0
	for t := range rq.np {
		dst = ix.rotScan(&rq, t, dst)
		switch {
		case t == 0 && rq.need != 0:
			ix.rotReadHeads(&rq)
		case t > 0 && buffered:
			dst = ix.chainStep(rq.head[:rq.np], q, k, dst)
		}
	}
	return ix.rotFinish(&rq, buffered, dst)
}

// rotLocate finds the query's bucket and chain summary in every table and
// prefetches the buckets and the chain heads to read.
func (ix *Index) rotLocate(rq *rotQuery, q uint64, k int) {
	l := &ix.lay
	np := l.nprobe[k]
	b, bf := &ix.base, &ix.buf
	tabs, tls, rot := b.tabs[:np], l.tables[:np], l.rot[:np]
	rq.qv, rq.k, rq.np = q, k, np
	qt, lo, hi := rq.qt[:np], rq.lo[:np], rq.hi[:np]
	for t := range qt {
		qt[t] = bits.RotateLeft64(q, rot[t])
	}
	for t := range tabs {
		lo[t], hi[t] = tabs[t].bucket(qt[t] >> tls[t].shift)
	}
	for t := range tabs {
		data, stride := tabs[t].data, tls[t].stride
		prefetchSpan(data, int(lo[t])*stride, scanEnd(int(hi[t])*stride, stride))
	}
	if len(bf.fps) == 0 {
		return
	}
	sums, heads, shift := bf.sums[:np], bf.heads[:np], bf.shift[:np]
	sum := rq.sum[:np]
	for t := range sums {
		sum[t] = sums[t][qt[t]>>shift[t]]
	}
	for t := range heads {
		if !sumSkips(sum[t], qt[t], k) {
			rq.need |= 1 << t
			prefetchElem(heads[t], int(qt[t]>>shift[t]))
		}
	}
}

// rotReadHeads reads the chain heads rotLocate prefetched and prefetches the
// first entry of every chain to walk.
func (ix *Index) rotReadHeads(rq *rotQuery) {
	bf := &ix.buf
	var pl prefetchList
	for m := rq.need; m != 0; m &= m - 1 {
		t := bits.TrailingZeros32(m)
		e := bf.first(bf.heads[t][rq.qt[t]>>bf.shift[t]], t, rq.qt[t], rq.k)
		rq.head[t] = e
		if e != 0 {
			bf.prefetchEntry(&pl, e, t)
		}
	}
	pl.Flush()
}

// rotScan scans table t's bucket. Hits of table 0 are recorded as positions
// and those of other tables as codes to resolve, their loads prefetched, up
// to eight of each; beyond that they are reported at once (baseHit).
func (ix *Index) rotScan(rq *rotQuery, t int, dst []Hit) []Hit {
	l := &ix.lay
	tl := &l.tables[t]
	stride, low, rot := tl.stride, tl.low, l.rot[t]
	qt := rq.qt[t]
	ql := qt & low
	start, end := int(rq.lo[t])*stride, int(rq.hi[t])*stride
	data := ix.base.tabs[t].data[:end+8]
	skip := l.skipMasks(t)
	for x := start; ; x += stride {
		if x = scanBucket(data, x, end, stride, low, ql, rq.k, skip); x >= end {
			return dst
		}
		v := binary.LittleEndian.Uint64(data[x:]) & low
		diff := bits.RotateLeft64(((qt&^low)|v)^qt, -rot)
		switch {
		case !l.canonical(diff, t, rq.k):
		case t == 0 && rq.npos0 < len(rq.pos0):
			ix.rotKeep0(rq, x/stride, bits.OnesCount64(diff))
		case t > 0 && rq.npend < len(rq.pend):
			ix.rotKeep(rq, t, rq.qv^diff, bits.OnesCount64(diff))
		default:
			dst = ix.baseHit(t, rq.k, x/stride, (qt&^low)|v, qt, rq.qv, dst)
		}
		if t > 0 {
			// equal entries are one fingerprint, resolved at once
			for x+stride < end && binary.LittleEndian.Uint64(data[x+stride:])&low == v {
				x += stride
			}
		}
	}
}

// rotKeep0 records the table 0 hit at position i and prefetches its id and
// tombstone word.
func (ix *Index) rotKeep0(rq *rotQuery, i, dist int) {
	rq.pos0[rq.npos0], rq.dis0[rq.npos0] = uint32(i), uint8(dist)
	rq.npos0++
	var pl prefetchList
	prefetchTo(&pl, ix.base.ids, i)
	prefetchTo(&pl, ix.base.dead, i>>6)
	pl.Flush()
}

// rotKeep records the hit f of table t to resolve through table 0 and
// prefetches table 0's bucket of f and the bucket's ids.
func (ix *Index) rotKeep(rq *rotQuery, t int, f uint64, dist int) {
	b, t0 := &ix.base, &ix.lay.tables[0]
	if lo, hi := b.tabs[0].bucket(f >> t0.shift); lo < hi {
		var pl prefetchList
		pl.Span(b.tabs[0].data, int(lo)*t0.stride, scanEnd(int(hi)*t0.stride, t0.stride))
		for p := int(lo); p < int(hi) && pl.Len() < prefetchListSize; p += 8 {
			prefetchTo(&pl, b.ids, p)
		}
		prefetchTo(&pl, b.ids, int(hi)-1)
		pl.Flush()
	}
	rq.pend[rq.npend] = pending{f, dist, ix.lay.tables[t].drop}
	rq.npend++
}

// rotFinish walks the rest of the buffer chains and reports the recorded
// hits.
func (ix *Index) rotFinish(rq *rotQuery, buffered bool, dst []Hit) []Hit {
	head := rq.head[:rq.np]
	for buffered {
		var more int32
		dst = ix.chainStep(head, rq.qv, rq.k, dst)
		for _, e := range head {
			more |= e
		}
		if more == 0 {
			break
		}
	}
	b := &ix.base
	for j, i := range rq.pos0[:rq.npos0] {
		if !bitGet(b.dead, int(i)) {
			dst = append(dst, Hit{ID: b.ids[i], Distance: int(rq.dis0[j])})
		}
	}
	for _, p := range rq.pend[:rq.npend] {
		dst = ix.resolve(p.f, p.drop, rq.qv, rq.k, p.dist, dst)
	}
	return dst
}
