package hamming

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// QueryBatch answers Query(fps[i], k) for every i, faster than a loop of
// Query calls: it appends the hits of each query to dst in turn, appends to
// ends the length of dst after each query's hits, and returns both. The
// hits of fps[i] are dst[ends[i-1]:ends[i]] (from the length dst had on
// entry, for i = 0). A k outside 0..MaxDistance returns dst, ends and an
// error wrapping ErrInvalidOption. QueryBatch does not allocate when
// dst and ends have room.
//
// A query to a large index spends most of its time waiting for memory: a
// directory entry, then the buckets it points to. QueryBatch runs the
// queries as a pipeline: while it scans the buckets of one query, the
// directory entries and buckets of the next few are already on their way
// (prefetched), so that the waits overlap. It takes the read lock for a few
// hundred queries at a time, so writers are not held up by a long batch;
// each query sees the index as it was at some point during the call.
func (ix *Index) QueryBatch(fps []uint64, k int, dst []Hit, ends []int) ([]Hit, []int, error) {
	if k < 0 || k > ix.lay.k {
		return dst, ends, fmt.Errorf("hamming: Index.QueryBatch: k = %d not in 0..%d: %w", k, ix.lay.k, ErrInvalidOption)
	}
	for len(fps) > 0 {
		chunk := fps[:min(len(fps), batchChunk)]
		fps = fps[len(chunk):]
		ix.mu.RLock()
		dst, ends = ix.queryBatch(chunk, k, dst, ends)
		ix.mu.RUnlock()
	}
	return dst, ends, nil
}

const (
	// batchChunk is the number of queries QueryBatch answers under one
	// read lock.
	batchChunk = 256
	// batchDepth is the number of queries between two stages of a query
	// in the pipeline: a load prefetched by one stage is used by the next.
	batchDepth = 4
	// batchStages is the number of stages of a query (see queryBatch).
	batchStages = 5
	// batchHits bounds the hits a query carries through the pipeline; a
	// query with more is answered again by query when it leaves it.
	batchHits = 8
	// batchTables bounds the tables of a layout QueryBatch pipelines, so
	// that the pipeline's state stays well within the L1 cache (about
	// 11 KB); layouts with more tables are queried one query at a time.
	batchTables = maxRotTables
)

// batchQuery is one query in flight in queryBatch's pipeline.
type batchQuery struct {
	q      uint64
	qt     [batchTables]uint64
	lo, hi [batchTables]uint32
	head   [batchTables]int32 // buffer chain entry to go on from (0: none)
	near   uint32             // tables whose head entry's tag is within k
	rest   uint32             // tables whose chain may hold hits after it

	over bool // more hits than the arrays hold: answer with query
	// hits of table 0 and resolved ones: positions in table 0
	npos int
	pos  [batchHits]uint32
	pdis [batchHits]uint8
	// hits of other tables, to be resolved through table 0: fingerprint,
	// distance (or a bound below it, when the table leaves bits out) and
	// table
	npend int
	pend  [batchHits]uint64
	ndis  [batchHits]uint8
	ntab  [batchHits]uint8
	plo   [batchHits]uint32
	phi   [batchHits]uint32
	// hits in the buffer
	nbuf int
	buf  [batchHits]Hit
}

// queryBatch runs the queries through a pipeline of stages, each stage
// batchDepth queries behind the one before:
//
//	start    permute, prefetch directory entries and chain heads
//	load     read them, prefetch buckets and first chain entries
//	scan     check the first chain entries, prefetch the second ones;
//	         scan buckets: table 0 hits become positions, other tables'
//	         hits fingerprints to resolve (prefetch table 0's directory
//	         entries for them)
//	resolve  check the chains' next entries, prefetch the ones after;
//	         read those directory entries, prefetch their table 0 buckets
//	locate   the same chain step; find the positions in those buckets,
//	         prefetch ids and tombstones of every position
//	emit     (same step as the next query's start) walk what is left of
//	         the chains (longer than four entries), append the hits
func (ix *Index) queryBatch(fps []uint64, k int, dst []Hit, ends []int) ([]Hit, []int) {
	if ix.lay.qradius[k] > 0 || ix.lay.nprobe[k] > batchTables {
		// multi-probe queries issue dozens of independent bucket loads
		// each; they gain little from a pipeline
		for _, fp := range fps {
			dst = ix.query(uint64(fp), k, dst)
			ends = append(ends, len(dst))
		}
		return dst, ends
	}
	var ring [batchStages*batchDepth + 1]batchQuery
	// one list for every stage (each flushes it), so that it is not
	// zeroed at every stage of every query
	var pl prefetchList
	n := len(fps)
	const D = batchDepth
	for i := 0; i < n+batchStages*D; i++ {
		if j := i - batchStages*D; j >= 0 {
			dst = ix.batchEmit(&ring[j%len(ring)], k, dst, &pl)
			ends = append(ends, len(dst))
		}
		if i < n {
			ix.batchStart(&ring[i%len(ring)], uint64(fps[i]), k, &pl)
		}
		if j := i - D; j >= 0 && j < n {
			ix.batchLoad(&ring[j%len(ring)], k, &pl)
		}
		if j := i - 2*D; j >= 0 && j < n {
			ix.batchScan(&ring[j%len(ring)], k, &pl)
		}
		if j := i - 3*D; j >= 0 && j < n {
			ix.batchResolve(&ring[j%len(ring)], k, &pl)
		}
		if j := i - 4*D; j >= 0 && j < n {
			ix.batchLocate(&ring[j%len(ring)], k, &pl)
		}
	}
	return dst, ends
}

