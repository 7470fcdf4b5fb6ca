package hamming

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// The benchmarks run at 1,000,000 random fingerprints and k = 3:
//
//	go test -run='^$' -bench='IndexQuery1M|IndexInsert1M|IndexInsertBatch1M|LinearScan1M' -benchmem -cpu=1 -count=6 ./simhash/
//
// Plan at 1M, k <= 3: 4 blocks of 16 bits, 4 tables (C(4,1), 1 exact
// block), 4 probes/query, 16-bit prefix, 16-bit directory, tables 1 and 2
// storing 32 bits (trimTables); 41.6 B/entry (estimate, buffer at its
// largest), 15.3 candidates/probe, 61/query. Medians of 8 (benchstat),
// alternating with the binary of the session's start (7c964ff) on a shared
// 2-core AMD EPYC VM, Go 1.26.8, GOAMD64=v1 (p = 0.000 but where noted):
//
//	                            7c964ff     now
//	IndexQuery1M/random         2.71 M/s    3.38 M/s   (369.6 -> 296.1 ns, -19.9 %)
//	IndexQuery1M/random-batch   4.48 M/s    4.98 M/s   (223.3 -> 200.8 ns, -10.1 %)
//	IndexQuery1M/near           1.49 M/s    2.26 M/s   (673.4 -> 443.1 ns, -34.2 %)
//	IndexQuery1M/near-batch     2.92 M/s    3.14 M/s   (342.8 -> 318.5 ns, -7.1 %)
//	IndexInsert1M (+1 query)    937 k/s     1.03 M/s   (1067.5 -> 972.7 ns, -8.9 %, p=0.001)
//	IndexInsertBatch1M          1.41 M/s    1.58 M/s   (708.1 -> 634.9 ns, -10.3 %, p=0.001)
//	B/entry (measured)          42.99       39.25
//	LinearScan1M                            2,018-2,068/s (same hour, 3 runs)
//	IndexMerge1M                            19.0-19.5 ms  (162-167 ns per buffered entry)
//
// The same code runs up to 1.5 times slower on busier days (the session
// before measured 7c964ff at 1.65 M/s random, 3.12 M/s random-batch); only
// the ratios of one run carry over. A query is about 1,600 times the linear
// scan, a batched one about 2,400 times. What a query costs: a single
// Query waits for two rounds of dependent cache misses (directory entries,
// mostly cached, then buckets, prefetched so that each table's scan starts
// when its own lines arrive; a miss costs 160-180 ns there) plus ~100 ns of
// work; a near one also for the ids of its hits, read after the scans
// (prefetched as each hit is found), and for a hit of table 1, 2 or 3 for
// its table 0 bucket: a third round. QueryBatch overlaps the misses of
// consecutive queries and is then bound by how many lines the memory system
// delivers: about 17 random lines per query (four directory lines, four
// buffer chain heads, eight or nine bucket lines), one per ~12 ns on that
// machine (internal/prefetch BenchmarkMemory). The insert buffer (65,204
// entries in this state) costs about 100 ns of a batched query; its chains
// are walked one link per pipeline stage.
//
// On an Intel Xeon (Sapphire Rapids class, model 207) 2-core KVM VM, Go
// 1.26.8, medians of 8 alternating with the binary of that session's start
// (97568cc), after single queries' buckets were prefetched with PREFETCHT0
// rather than PREFETCHNTA, Add prefetched the buffer lines it appends to,
// and scans passed over the entries an earlier table reports (p = 0.000
// but where noted):
//
//	                            97568cc     now
//	IndexQuery1M/random         2.67 M/s    3.29 M/s   (374.2 -> 304.2 ns, -18.7 %)
//	IndexQuery1M/random-batch   3.71 M/s    3.63 M/s   (~, p=0.195)
//	IndexQuery1M/near           1.86 M/s    2.13 M/s   (538.9 -> 469.6 ns, -12.9 %)
//	IndexQuery1M/near-batch     2.28 M/s    2.33 M/s   (~, p=0.083; -3.7 %, p=0.000, in 10 runs
//	                                                    of the scan change alone)
//	IndexInsert1M (+1 query)    884 k/s     977 k/s    (1.131 -> 1.024 us, -9.5 %, p=0.005)
//	IndexInsertBatch1M          1.06 M/s    1.10 M/s   (~, p=0.130)
//	B/entry (measured)          39.25       39.25
//	LinearScan1M                1,489/s     1,234/s    (the same code, placed differently in the binary)
//	IndexMerge1M                            33.8-34.0 ms at -cpu=1, 20.8-21.3 ms at -cpu=2
//
// There a miss costs less (internal/prefetch BenchmarkMemory: chase 139 ns,
// prefetched 8 ns per line) and the work more: the same queries answered
// from cache (64 of them repeated) take 148 ns (random) and 220 ns (near)
// through either call, so that QueryBatch gains little over Query. The
// insert buffer (65,204 entries in this state) is the largest single cost:
// with it ignored (a measurement, not a correct query) random queries took
// 158-163 ns single against 293-310 ns in the same runs (216 ns reading
// only the chain summaries: they miss the cache too), and 184-187 ns
// batched against 282-285 ns. Its chain heads and summaries are lines of
// their own; keeping a chain's head beside its base bucket, whose lines the
// query fetches anyway, is the next lever. A single near Query cannot
// reach 3 M/s (333 ns) there: besides its bucket round it waits for a
// second round of misses, its hits' ids (kept once, in table 0 order, or
// found through table 0's bucket for a hit of tables 1 to 3; ids beside
// every table would cost 24 B/entry more). Two rounds of 139 ns are 278
// ns, the four bucket scans alone about 50 ns (BenchmarkScanBucket), and
// the whole work, from cache, 220 ns: about 500 ns in all; it measures
// 470 ns.
//
// The query benchmarks measure the index in one state: the buffer as the
// build of a million adds leaves it. With merges at 1/6 of the base rather
// than 1/8 the build ends just after a merge, and the same query code
// answers 4.3 M random and 2.5 M near queries/s (single; 43.5 B/entry, the
// buffer being allocated larger), while IndexInsert1M, which passes through
// every state, did not change (1,023-1,106 ns against 1,103-1,150 ns in the
// same runs; at 1/4: 1,048-1,181 ns, and 2.2-2.4 M random queries/s).
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
// the query (seed 000's approach).
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

