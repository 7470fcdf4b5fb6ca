package hamming

import (
	"encoding/binary"
	"math/bits"

	"github.com/neardup/neardup/internal/prefetch"
)

func (ix *Index) query(q uint64, k int, dst []Hit) []Hit {
	l := &ix.lay
	if l.qradius[k] > 0 {
		return ix.queryMulti(q, k, dst)
	}
	if l.rot != nil {
		return ix.queryRot(q, k, dst)
	}
	np := l.nprobe[k]
	b, bf := &ix.base, &ix.buf
	buffered := len(bf.fps) > 0
	S := bf.links
	var qt [maxIndexTables]uint64
	var lo, hi [maxIndexTables]uint32
	var sum [maxIndexTables]uint16
	var headH [maxIndexTables]uint64
	var head [maxIndexTables]int32
	// Random queries are dominated by cache misses: find every table's
	// bucket and buffer chain summary first, then prefetch the buckets and
	// load the chain heads the summaries do not rule out, then the first
	// entries of the chains to walk, so that the loads of each round are in
	// flight together before anything needs them (queryRot explains the
	// prefetches).
	for t := range np {
		tl := &l.tables[t]
		v := applySegments(tl.perm, q)
		qt[t] = v
		lo[t], hi[t] = b.tabs[t].bucket(v >> tl.shift)
		if buffered {
			sum[t] = bf.sums[t][v>>bf.shift[t]]
		}
	}
	for t := range np {
		data := b.tabs[t].data
		stride := l.tables[t].stride
		prefetch.Span(data, int(lo[t])*stride, scanEnd(int(hi[t])*stride, stride))
		if buffered && !sumSkips(sum[t], qt[t], k) {
			headH[t] = bf.heads[t][qt[t]>>bf.shift[t]]
		}
	}
	var pl prefetch.List
	for t := range np {
		if headH[t] != 0 {
			head[t] = bf.first(headH[t], t, qt[t], k)
		}
		if e := head[t]; e != 0 {
			bf.prefetchEntry(&pl, e, t)
		}
	}
	pl.Flush()
	for t := range np {
		if lo[t] == hi[t] {
			continue
		}
		tl := &l.tables[t]
		data := b.tabs[t].data
		stride, low := tl.stride, tl.low
		ql := qt[t] & low
		end := int(hi[t])
		for i := int(lo[t]); ; i++ {
			if x := scanBucket(data, i*stride, end*stride, stride, low, ql, k, nil); x < end*stride {
				i = x / stride
			} else {
				break
			}
			v := binary.LittleEndian.Uint64(data[i*stride:]) & low
			dst = ix.baseHit(t, k, i, (qt[t]&^low)|v, qt[t], q, dst)
			if t > 0 {
				// equal entries are one fingerprint, resolved at once
				for i+1 < end && binary.LittleEndian.Uint64(data[(i+1)*stride:])&low == v {
					i++
				}
			}
		}
	}
	if !buffered {
		return dst
	}
	for t := range np {
		for e := head[t]; e != 0; e = bf.next[int(e-1)*S+t] {
			i := int(e - 1)
			diff := bf.fps[i] ^ q
			if d := bits.OnesCount64(diff); d <= k && l.canonical(diff, t, k) && !bitGet(bf.dead, i) {
				dst = append(dst, Hit{ID: bf.ids[i], Distance: d})
			}
		}
	}
	return dst
}