// batchStart permutes the query for every table and prefetches its
// directory entries and buffer chain heads.
func (ix *Index) batchStart(bq *batchQuery, q uint64, k int, pl *prefetchList) {
	l := &ix.lay
	b, bf := &ix.base, &ix.buf
	buffered := len(bf.fps) > 0
	bq.q = q
	bq.over = false
	bq.npos, bq.npend, bq.nbuf = 0, 0, 0
	bq.near, bq.rest = 0, 0
	for t := range l.nprobe[k] {
		v := l.permute(t, q)
		bq.qt[t] = v
		b.tabs[t].prefetchBucket(pl, v>>l.tables[t].shift)
		if buffered {
			prefetchTo(pl, bf.heads[t], int(v>>bf.shift[t]))
		}
	}
	pl.Flush()
}

// batchLoad reads the query's directory entries and chain heads (by now in
// cache) and prefetches its buckets and first chain entries.
func (ix *Index) batchLoad(bq *batchQuery, k int, pl *prefetchList) {
	l := &ix.lay
	b, bf := &ix.base, &ix.buf
	buffered := len(bf.fps) > 0
	for t := range l.nprobe[k] {
		tl := &l.tables[t]
		v := bq.qt[t]
		lo, hi := b.tabs[t].bucket(v >> tl.shift)
		bq.lo[t], bq.hi[t] = lo, hi
		if lo < hi {
			pl.Span(b.tabs[t].data, int(lo)*tl.stride, scanEnd(int(hi)*tl.stride, tl.stride))
		}
		bq.head[t] = 0
		if buffered {
			e, near, rest := bf.scope(bf.heads[t][v>>bf.shift[t]], v, k)
			if near {
				bq.head[t] = e
				bq.near |= 1 << t
				prefetchTo(pl, bf.fps, int(e-1))
			}
			if rest {
				bq.head[t] = e
				bq.rest |= 1 << t
				prefetchTo(pl, bf.next, int(e-1)*bf.links+t)
			}
		}
	}
	pl.Flush()
}

// batchScan checks the first entries of the query's buffer chains and
// prefetches the second ones, and scans its buckets: hits of table 0 become
// positions, hits of the other tables fingerprints to resolve, whose table 0
// directory entries it prefetches.
func (ix *Index) batchScan(bq *batchQuery, k int, pl *prefetchList) {
	l := &ix.lay
	b, bf := &ix.base, &ix.buf
	q := bq.q
	np := l.nprobe[k]
	t0 := &l.tables[0]
	if bq.near|bq.rest != 0 {
		for m := bq.near | bq.rest; m != 0; m &= m - 1 {
			t := bits.TrailingZeros32(m)
			i := int(bq.head[t] - 1)
			if bq.near>>t&1 != 0 {
				bq.bufHit(bf, l, i, t, q, k)
			}
			bq.head[t] = 0
			if bq.rest>>t&1 != 0 {
				bq.advance(bf, pl, t, i)
			}
		}
		pl.Flush()
	}
	for t := range np {
		tl := &l.tables[t]
		qt := bq.qt[t]
		stride, low := tl.stride, tl.low
		start, end := int(bq.lo[t])*stride, int(bq.hi[t])*stride
		data := b.tabs[t].data
		skip := l.skipMasks(t)
		for x := start; ; x += stride {
			if x = scanBucket(data, x, end, stride, low, qt, k, skip); x >= end {
				break
			}
			v := binary.LittleEndian.Uint64(data[x:]) & low
			diff := l.unpermute(t, ((qt&^low)|v)^qt)
			if !l.canonical(diff, t, k) {
				continue
			}
			dist := uint8(bits.OnesCount64(diff))
			switch {
			case t == 0 && bq.npos < batchHits:
				bq.pos[bq.npos], bq.pdis[bq.npos] = uint32(x/stride), dist
				bq.npos++
			case t > 0 && bq.npend < batchHits:
				f := q ^ diff
				bq.pend[bq.npend], bq.ndis[bq.npend], bq.ntab[bq.npend] = f, dist, uint8(t)
				bq.npend++
				b.tabs[0].prefetchBucket(pl, f>>t0.shift)
				pl.Flush()
				// equal entries are one fingerprint, resolved at once
				for x+stride < end && binary.LittleEndian.Uint64(data[x+stride:])&low == v {
					x += stride
				}
			default:
				bq.over = true
				return
			}
		}
	}
}

