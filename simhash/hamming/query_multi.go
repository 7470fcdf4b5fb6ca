package hamming

import (
	"math/bits"
)

// multiBatch is the number of buckets or chains a multi-probe query looks up
// together, so that their loads overlap.
const multiBatch = 64

// multiBase is the base part of a query at a multi-probe distance k
// (qradius[k] > 0): in each of the first nprobe[k] tables it looks up every
// bucket whose directory bits are within the radius of the query's, a batch
// of buckets at a time, and scans each for entries within k (k less the bits
// flipped in the bucket number, for the stored bits).
func (ix *Index) multiBase(q uint64, k int, dst []Hit) []Hit {
	l := &ix.lay
	r, np := l.qradius[k], l.nprobe[k]
	var lo, hi [multiBatch]uint32
	var flip [multiBatch]uint64
	for t := range np {
		tl := &l.tables[t]
		qt := applySegments(tl.perm, q)
		dir, data := ix.base.tabs[t].dir, ix.base.tabs[t].data
		qj := qt >> tl.shift
		for f, more := uint64(0), true; more; {
			nb := 0
			for ; more && nb < multiBatch; f, more = nextFlip(f, tl.dbits, r) {
				j := qj ^ f
				lo[nb], hi[nb], flip[nb] = dir[j], dir[j+1], f
				nb++
			}
			// every line of the buckets prefetched before any is scanned
			// (a list at a time: a call per bucket costs more than it
			// saves when they are cached)
			var pl prefetchList
			for p := range nb {
				pl.Span(data, int(lo[p])*tl.stride, scanEnd(int(hi[p])*tl.stride, tl.stride))
				if pl.Len() > prefetchListSize-4 {
					pl.Flush()
				}
			}
			pl.Flush()
			for p := range nb {
				top := (qj ^ flip[p]) << tl.shift
				dst = ix.scanRange(t, int(lo[p]), int(hi[p]), top, qt, q, k, k-bits.OnesCount64(flip[p]), dst)
			}
		}
	}
	return dst
}

// bufferScanFactor: a multi-probe query scans the buffer instead of
// following its chains when it holds at most this many entries per chain
// the query would look up. (A variable so that tests can force the chains.)
var bufferScanFactor = 4

// multiBuffer is the buffer part of a query at a multi-probe distance k: it
// follows, in each table, the chains of every key within the radius of the
// query's, a batch of chain heads at a time, or scans the buffer when it
// holds few entries for the number of chains a query would follow.
func (ix *Index) multiBuffer(q uint64, k int, dst []Hit) []Hit {
	l, bf := &ix.lay, &ix.buf
	n := len(bf.fps)
	if n == 0 {
		return dst
	}
	if n <= bufferScanFactor*bf.probes[k] {
		for i, f := range bf.fps {
			if d := bits.OnesCount64(f ^ q); d <= k && !bitGet(bf.dead, i) {
				dst = append(dst, Hit{ID: bf.ids[i], Distance: d})
			}
		}
		return dst
	}
	r, np := l.qradius[k], l.nprobe[k]
	var head [multiBatch]int32
	var keys, flips [multiBatch]uint64
	for t := range np {
		shift := bf.shift[t]
		qt := applySegments(l.tables[t].perm, q)
		qk := qt >> shift
		heads := bf.heads[t]
		for f, more := uint64(0), true; more; {
			// a batch of chain heads prefetched, then read, and their
			// first entries prefetched, before any chain is walked
			nb := 0
			var pl prefetchList
			for ; more && nb < multiBatch; f, more = nextFlip(f, 64-int(shift), r) {
				keys[nb], flips[nb] = qk^f, f
				prefetchTo(&pl, heads, int(qk^f))
				if pl.Len() == prefetchListSize {
					pl.Flush()
				}
				nb++
			}
			pl.Flush()
			for x := range nb {
				e := bf.first(heads[keys[x]], t, qt, k-bits.OnesCount64(flips[x]))
				head[x] = e
				if e != 0 {
					bf.prefetchEntry(&pl, e, t)
				}
			}
			pl.Flush()
			for _, e := range head[:nb] {
				dst = ix.walkChain(e, t, q, k, dst)
			}
		}
	}
	return dst
}
