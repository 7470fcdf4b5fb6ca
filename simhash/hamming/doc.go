// Package hamming finds every stored 64-bit code within k bits of a query
// (Hamming distance), exactly and without comparing the query with every
// stored code: the near-duplicate search of SimHash fingerprints at crawl
// scale.
//
// It implements the permuted block tables of G. S. Manku, A. Jain and A. Das
// Sarma, "Detecting Near-Duplicates for Web Crawling", WWW 2007, §3, for
// small k, and multi-index hashing (M. Norouzi, A. Punjani and D. J. Fleet,
// "Fast Search in Hamming Space with Multi-Index Hashing", CVPR 2012) for
// larger k, choosing between them by a cost model under a memory budget. It
// serves any k up to MaxDistance (16). It imports nothing from the rest of
// neardup: codes are plain uint64 values.
//
//	ix, err := hamming.New(hamming.Options{MaxDistance: 3, ExpectedSize: 1 << 20})
//	err = ix.Add(id, code)
//	hits, err := ix.Query(code, 3, hits[:0]) // every stored code within 3 bits
//
// # Exact layouts
//
// The 64 bits are split into B blocks. In an exact layout (B > k), two codes
// within k bits of each other differ in at most k blocks, so they agree
// exactly in at least m = B-k. For each of the C(B, m) combinations of m
// blocks the index keeps a table of all codes with those blocks moved to the
// top bits, sorted, with a directory of bucket offsets on the top bits; a
// query looks up one bucket per table and checks the few entries in it. A
// pair matching in several combinations is reported only by the table of the
// first m blocks in which it agrees, so each entry is reported once.
//
// # Multi-probe layouts
//
// For larger k the exact layouts need many short keys, and a multi-probe
// layout (B <= k) is cheaper: one table per block, keyed on that block. Two
// codes within k bits differ in at most r = floor(k/B) bits of some block, so
// a query looks up, in each table, every directory bucket within r bits of
// its own (Plan.ProbesPerQuery in all) and checks the entries in them; a
// pair is reported only by the first table whose block differs in at most r
// bits. A query at a smaller k probes fewer tables or a smaller radius,
// whichever is estimated cheaper. The layout (exact or multi-probe, B,
// directory size) is chosen from Options.MaxDistance and ExpectedSize by an
// estimate of the probes and scanned entries of a query within the memory
// budget; Plan reports it.
//
// # Memory
//
// Each table stores only the bits below its directory (6 bytes per entry at
// the default size; tables other than the first, which only name candidates,
// leave out the block below their key where they can); ids are kept once, in
// the table sorted by code, and looked up there for the rare hits of the
// other tables. An id lookup for Add and Remove (4 bytes per entry: a
// position and a hash tag, bucketed by a hash of the id) and a tombstone bit
// complete the per-entry cost: 39 bytes per entry at k = 3 and a million
// entries, 38 at k = 8 (see Plan and MemoryUsage).
//
// # Inserts
//
// Add appends to a small buffer indexed by hash chains, one per table, that
// queries search too (a multi-probe query follows the chains of every key
// within its radius, or scans the buffer when it is small). A chain's head
// carries the number and tags of its first three entries, and a two-byte
// summary of the chain beside it (mostly cached) lets Query skip the heads of
// about three chains in four; it loads the others with its buckets. When the
// buffer reaches 1/8 of the sorted base (or removals make up that much) the
// buffer is merged into the base in one linear pass per table, bucket by
// bucket, which copies the unchanged runs and drops removed entries; the id
// lookup is updated through a map of old to new positions rather than
// rebuilt. Inserts are amortised O(1) in the base size; a merge holds the
// write lock for a time linear in the size (about 20–35 ms at a million
// entries on one core; with GOMAXPROCS > 1 the tables other than the first
// are merged on other goroutines) and briefly needs the memory of a second
// base. On Linux the tables ask for transparent huge pages (madvise), which
// spares most TLB misses of random queries.
//
// # Cost
//
// At a million entries and k = 3 a query takes 0.3 µs (random) to 0.5 µs
// (near: 1–3 bits from a stored code), against 0.5–0.9 ms for a scan: over a
// thousand times faster (BenchmarkIndexQuery1M, BenchmarkLinearScan1M). A
// single Query waits for memory twice (directory entries, then buckets), and
// a near one a third time (for the ids of its hits); QueryBatch and AddBatch
// answer many as a pipeline in which those waits overlap, 1.05 to 1.5 times
// as many per second depending on the machine's miss latency. At k = 8 a
// query probes 3 tables of 21–22 bits within radius 2: 35,000 to 48,000
// queries/s against 1,200 to 2,000 for a scan (BenchmarkIndexQueryK8).
// docs/BENCHMARKS.md in the repository has the measurements.
//
// Bucket scans check eight entries per step with AVX-512 on amd64 CPUs that
// have it (assembly); the purego build tag, or any other CPU or
// architecture, keeps the Go loop. Prefetching is amd64
// assembly too, and a no-op elsewhere.
//
// AllPairs finds every pair within k bits among a set of codes, in parallel.
package hamming