// advance moves the walk of table t's buffer chain past entry i and
// prefetches the next entry, or ends the walk.
func (bq *batchQuery) advance(bf *buffer, pl *prefetchList, t, i int) {
	e := bf.next[i*bf.links+t]
	bq.head[t] = e
	if e == 0 {
		bq.rest &^= 1 << t
		return
	}
	bf.prefetchEntry(pl, e, t)
}

// chainStep checks the entry each walked buffer chain is at (prefetched by
// the stage before) and moves on by one link, prefetching the next, so that
// a long chain costs a query one miss per stage rather than a run of
// dependent misses in one.
func (bq *batchQuery) chainStep(bf *buffer, l *layout, k int, pl *prefetchList) {
	if bq.rest == 0 {
		return
	}
	for m := bq.rest; m != 0 && !bq.over; m &= m - 1 {
		t := bits.TrailingZeros32(m)
		i := int(bq.head[t] - 1)
		bq.bufHit(bf, l, i, t, bq.q, k)
		bq.advance(bf, pl, t, i)
	}
	pl.Flush()
}

// bufHit records buffer entry i as a hit of table t if it is one.
func (bq *batchQuery) bufHit(bf *buffer, l *layout, i, t int, q uint64, k int) {
	h, ok := bf.hit(l, i, t, q, k)
	switch {
	case !ok:
	case bq.nbuf == batchHits:
		bq.over = true
	default:
		bq.buf[bq.nbuf] = h
		bq.nbuf++
	}
}

// batchResolve takes a step along the query's buffer chains (chainStep),
// reads table 0's directory entries for the fingerprints to resolve and
// prefetches their buckets.
func (ix *Index) batchResolve(bq *batchQuery, k int, pl *prefetchList) {
	if bq.over {
		return
	}
	l := &ix.lay
	bq.chainStep(&ix.buf, l, k, pl)
	if bq.over {
		return
	}
	t0 := &l.tables[0]
	tab := &ix.base.tabs[0]
	for p, f := range bq.pend[:bq.npend] {
		lo, hi := tab.bucket(f >> t0.shift)
		bq.plo[p], bq.phi[p] = lo, hi
		prefetchSpan(tab.data, int(lo)*t0.stride, scanEnd(int(hi)*t0.stride, t0.stride))
	}
}

// batchLocate takes a step along the query's buffer chains, finds the
// positions of the fingerprints to resolve in their table 0 buckets and
// prefetches the ids and tombstones of every position.
func (ix *Index) batchLocate(bq *batchQuery, k int, pl *prefetchList) {
	if bq.over {
		return
	}
	bq.chainStep(&ix.buf, &ix.lay, k, pl)
	if bq.over {
		return
	}
	l := &ix.lay
	t0 := &l.tables[0]
	b := &ix.base
	data := b.tabs[0].data
	for p, f := range bq.pend[:bq.npend] {
		drop := l.tables[bq.ntab[p]].drop
		for i := int(bq.plo[p]); i < int(bq.phi[p]); i++ {
			v := binary.LittleEndian.Uint64(data[i*t0.stride:])
			d, ok := t0.standsFor(v, f, drop, bq.q, k, int(bq.ndis[p]))
			if !ok {
				continue
			}
			dist := uint8(d)
			if bq.npos == batchHits {
				bq.over = true
				return
			}
			bq.pos[bq.npos], bq.pdis[bq.npos] = uint32(i), dist
			bq.npos++
		}
	}
	for _, i := range bq.pos[:bq.npos] {
		prefetchElem(b.ids, int(i))
		prefetchElem(b.dead, int(i>>6))
	}
}