// queryRot is query for a layout whose tables are rotations (l.rot set): the
// same loads in the same order, but every table's key is one rotate, so that
// no loop over segments stands between the query and its loads.
func (ix *Index) queryRot(q uint64, k int, dst []Hit) []Hit {
	l := &ix.lay
	np := l.nprobe[k]
	b, bf := &ix.base, &ix.buf
	tabs, tls, rot := b.tabs[:np], l.tables[:np], l.rot[:np]
	var qtA [maxRotTables]uint64
	var loA, hiA [maxRotTables]uint32
	var sumA [maxRotTables]uint16
	var headA [maxRotTables]int32
	qt, lo, hi, sum, head := qtA[:np], loA[:np], hiA[:np], sumA[:np], headA[:np]
	for t := range qt {
		qt[t] = bits.RotateLeft64(q, rot[t])
	}
	for t := range tabs {
		lo[t], hi[t] = tabs[t].bucket(qt[t] >> tls[t].shift)
	}
	buffered := len(bf.fps) > 0
	if buffered {
		sums, shift := bf.sums[:np], bf.shift[:np]
		for t := range sums {
			sum[t] = sums[t][qt[t]>>shift[t]]
		}
	}
	// prefetch every line of the buckets and the chain heads the summaries
	// do not rule out, and read the heads once table 0's bucket is
	// scanned, prefetching the first entry of every chain to walk, so that
	// all these misses overlap the scans. (Loads in place of the
	// prefetches, as here before, made every query wait for its last line
	// before its first scan: 10 % slower. PREFETCHNTA for the buckets,
	// which are read once, was 2 % faster than PREFETCHT0 on AMD Zen 4 but
	// 22 % slower on an Intel Xeon.)
	for t := range tabs {
		data, stride := tabs[t].data, tls[t].stride
		prefetch.Span(data, int(lo[t])*stride, scanEnd(int(hi[t])*stride, stride))
	}
	var need uint32 // tables whose chain heads are read after table 0's scan
	if buffered {
		heads, shift := bf.heads[:np], bf.shift[:np]
		for t := range heads {
			if !sumSkips(sum[t], qt[t], k) {
				need |= 1 << t
				prefetch.Elem(heads[t], int(qt[t]>>shift[t]))
			}
		}
	}
	readHeads := func() {
		var pl prefetch.List
		for m := need; m != 0; m &= m - 1 {
			t := bits.TrailingZeros32(m)
			e := bf.first(bf.heads[t][qt[t]>>bf.shift[t]], t, qt[t], k)
			head[t] = e
			if e != 0 {
				bf.prefetchEntry(&pl, e, t)
			}
		}
		pl.Flush()
	}
	// The chains are followed in lockstep, one link of every table's chain
	// per step, and a step is taken after each bucket scan from table 1's
	// on, so that their dependent misses overlap each other and the scans.
	// Hits are turned into ids once every bucket is scanned, their loads
	// prefetched when they are found, so that these misses overlap too:
	// table 0's from their positions, the other tables' resolved through
	// table 0 (its bucket and the bucket's ids prefetched whole).
	type pending struct {
		f    uint64
		dist int // its distance, or a bound below it (drop)
		drop uint64
	}
	var pend [8]pending
	npend := 0
	// hits of table 0: positions whose ids are read (prefetched till
	// then) after the scans
	var pos0 [8]uint32 // table 0 positions fit in uint32 (maxIndexEntries)
	var dis0 [8]uint8
	npos0 := 0
	t0 := &tls[0]
	tab0, data0, ids := &tabs[0], tabs[0].data, b.ids
	for t := range tabs {
		stride, low := tls[t].stride, tls[t].low
		ql := qt[t] & low
		start, end := int(lo[t])*stride, int(hi[t])*stride
		data := tabs[t].data[:end+8]
		skip := l.skipMasks(t)
		for x := start; ; x += stride {
			if x = scanBucket(data, x, end, stride, low, ql, k, skip); x >= end {
				break
			}
			v := binary.LittleEndian.Uint64(data[x:]) & low
			diff := bits.RotateLeft64(((qt[t]&^low)|v)^qt[t], -rot[t])
			switch {
			case !l.canonical(diff, t, k):
			case t == 0 && npos0 < len(pos0):
				i := x / stride
				pos0[npos0], dis0[npos0] = uint32(i), uint8(bits.OnesCount64(diff))
				npos0++
				var pl prefetch.List
				prefetch.Add(&pl, ids, i)
				prefetch.Add(&pl, b.dead, i>>6)
				pl.Flush()
			case t > 0 && npend < len(pend):
				// resolved through table 0 after the scans; the
				// loads of its bucket and ids start now
				f := q ^ diff
				if lo, hi := tab0.bucket(f >> t0.shift); lo < hi {
					var pl prefetch.List
					pl.Span(data0, int(lo)*t0.stride, scanEnd(int(hi)*t0.stride, t0.stride))
					for p := int(lo); p < int(hi) && pl.Len() < prefetch.ListSize; p += 8 {
						prefetch.Add(&pl, ids, p)
					}
					prefetch.Add(&pl, ids, int(hi)-1)
					pl.Flush()
				}
				pend[npend] = pending{f, bits.OnesCount64(diff), tls[t].drop}
				npend++
			default:
				dst = ix.baseHit(t, k, x/stride, (qt[t]&^low)|v, qt[t], q, dst)
			}
			if t > 0 {
				// equal entries are one fingerprint, resolved at once
				for x+stride < end && binary.LittleEndian.Uint64(data[x+stride:])&low == v {
					x += stride
				}
			}
		}
		switch {
		case t == 0 && need != 0:
			readHeads()
		case t > 0 && buffered:
			dst = ix.chainStep(head, q, k, dst)
		}
	}
	for buffered {
		var more int32
		dst = ix.chainStep(head, q, k, dst)
		for _, e := range head {
			more |= e
		}
		if more == 0 {
			break
		}
	}
	for j, i := range pos0[:npos0] {
		if !bitGet(b.dead, int(i)) {
			dst = append(dst, Hit{ID: ids[i], Distance: int(dis0[j])})
		}
	}
	for _, p := range pend[:npend] {
		dst = ix.resolve(p.f, p.drop, q, k, p.dist, dst)
	}
	return dst
}

