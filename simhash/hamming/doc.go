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
// serves any k up to MaxDistance (16). Codes and ids are plain uint64
// values; the package does not import the rest of neardup.
//
//	ix, err := hamming.New(hamming.Options{MaxDistance: 3, ExpectedSize: 1 << 20})
//	err = ix.Add(id, code)
//	hits, err := ix.Query(code, 3, hits[:0]) // every stored code within 3 bits
//
// # Layouts
//
// The 64 bits are split into B blocks. In an exact layout (B > k), two codes
// within k bits of each other agree exactly in at least m = B-k blocks, so
// the index keeps, for each of the C(B, m) combinations of m blocks, a table
// of all codes sorted with those blocks on top, and a query looks up one
// bucket per table. In a multi-probe layout (B ≤ k) there is one table per
// block, and a query looks up every bucket within r = ⌊k/B⌋ bits of its own
// key in enough tables to be exact. Either way each stored code within k
// bits is reported once. New chooses the layout from Options.MaxDistance,
// ExpectedSize and MaxBytesPerEntry by an estimate of the probes and entries
// a query reads; Plan reports the choice.
//
// # Defaults
//
// The zero Options give an index for k ≤ 3 sized for about a million codes
// within 48 bytes per entry, a budget that bends to 64 bytes when that buys
// a layout estimated at least three times as fast, and to the smallest
// layout when none fits (Plan.OverBudget tells). A Query may ask any k up
// to the index's MaxDistance; a smaller k reads less.
//
// # Inserts, removals and memory
//
// Add appends to a small insert buffer that queries search too; when it
// reaches an eighth of the sorted tables (or removals make up that much) it
// is merged into them in one linear pass per table, so inserts are amortised
// O(1), and a merge holds the write lock for a time linear in the index's
// size and briefly needs the memory of a second copy of the tables. Remove
// marks the entry dead until the next merge. MemoryUsage reports the bytes
// held, about 40 per entry at the defaults. On Linux the tables ask for
// transparent huge pages, which spares most TLB misses of random queries.
//
// QueryBatch and AddBatch answer many queries as a pipeline that prefetches
// the directory entries and buckets of the next ones while it scans the
// current ones, so their memory waits overlap; prefer them when queries come
// in batches. Bucket scans use AVX-512 on amd64 CPUs that have it, and
// prefetching is amd64 assembly; the purego build tag, or another CPU or
// architecture, keeps the portable Go code, with the same results.
//
// An Index is safe for concurrent use; AllPairs finds every pair within k
// bits among a set of codes, in parallel. Speed and memory are measured in
// docs/BENCHMARKS.md of the repository, with the commands that measure them.
//
// # When not to use it
//
// The index pays off for large sets and small k. As k nears 16 a query reads
// a large share of the entries anyway, and above 16 the index cannot serve:
// compare the query with every code (Distance in a loop), as
// simhash.Detector does beyond MaxDistance. For a small set the directories
// cost more memory than the codes for little gain. The index answers "which
// codes are within k bits", not "which is nearest": ranking is the caller's.
package hamming
