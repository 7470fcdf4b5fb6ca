// Package shingle detects near-duplicate pages by the multiple k-shingling
// weighted dissimilarity of seed 004: L. A. R. Khan, M. S. I. Ahmed, H. H.
// Almistarihi, "A Novel Technique Using Multiple K-Shingling Based Weighted
// Dissimilarity Score for Web Content Outlier Mining", International Journal
// of Intelligent Engineering & Systems 12(4), 2019, §3.2, Tables 1–4, Fig. 6.
// DOI 10.22266/ijies2019.0831.23.
//
// # Patterns and weights
//
// A page's preprocessed tokens (preprocess.Page.Tokens) give its patterns:
// every k-shingle (k consecutive tokens, see Shingles) for k = 1..M, M = 4 by
// default (the paper suggests 2 for short texts, 3 for news). A pattern is
// kept as a 64-bit key: a polynomial hash of the xxhash of its tokens (no
// joined string is built) with k in the top five bits. Each distinct pattern
// p with term frequency tf weighs (Eq. (2), (3))
//
//	wt(p)   = 1 + log10(tf(p))
//	norm(p) = wt(p) / sqrt(Σ_q wt(q)²)     over all patterns, every k together
//
// A Vector holds the (key, (k/M)·norm) pairs sorted by key.
//
// # Dissimilarity: two forms
//
// Equation (the default) is Eq. (1) as printed:
//
//	D(d, d') = Σ_{k=1..M} (k/M) · Σ_{p in group k} |norm_d(p) − norm_d'(p)|
//
// TableForm is the form that reproduces Table 4, the absolute value of the
// signed sum of each group:
//
//	D(d, d') = Σ_{k=1..M} (k/M) · |Σ_{p in group k} (norm_d(p) − norm_d'(p))|
//
// With M = 3 and the counts of Table 2, TableForm gives Table 4's 0.333
// (D1, D2), 0.082 (D2, D3) and 0.250 (D1, D3); Equation gives 0.355, 0.140
// and 0.292. The text's group weight "1/3" for k = 3 of 4 is read as 3/4.
// TableForm depends only on each group's total weight, not on which patterns
// the pages share, so on real pages it mostly compares lengths; it is here to
// reproduce the paper. Two pages are near-duplicates iff D < Threshold, 0.2 by
// default.
//
// # Thresholds
//
// Eq. (1) is an L1 distance between vectors of unit L2 length, so it grows
// with the square root of the number of patterns: a page of n distinct
// patterns and one sharing none of them are about sqrt(n)·(M+1)/(2M) apart,
// and a pair is below 0.2 only when roughly 0.2·sqrt(n) of the weight moved.
// The paper's 0.2 comes from a nine-pattern example. On the real pages of
// ../shared/corpus/en-dev (about 590 tokens and 1,700 patterns a page after
// preprocessing), 75 of its 786 labeled duplicates are below 0.2, 213 below 1
// and 549 below 3, with no unrelated pair below 3. Streamed as
// examples/evaluate does (a page is flagged when it matches a kept page), the
// default 0.2 gives precision 1.000 and recall 0.098 on en-dev (0.255 on
// zh-dev); threshold 8 gives 0.999 / 0.873 (zh-dev 1.000 / 0.788) and 12
// gives 0.967 / 0.977 (zh-dev 1.000 / 0.917). Those thresholds were read off
// the dev corpora, not validated elsewhere. Any finite Threshold > 0 is
// accepted; the Detector stays exact at any of them, only slower.
//
// # Candidates
//
// A Detector does not compare a new page with every kept one. Keys are
// totally ordered, and the terms (k/M)·norm(p) of a vector are all positive,
// so for each page take its prefix: the shortest run of its first keys whose
// terms add up to Threshold. If d and d' share no pattern of d's prefix, then
// D(d, d') ≥ the prefix's weight ≥ Threshold. So if D < Threshold, the first
// pattern the two share (in key order) lies in both prefixes. Kept pages are
// indexed under their prefix keys only, and a new page is compared (exactly)
// with the kept pages found under its own prefix keys. The few pages lighter
// than Threshold in all (a single token with M ≥ 5) are compared with each
// other directly. With Form Equation this finds exactly the pairs that a
// comparison of every pair finds (recall 1, measured on en-dev and zh-dev by
// TestCorpusRecall); with TableForm it finds the TableForm pairs among pages
// that share content, a subset of what comparing every pair would report.
// Because keys put the 4-shingles first, prefixes are made of rare patterns;
// no MinHash signature or band tuning is needed, and nothing is approximate.
// Before each merge an O(M) lower bound (the TableForm value, never above
// Eq. (1)) skips most candidates.
//
// # Cost
//
// Building a Vector costs O(M·n log(M·n)) for n tokens (about 0.5 ms for 10 KB
// of text). Eq. (1) of two vectors is one merge, O(a + b), with no
// allocation: about 7 µs for two 10 KB near-duplicates and 14 µs for two
// unrelated 10 KB pages. A Match costs one map look-up per prefix key (about
// 8 keys at threshold 0.2 and 40 at 1 on en-dev) plus one merge per candidate
// (about 7 per page at 0.2 and 20 at 1 on en-dev, against 980 for comparing
// every pair). Dedup finds its pairs the same way; its removal rule then needs,
// for a page with a single near-duplicate, the nearest other page over the
// whole set, searched best first by the lower bound: O(g·N) bounds for g such
// pages among N (about 1.7 s for en-dev's 1,962 pages on 2 cores).
//
// # Memory
//
// A kept page costs 12 bytes per distinct pattern (at most 12·M·n bytes for n
// tokens; about 20 KB for an en-dev page) plus one index entry per prefix key
// (8 bytes and a share of a map bucket).
//
// # When not to use it
//
// Not for pages whose near-duplicates differ by a template or boilerplate
// (../shared/corpus/en-dev-hard): every token counts, so extract the main
// content first. Not with a fixed threshold across pages of very different
// lengths (see Thresholds). Not when memory per kept page must be a few bytes:
// simhash keeps 8. TableForm is not a similarity of contents.
//
// # Batch
//
// Dedup groups a whole set and applies the paper's rule (Fig. 6): of a
// near-duplicate pair, the page whose dissimilarity to the other pages is
// smaller is removed. It honours a context.Context.
package shingle