// BenchmarkIndexQueryK8 queries an index of 1M random fingerprints at k = 8
// (the Detector's default T_B): random queries, queries 1 to 8 bits from a
// stored fingerprint, and the linear scan beside them.
//
//	go test -run='^$' -bench=IndexQueryK8 -benchtime=2s -cpu=1 -count=3 ./simhash/
//
// Medians of 3 on the same shared 2-core VM. Before multi-probe layouts
// (9 blocks of 7-8 bits, 9 tables, over budget):
//
//	IndexQueryK8/random    2,539 queries/s   85.06 B/entry
//	IndexQueryK8/near      2,723 queries/s   85.06 B/entry
//	IndexQueryK8/scan      1,073 queries/s
//
// With them (3 blocks of 21-22 bits, one table per block, probed within
// radius 2: 411 probes/query):
//
//	IndexQueryK8/random   17,639 queries/s   35.06 B/entry
//	IndexQueryK8/near     14,158 queries/s   35.06 B/entry
//	IndexQueryK8/scan        972 queries/s
//
// about 18 times the linear scan (random) and 15 times (near). With the
// buckets and chain heads prefetched rather than loaded (a later session,
// a quieter machine; 7c964ff gave 27,500 random queries/s beside them):
//
//	IndexQueryK8/random   44,979 queries/s   37.83 B/entry
//	IndexQueryK8/near     46,821 queries/s   37.83 B/entry
//	IndexQueryK8/scan      1,970 queries/s
//
// about 23 times the linear scan.
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
