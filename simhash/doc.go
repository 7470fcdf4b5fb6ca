// Package simhash implements Charikar's SimHash fingerprint as seed 000 uses
// it (Kumar and Govindarajulu, "Near-Duplicate Web Page Detection: An
// Efficient Approach Using Clustering, Sentence Feature and Fingerprinting",
// §3.2b, §3.3, Fig. 2; after M. Charikar, "Similarity estimation techniques
// from rounding algorithms", STOC 2002), and a Detector that keeps
// fingerprints and finds the near-duplicates of a new page.
//
// # Fingerprint
//
// f = 64. Every keyword kw of a page, with weight w (its term frequency), is
// hashed to 64 bits with xxhash64 (Hash). For every bit i,
//
//	V[i] += w if bit i of hash(kw) is 1, else V[i] −= w
//
// and bit i of the fingerprint is 1 iff V[i] > 0. Builder does this feature by
// feature, Sum over preprocess.Page.Terms, and FromText over the words of a
// plain text: weighting a word by its frequency is the same as adding each
// occurrence with weight 1, so FromText needs no map; it counts set bits
// eight at a time (SWAR) and runs at several hundred MB/s with no allocation
// (BenchmarkSimhashText10KB). A page with no feature returns an error
// wrapping neardup.ErrNoFeatures, never a fingerprint.
//
// The fingerprints are this package's own: they depend on xxhash and on the
// preprocessing, so they cannot be compared with the paper's Tables 3 and 5,
// whose values the tests use only for distances.
//
// # Near-duplicates
//
// Two pages are near-duplicates when the Hamming distance b_f of their
// fingerprints is ≤ T_B (§3.3; §4.2's "more than T_B" is a typo). Distance
// computes b_f with one POPCNT. The paper's §3.3 example: 110010 and 101010
// differ in 2 bits, ≤ T_B = 3. Tables 3 and 5 give b_f(Wp_new, Wp2) = 3 and
// b_f(Wp_new, Wp3) = 27 (Table 3 prints Wp1 with 71 bits: unusable).
//
// # Defaults
//
// T_B = DefaultMaxDistance = 8 bits, chosen on the labelled corpora en-dev and
// zh-dev (F1 0.94 and 0.97 for SimHash alone; 3 bits gives 0.89 and 0.79).
// §3.3's example uses 3, the k that Manku, Jain and Das Sarma ("Detecting
// near-duplicates for web crawling", WWW 2007) chose for 64-bit fingerprints
// of 8 billion pages. Note that the paper's Table 5 conclusion (Wp_new is not
// a duplicate of Wp2, at 3 bits) holds only for T_B ≤ 2. Tune T_B on a
// labelled corpus of your own pages.
//
// # Cost
//
// Computing a fingerprint is linear in the text: about 30 µs for 10 KB of
// English (BenchmarkSimhashText10KB). A Detector with T_B ≤ MaxIndexDistance
// (16) finds the kept fingerprints within T_B bits through an Index: Manku,
// Jain and Das Sarma's permuted block tables, exact, dynamic and safe for
// concurrent use, 0.3 to 0.5 µs per query at a million fingerprints and k = 3
// (BenchmarkIndexQuery1M), against 0.5 to 0.9 ms for a scan
// (BenchmarkLinearScan1M). A query spends most of that time waiting for
// memory; Index.QueryBatch and Index.AddBatch run many queries or inserts as a
// pipeline whose waits overlap (prefetching), up to 1.4 to 1.8 times as many
// per second (AMD Zen 4; on an Intel Xeon, whose misses cost less, 1.05 to
// 1.25 times). The index's cost grows with k: for small k every table needs
// one block to match exactly; for larger k (multi-index hashing, Norouzi,
// Punjani and Fleet, CVPR 2012) each table is probed at every key within a
// small radius of the query's block. At k = 8 (the default T_B) and a million
// fingerprints that is 3 tables of 21–22 bits probed within radius 2: 35,000
// to 48,000 queries/s against 1,200 to 2,000 for a scan, depending on the
// machine (BenchmarkIndexQueryK8), and 2 to 6 µs per Match at 100,000 kept
// pages (BenchmarkDetectorMatch). Plan reports the layout, memory per entry
// and expected candidates. Larger T_B scans. Memory: the Index entry (40–100
// bytes, see Index.MemoryUsage), 8 bytes of fingerprint, and the ID with a map
// entry (about 50 bytes).
//
// # When not to use it
//
// SimHash over whole-page keywords sees a page as a bag of words: a short
// page wrapped in a heavy site template is dominated by the template's words,
// and two different pages from one template can land within T_B of each other.
// Extract the main content first, or use a method that weighs local
// structure (shingle). Very short pages (a few words) give unstable
// fingerprints, where a single word moves many bits. The fingerprint ignores
// word order, so a reordered page is an exact match.
package simhash
