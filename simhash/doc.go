// Package simhash implements the SimHash fingerprint and near-duplicate
// detector of J. Prasanna Kumar and P. Govindarajulu, "Near-Duplicate Web
// Page Detection: An Efficient Approach Using Clustering, Sentence Feature and
// Fingerprinting" (§3.2b, §3.3, Fig. 2), after M. Charikar, "Similarity
// estimation techniques from rounding algorithms", STOC 2002.
//
// A page's fingerprint has f = 64 bits: every keyword with weight w (its term
// frequency) is hashed with xxhash64 (Hash), w is added to V[i] for each bit
// i set in the hash and subtracted for each bit clear, and bit i of the
// fingerprint is 1 iff V[i] > 0 (Builder, Sum, FromText). Two pages are
// near-duplicates when the Hamming distance b_f of their fingerprints is
// ≤ T_B (§3.3; §4.2's "more than T_B" is a typo). The paper's example: 110010
// and 101010 are 2 bits apart, within T_B = 3; Tables 3 and 5 give b_f = 3
// and 27 (Table 3 prints Wp1 with 71 bits: unusable).
//
// T_B = DefaultMaxDistance = 8 bits, chosen on the labelled corpora en-dev
// and zh-dev (F1 0.94 and 0.97; 3 bits, the paper's example and the choice of
// Manku et al. for 8 billion pages, gives 0.89 and 0.79 with this
// preprocessing). The paper's Table 5 conclusion (Wp_new is not a duplicate of
// Wp2, 3 bits apart) holds only for T_B ≤ 2.
//
// A Detector finds the kept fingerprints within T_B through the exact index
// of package simhash/hamming (T_B ≤ 16): 0.1 µs per Match at T_B = 3 and 2–6
// µs at T_B = 8 with 100,000 kept pages (BenchmarkDetectorMatch); larger T_B
// scans, about 0.7 ns per kept page. A kept page costs its index entry (about
// 40 bytes), its ID and a map entry; a snapshot (WriteTo), the ID and 8 bytes.
//
// Not for pages that differ by a heavy site template: SimHash over whole-page
// keywords sees a bag of words, so a short page in a large template is
// dominated by the template, and two different pages of one template can
// land within T_B. Very short pages give unstable fingerprints. Word order is
// ignored: a reordered page is an exact match.
package simhash