// chainStep checks the buffer entry at the head of each table's chain in
// head and advances it by one link.
func (ix *Index) chainStep(head []int32, q uint64, k int, dst []Hit) []Hit {
	bf := &ix.buf
	S := bf.links
	for t, e := range head {
		if e == 0 {
			continue
		}
		i := int(e - 1)
		head[t] = bf.next[i*S+t]
		diff := bf.fps[i] ^ q
		if d := bits.OnesCount64(diff); d <= k && ix.lay.canonical(diff, t, k) && !bitGet(bf.dead, i) {
			dst = append(dst, Hit{ID: bf.ids[i], Distance: d})
		}
	}
	return dst
}

// queryMulti is query for a multi-probe distance k (qradius[k] > 0): in each
// of the first nprobe[k] tables it looks up every bucket whose directory bits
// are within the radius of the query's, a batch of buckets at a time so that
// their directory loads overlap, and scans each bucket for entries within k
// (k less the bits flipped in the bucket number, for the stored bits). The
// buffer is searched through its hash chains the same way, or scanned when
// it holds few entries for the number of chains a query would follow.
func (ix *Index) queryMulti(q uint64, k int, dst []Hit) []Hit {
	const batch = 64
	l := &ix.lay
	r, np := l.qradius[k], l.nprobe[k]
	b, bf := &ix.base, &ix.buf
	var lo, hi [batch]uint32
	var flip [batch]uint64
	for t := range np {
		tl := &l.tables[t]
		qt := applySegments(tl.perm, q)
		dir, data := b.tabs[t].dir, b.tabs[t].data
		stride, low, shift := tl.stride, tl.low, tl.shift
		qj, ql := qt>>shift, qt&low
		for f, more := uint64(0), true; more; {
			nb := 0
			for ; more && nb < batch; f, more = nextFlip(f, tl.dbits, r) {
				j := qj ^ f
				lo[nb], hi[nb], flip[nb] = dir[j], dir[j+1], f
				nb++
			}
			// prefetch every line of the buckets before scanning any,
			// so that their misses overlap (a list at a time: a call
			// per bucket costs more than it saves when they are cached)
			var pl prefetch.List
			for p := range nb {
				pl.Span(data, int(lo[p])*stride, scanEnd(int(hi[p])*stride, stride))
				if pl.Len() > prefetch.ListSize-4 {
					pl.Flush()
				}
			}
			pl.Flush()
			for p := range nb {
				kp := k - bits.OnesCount64(flip[p])
				top := (qj ^ flip[p]) << shift
				end := int(hi[p])
				for i := int(lo[p]); ; i++ {
					if x := scanBucket(data, i*stride, end*stride, stride, low, ql, kp, nil); x < end*stride {
						i = x / stride
					} else {
						break
					}
					v := binary.LittleEndian.Uint64(data[i*stride:]) & low
					dst = ix.baseHit(t, k, i, top|v, qt, q, dst)
					if t > 0 {
						for i+1 < end && binary.LittleEndian.Uint64(data[(i+1)*stride:])&low == v {
							i++
						}
					}
				}
			}
		}
	}
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
	S := bf.links
	var head [batch]int32
	var keys, flips [batch]uint64
	for t := range np {
		shift := bf.shift[t]
		qt := applySegments(l.tables[t].perm, q)
		qk := qt >> shift
		heads := bf.heads[t]
		for f, more := uint64(0), true; more; {
			// a batch of chain heads prefetched, then read, and their
			// first entries prefetched, before any chain is walked
			nb := 0
			var pl prefetch.List
			for ; more && nb < batch; f, more = nextFlip(f, 64-int(shift), r) {
				keys[nb], flips[nb] = qk^f, f
				prefetch.Add(&pl, heads, int(qk^f))
				if pl.Len() == prefetch.ListSize {
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
				for ; e != 0; e = bf.next[int(e-1)*S+t] {
					i := int(e - 1)
					diff := bf.fps[i] ^ q
					if d := bits.OnesCount64(diff); d <= k && l.canonical(diff, t, k) && !bitGet(bf.dead, i) {
						dst = append(dst, Hit{ID: bf.ids[i], Distance: d})
					}
				}
			}
		}
	}
	return dst
}

// bufferScanFactor: a multi-probe query scans the buffer instead of
// following its chains when it holds at most this many entries per chain
// the query would look up. (A variable so that tests can force the chains.)
var bufferScanFactor = 4

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
