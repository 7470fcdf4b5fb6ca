// Package shingle detects near-duplicate pages by the multiple k-shingling
// weighted dissimilarity of L. A. R. Khan, M. S. I. Ahmed, H. H.
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
// # Dissimilarity: three forms
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
// # Normalized form
//
// Normalized, beyond the paper, divides Eq. (1) by the total weight of the two
// vectors, S_d = Σ_p (k/M)·norm_d(p):
//
//	D_n(d, d') = Eq. (1)(d, d') / (S_d + S_d')
//
// Since |x − y| ≤ x + y for non-negative terms, 0 ≤ D_n ≤ 1: 0 for equal
// vectors, 1 for vectors that share no pattern. It is one minus a weighted
// Dice coefficient, 1 − 2·Σ_p min(s_d(p), s_d'(p))/(S_d + S_d'), and does not
// grow with page length, so one threshold serves short and long pages. It is
// symmetric but not a metric. Threshold must be in (0, 1] for this form
// (above 1 every pair would match: ErrInvalidOption); 1 means "shares a
// pattern". Zero means DefaultThreshold, 0.35, chosen by streaming
// en-dev and zh-dev as examples/evaluate does (TestSweep, NEARDUP_SWEEP):
//
//	t     en-dev P / R / F1       zh-dev P / R / F1
//	0.20  1.000 / 0.885 / 0.939   1.000 / 0.884 / 0.939
//	0.25  1.000 / 0.947 / 0.973   1.000 / 0.941 / 0.970
//	0.30  1.000 / 0.981 / 0.990   1.000 / 0.992 / 0.996
//	0.35  0.997 / 0.994 / 0.996   1.000 / 0.997 / 0.999
//	0.40  0.991 / 0.999 / 0.995   1.000 / 1.000 / 1.000
//	0.45  0.974 / 0.997 / 0.986   1.000 / 1.000 / 1.000
//	0.50  0.956 / 0.996 / 0.976   1.000 / 1.000 / 1.000
//	0.60  0.908 / 0.991 / 0.948   0.995 / 0.997 / 0.996
//
// 0.35–0.40 is a plateau on both; 0.35 is its precision side. On the
// template-heavy corpora at 0.35: en-dev-hard 0.902 / 0.877 / 0.890,
// zh-dev-hard 0.837 / 0.916 / 0.875 (Equation at 12: 0.905 and 0.925); the
// threshold was read off the dev corpora, not validated elsewhere.
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
// accepted; the Detector stays exact at any of them, only slower. A threshold
// that depends on page length is a poor default: prefer Form Normalized,
// whose one threshold (0.35) gives F1 0.996 on en-dev and 0.999 on zh-dev.
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
// no MinHash signature or band tuning is needed, and with
// MaxPatterns NoLimit nothing is approximate (see Memory for the default
// bound on kept patterns).
// Before each merge an O(M) lower bound (the TableForm value, never above
// Eq. (1)) skips most candidates, and a merge stops as soon as the keys
// merged so far put the pair at or beyond the threshold.
//
// With Normalized the pair's threshold in Eq. (1) units, t·(S_d + S_d'),
// depends on both pages, so each page's prefix is the shortest run of its
// first keys of weight ≥ 2t·S/(1+t), its own S only. Proof: if d and d' share
// no key of d's prefix P (weight w), the shared weight Σ min(s_d, s_d') is at
// most min(S_d − w, S_d'), so D_n ≥ 1 − 2·min(S_d − w, S_d')/(S_d + S_d'),
// which is smallest at S_d' = S_d − w, where it is w/(2S_d − w); that is ≥ t
// iff w ≥ 2t·S_d/(1+t). So if D_n < t, d and d' share a key of P, and as P
// is a prefix, the first key they share lies in P; the same holds for d'
// with its own prefix, so the first shared key lies in both and the index
// finds the pair. (The cruder length argument, D_eq ≥ |S_d − S_d'| so
// D_eq < 2t·S_d/(1−t), is also valid but asks for 1.08·S at 0.35: the whole
// page.)
// D_n < t ≤ 1 implies a shared pattern, so no page needs the light list.
// TestNormalizedPrefixExact checks the property against exhaustive
// comparison on random short pages (D_n spread over (0, 1]) and edited
// copies; TestCorpusRecall finds all 1,126 en-dev and 519 zh-dev pairs below
// 0.35 that comparing every pair finds (recall 1). The lower bound scales
// too: TableForm/(S_d + S_d') ≤ D_n. The prefix holds about half of a page's
// weight at 0.35 (2·0.35/1.35 = 0.52), so an en-dev page meets 98 candidates
// (zh-dev 188; against 980 and 398 for all pairs) and streaming en-dev runs at
// about 2,600 pages/s, as Equation at 12 does (BenchmarkStreamEnDev).
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
// A vector holds 12 bytes per distinct pattern: at most 12·M·n bytes for n
// tokens, a median of 853 patterns (10 KB) on en-dev and up to 16,262
// (195 KB). A Detector bounds what it keeps: a kept page with more than
// Options.MaxPatterns patterns (512 by default) keeps a consistent sample,
// the 512 patterns of smallest hash, with its page's totals (Broder's
// bottom-k sketch, over weighted patterns). Two pages' patterns below the
// smaller of their cuts are a uniform sample of the union of their
// patterns, complete on both sides, so the form computed over them (and
// Equation scaled to the pages' totals) estimates the dissimilarity; the
// O(M) lower bound, computed from the page's totals, still holds and clamps
// the estimate. A new page is always compared by its whole vector. Kept
// pages cost 8.5 KB each on the sample corpora (BenchmarkKeptBytes in
// examples/evaluate), 42.9 KB with NoLimit.
//
// What the sample costs, measured with examples/evaluate (-sp) on the four
// dev corpora at the default threshold (F1, wrong matches counted):
//
//	MaxPatterns   en-dev   zh-dev   en-dev-hard   zh-dev-hard
//	NoLimit       0.9943   0.9987   0.8520        0.8502
//	2048          0.9943   0.9987   0.8501        0.8517
//	1024          0.9943   0.9987   0.8499        0.8472
//	512           0.9949   0.9987   0.8520        0.8502
//	256           0.9962   0.9987   0.8465        0.8592
//
// The candidate index stays the prefix index of Candidates, built over the
// sample: a kept sample's prefix holds its sampled 4-shingles, and a new
// page probes with its whole prefix, which holds all of its own 4-shingles,
// so a near-duplicate shares a probed key with any kept sample that holds
// one of their common 4-shingles. The exactness proven there holds with
// NoLimit, and for pages of at most MaxPatterns patterns.
//
// # When not to use it
//
// Not for pages whose near-duplicates differ by a template or boilerplate
// (../shared/corpus/en-dev-hard): every token counts, so extract the main
// content first. Not with a fixed threshold across pages of very different
// lengths with Equation (see Thresholds; use Normalized). Not when memory per
// kept page must be a few bytes: simhash keeps 8, neardup.Recommended about
// 3 KB. TableForm is not a similarity of contents.
//
// # Batch
//
// Dedup groups a whole set and applies the paper's rule (Fig. 6): of a
// near-duplicate pair, the page whose dissimilarity to the other pages is
// smaller is removed, with any Form (Normalized: dissimilarities D_n). It
// honours a context.Context.
package shingle
