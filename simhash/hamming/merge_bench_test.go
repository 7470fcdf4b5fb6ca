package hamming

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// BenchmarkIndexMerge1M times Index.merge at the default k = 3 layout: an
// index of 1M built by Add (buildBenchIndex), its buffer then filled with
// random new fingerprints up to one entry short of the merge threshold (a
// base of 934,796 entries plus 116,848 buffered; this merge is also one
// where the id lookup gains a bucket bit, as about one merge in six does).
// Each iteration restores that state from a copy, untimed, and times one
// merge; ns/entry is per buffered entry.
//
//	go test -run='^$' -bench=IndexMerge1M -benchtime=10x -cpu=1,2 -count=8 ./simhash/
//
// Medians of 8 runs alternated with the previous merge (lowerBound and a
// copy per add, id lookup rebuilt from the ids), docs/BENCHMARKS.md:
//
//	              before               after
//	-cpu=1    41.9 ms  358 ns/entry    29.4 ms  252 ns/entry
//	-cpu=2    50.4 ms  431 ns/entry    20.3 ms  174 ns/entry
//
// The single-CPU time is mostly mispredicted branches (~12 ns each here):
// the end of each add's scan in each table, and of the per-bucket loops
// of the id lookup's update.
func BenchmarkIndexMerge1M(b *testing.B) {
	ix := benchIndex(b)
	r := rand.New(rand.NewPCG(11, 12))
	id := uint64(benchSize)
	for len(ix.buf.fps)+ix.base.ndead+1 < ix.buf.limit {
		if err := ix.Add(id, uint64(r.Uint64())); err != nil {
			b.Fatal(err)
		}
		id++
	}
	snap := cloneIndexState(ix)
	m := len(ix.buf.fps)
	b.Logf("base %d entries, %d buffered", ix.base.n, m)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		restoreIndexState(ix, snap)
		runtime.GC() // the garbage of the copies is not the merge's
		b.StartTimer()
		ix.merge()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m), "ns/entry")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/merge")
}

// indexState is a deep copy of an Index's base and buffer.
type indexState struct {
	base base
	buf  buffer
	live int
}

func cloneBase(b base) base {
	c := b
	c.tabs = make([]table, len(b.tabs))
	for t, tb := range b.tabs {
		c.tabs[t] = table{data: slices.Clone(tb.data), dir: slices.Clone(tb.dir), cdir: slices.Clone(tb.cdir), cbase: slices.Clone(tb.cbase)}
	}
	c.ids, c.dead = slices.Clone(b.ids), slices.Clone(b.dead)
	c.idDir, c.idPos = slices.Clone(b.idDir), slices.Clone(b.idPos)
	return c
}

func cloneBuffer(bf buffer) buffer {
	c := bf
	c.fps = append(make([]uint64, 0, cap(bf.fps)), bf.fps...)
	c.ids = append(make([]uint64, 0, cap(bf.ids)), bf.ids...)
	c.next = append(make([]int32, 0, cap(bf.next)), bf.next...)
	c.dead = slices.Clone(bf.dead)
	c.heads = make([][]uint64, len(bf.heads))
	c.sums = make([][]uint16, len(bf.sums))
	for t, h := range bf.heads {
		c.heads[t] = slices.Clone(h)
		c.sums[t] = slices.Clone(bf.sums[t])
	}
	c.idHeads = slices.Clone(bf.idHeads)
	c.shift = slices.Clone(bf.shift)
	c.probes = slices.Clone(bf.probes)
	return c
}

func cloneIndexState(ix *Index) indexState {
	return indexState{base: cloneBase(ix.base), buf: cloneBuffer(ix.buf), live: ix.live}
}

// restoreIndexState gives ix its own copy of s.
func restoreIndexState(ix *Index, s indexState) {
	ix.base = base{} // let the previous copy go before making the next
	ix.buf = buffer{}
	ix.base, ix.buf, ix.live = cloneBase(s.base), cloneBuffer(s.buf), s.live
}
