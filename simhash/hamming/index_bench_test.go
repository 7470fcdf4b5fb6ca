package hamming

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// The benchmarks run at 1,000,000 random codes and k = 3:
//
//	go test -run='^$' -bench='IndexQuery1M|IndexInsert1M|IndexInsertBatch1M|LinearScan1M' -benchmem -cpu=1 -count=6 ./simhash/hamming/
//
// Plan at 1M, k <= 3: 4 blocks of 16 bits, 4 tables (C(4,1), 1 exact
// block), 4 probes/query, 16-bit prefix, 16-bit directory, tables 1 and 2
// storing 32 bits (trimTables); 41.6 B/entry (estimate, buffer at its
// largest; 39.25 measured), 15.3 candidates/probe, 61/query.
//
// What a query costs: a single Query waits for two rounds of dependent cache
// misses (directory entries, mostly cached, then buckets, prefetched so that
// each table's scan starts when its own lines arrive) plus about 100-150 ns
// of work; a near one also for the ids of its hits, read after the scans
// (prefetched as each hit is found), and for a hit of table 1, 2 or 3 for
// its table 0 bucket. QueryBatch overlaps the misses of consecutive queries
// and is then bound by how many lines the memory system delivers: about 17
// random lines per query (four directory lines, four buffer chain heads,
// eight or nine bucket lines; see BenchmarkMemory).
//
// The query benchmarks measure the index in one state: the buffer as the
// build of a million adds leaves it (65,204 of 116,849 entries); a
// different merge threshold moves them by ending the build elsewhere in the
// merge cycle. IndexInsert1M, which passes through every state, is the
// measure of a change to the buffer or merges. docs/BENCHMARKS.md has the
// measurements on two machines.
const benchSize = 1_000_000

var benchData = sync.OnceValue(func() []uint64 {
	r := rand.New(rand.NewPCG(2007, 3))
	fps := make([]uint64, benchSize)
	for i := range fps {
		fps[i] = uint64(r.Uint64())
	}
	return fps
})