// batchEmit appends the query's hits to dst.
func (ix *Index) batchEmit(bq *batchQuery, k int, dst []Hit, pl *prefetchList) []Hit {
	// chains longer than the pipeline is deep: walk what is left, every
	// chain a link at a time
	for bq.rest != 0 && !bq.over {
		bq.chainStep(&ix.buf, &ix.lay, k, pl)
	}
	if bq.over {
		return ix.query(bq.q, k, dst)
	}
	b := &ix.base
	for p, i := range bq.pos[:bq.npos] {
		if !bitGet(b.dead, int(i)) {
			dst = append(dst, Hit{ID: b.ids[i], Distance: int(bq.pdis[p])})
		}
	}
	return append(dst, bq.buf[:bq.nbuf]...)
}

// AddBatch keeps fps[i] under ids[i] for every i, in order, faster than a
// loop of Add calls: while it adds one entry, the id lookups and chain heads
// of the next few are already on their way (prefetched). It stops at the
// first id already kept (by the index or earlier in the batch) and returns
// an error wrapping ErrDuplicateID that names its position; the
// entries before it stay added. ids and fps must have the same length. It
// takes the write lock for a few hundred entries at a time, so that queries
// are not held up by a long batch.
func (ix *Index) AddBatch(ids []uint64, fps []uint64) error {
	if len(ids) != len(fps) {
		return fmt.Errorf("hamming: Index.AddBatch: %d ids for %d fingerprints: %w", len(ids), len(fps), ErrInvalidOption)
	}
	for from := 0; from < len(ids); from += batchChunk {
		to := min(from+batchChunk, len(ids))
		ix.mu.Lock()
		err := ix.addBatch(ids[from:to], fps[from:to], from)
		ix.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// addBatch adds the entries in order, each after prefetching the id lookup
// directory entry and chain heads of the entry 2*batchDepth ahead and the
// id lookup bucket of the entry batchDepth ahead. from is the position of
// ids[0] in the caller's batch, for errors.
func (ix *Index) addBatch(ids []uint64, fps []uint64, from int) error {
	const D = batchDepth
	var pl prefetchList // flushed at every entry
	for i, id := range ids {
		if j := i + 2*D; j < len(ids) {
			ix.prefetchID(&pl, ids[j])
			ix.buf.prefetchHeadsTo(&pl, &ix.lay, uint64(fps[j]))
		}
		if j := i + D; j < len(ids) {
			ix.prefetchIDBucket(&pl, ids[j])
		}
		pl.Flush()
		if _, _, ok := ix.find(id); ok {
			return fmt.Errorf("hamming: Index.AddBatch: id %d at %d: %w", id, from+i, ErrDuplicateID)
		}
		if ix.live >= maxIndexEntries {
			return fmt.Errorf("hamming: Index.AddBatch: id %d at %d: index holds the maximum of %d entries", id, from+i, maxIndexEntries)
		}
		ix.buf.add(&ix.lay, id, uint64(fps[i]))
		ix.live++
		ix.maybeMerge()
	}
	return nil
}

// prefetchID adds to pl the id lookup's directory entry and the buffer's id
// chain head for id.
func (ix *Index) prefetchID(pl *prefetchList, id uint64) {
	h := mix64(id)
	b, bf := &ix.base, &ix.buf
	prefetchTo(pl, b.idDir, int(h>>(64-b.idBits)))
	prefetchTo(pl, bf.idHeads, int(h>>bf.shift[len(bf.heads)]))
}

// prefetchIDBucket adds to pl the id lookup bucket of id (its directory
// entry should be in cache) and the first buffer entry of its id chain.
func (ix *Index) prefetchIDBucket(pl *prefetchList, id uint64) {
	h := mix64(id)
	b, bf := &ix.base, &ix.buf
	j := h >> (64 - b.idBits)
	if lo, hi := int(b.idDir[j]), int(b.idDir[j+1]); lo < hi {
		prefetchTo(pl, b.idPos, lo)
		prefetchTo(pl, b.idPos, hi-1)
	}
	if e := bf.idHeads[h>>bf.shift[len(bf.heads)]]; e != 0 {
		prefetchTo(pl, bf.ids, int(e-1))
	}
}