// buildBenchIndex builds an index of the benchmark fingerprints by Add, so
// that it is in the state a crawler sees: a merged base plus a partly full
// buffer.
func buildBenchIndex(k int) (*Index, error) {
	ix, err := New(Options{MaxDistance: k, ExpectedSize: benchSize})
	if err != nil {
		return nil, err
	}
	for i, fp := range benchData() {
		if err := ix.Add(uint64(i), fp); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// benchIndex returns a fresh k = 3 benchmark index.
func benchIndex(b *testing.B) *Index {
	ix, err := buildBenchIndex(3)
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

var (
	sharedBenchIndex   = sync.OnceValues(func() (*Index, error) { return buildBenchIndex(3) })
	sharedBenchIndexK8 = sync.OnceValues(func() (*Index, error) { return buildBenchIndex(8) })
)

// queries returns 1<<16 queries: random ones, or stored fingerprints with 1
// to 3 bits flipped.
func benchQueries(near bool) []uint64 {
	r := rand.New(rand.NewPCG(1, uint64(len("near"))))
	fps := benchData()
	qs := make([]uint64, 1<<16)
	for i := range qs {
		if !near {
			qs[i] = uint64(r.Uint64())
			continue
		}
		q := fps[r.IntN(len(fps))]
		for range 1 + r.IntN(3) {
			q ^= 1 << uint(r.IntN(64))
		}
		qs[i] = q
	}
	return qs
}

func BenchmarkIndexQuery1M(b *testing.B) {
	ix, err := sharedBenchIndex()
	if err != nil {
		b.Fatal(err)
	}
	for _, near := range []bool{false, true} {
		name := "random"
		if near {
			name = "near"
		}
		b.Run(name, func(b *testing.B) {
			qs := benchQueries(near)
			dst := make([]Hit, 0, 64)
			hits := 0
			i := 0
			for b.Loop() {
				dst, _ = ix.Query(qs[i&(len(qs)-1)], 3, dst[:0])
				hits += len(dst)
				i++
			}
			if near && hits < b.N {
				b.Fatalf("near queries found %d hits in %d queries", hits, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
			b.ReportMetric(float64(ix.MemoryUsage())/float64(ix.Len()), "B/entry")
		})
		// the same queries through QueryBatch, 256 at a time (one op is
		// one query)
		b.Run(name+"-batch", func(b *testing.B) {
			qs := benchQueries(near)
			const batch = 256
			dst := make([]Hit, 0, 4*batch)
			ends := make([]int, 0, batch)
			hits := 0
			i := 0
			for b.Loop() {
				if i%batch == 0 {
					o := i & (len(qs) - 1)
					dst, ends, _ = ix.QueryBatch(qs[o:o+batch], 3, dst[:0], ends[:0])
					hits += len(dst)
				}
				i++
			}
			if near && hits < b.N-batch {
				b.Fatalf("near queries found %d hits in %d queries", hits, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
			b.ReportMetric(float64(ix.MemoryUsage())/float64(ix.Len()), "B/entry")
		})
	}
}

// BenchmarkIndexInsert1M adds new fingerprints to an index of 1M, each
// followed by one random query.
func BenchmarkIndexInsert1M(b *testing.B) {
	ix := benchIndex(b)
	r := rand.New(rand.NewPCG(5, 6))
	id := uint64(benchSize)
	var dst []Hit
	for b.Loop() {
		if err := ix.Add(id, uint64(r.Uint64())); err != nil {
			b.Fatal(err)
		}
		id++
		dst, _ = ix.Query(uint64(r.Uint64()), 3, dst[:0])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
	b.ReportMetric(float64(ix.MemoryUsage())/float64(ix.Len()), "B/entry")
}

// BenchmarkIndexInsertBatch1M is BenchmarkIndexInsert1M through the batch
// calls: AddBatch of 256 new fingerprints, then QueryBatch of 256 random
// queries (one op is one insert and one query).
func BenchmarkIndexInsertBatch1M(b *testing.B) {
	const batch = 256
	ix := benchIndex(b)
	r := rand.New(rand.NewPCG(5, 6))
	id := uint64(benchSize)
	ids := make([]uint64, batch)
	fps := make([]uint64, batch)
	qs := make([]uint64, batch)
	var dst []Hit
	var ends []int
	i := 0
	for b.Loop() {
		if i%batch == 0 {
			for j := range batch {
				ids[j], fps[j], qs[j] = id, uint64(r.Uint64()), uint64(r.Uint64())
				id++
			}
			if err := ix.AddBatch(ids, fps); err != nil {
				b.Fatal(err)
			}
			dst, ends, _ = ix.QueryBatch(qs, 3, dst[:0], ends[:0])
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
	b.ReportMetric(float64(ix.MemoryUsage())/float64(ix.Len()), "B/entry")
}

// BenchmarkLinearScan1M is the baseline: every fingerprint compared with
// the query (the paper's approach: Kumar and Govindarajulu compare with
// every kept fingerprint).
func BenchmarkLinearScan1M(b *testing.B) { benchLinearScan(b, 3) }

// benchLinearScan compares every benchmark fingerprint with random queries
// at distance k and reports queries/s.
func benchLinearScan(b *testing.B, k int) {
	fps := benchData()
	qs := benchQueries(false)
	var hits []int
	i := 0
	for b.Loop() {
		q := qs[i&(len(qs)-1)]
		i++
		hits = hits[:0]
		for j, f := range fps {
			if Distance(f, q) <= k {
				hits = append(hits, j)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkIndexQueryK8 queries an index of 1M random codes at k = 8 (the
// simhash Detector's default T_B): random queries, queries 1 to 8 bits from
// a stored code, and the linear scan beside them.
//
//	go test -run='^$' -bench=IndexQueryK8 -benchtime=2s -cpu=1 -count=3 ./simhash/hamming/
//
// The layout is multi-probe: 3 blocks of 21-22 bits, one table per block,
// probed within radius 2 (411 probes/query), about 38 B/entry; an exact
// layout would need 9 blocks of 7-8 bits and 9 tables, over 85 B/entry and
// about 7 times slower. docs/BENCHMARKS.md has the measurements.
func BenchmarkIndexQueryK8(b *testing.B) {
	const k = 8
	ix, err := sharedBenchIndexK8()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("plan: %v", ix.Plan())
	for _, name := range []string{"random", "near"} {
		b.Run(name, func(b *testing.B) {
			qs := benchQueries(false)
			if name == "near" {
				r := rand.New(rand.NewPCG(8, 8))
				fps := benchData()
				for i := range qs {
					q := fps[r.IntN(len(fps))]
					for range 1 + r.IntN(k) {
						q ^= 1 << uint(r.IntN(64))
					}
					qs[i] = q
				}
			}
			dst := make([]Hit, 0, 64)
			hits := 0
			i := 0
			for b.Loop() {
				dst, _ = ix.Query(qs[i&(len(qs)-1)], k, dst[:0])
				hits += len(dst)
				i++
			}
			if name == "near" && hits < b.N {
				b.Fatalf("near queries found %d hits in %d queries", hits, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
			b.ReportMetric(float64(ix.MemoryUsage())/float64(ix.Len()), "B/entry")
		})
	}
	b.Run("scan", func(b *testing.B) { benchLinearScan(b, k) })
}
