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
// kept as a 64-bit hash with k in its top five bits. Each distinct pattern p
// with term frequency tf weighs (Eqs. (2), (3))
//
//	wt(p)   = 1 + log10(tf(p))
//	norm(p) = wt(p) / sqrt(Σ_q wt(q)²)     over all patterns, every k together
//
// A Vector holds the (key, (k/M)·norm) pairs sorted by key.
//
// # Thresholds
//
// Three forms of dissimilarity are offered (Form). Normalized, the default
// and beyond the paper, is Eq. (1) divided by the two pages' total weights:
// it lies in [0, 1] whatever the page length, and two pages are
// near-duplicates iff it is below DefaultThreshold (0.35). Equation is
// Eq. (1) as printed; it grows with the square root of a page's pattern
// count, so the paper's threshold (PaperThreshold, 0.2, from a nine-pattern
// example) finds few duplicates among pages of real length, and no one
// threshold fits short and long pages. TableForm reproduces the paper's
// Table 4 (0.333, 0.082, 0.250) and compares how much weight each group
// holds, not which patterns; use it to reproduce the paper, not to
// deduplicate. docs/BENCHMARKS.md has what each gives on labelled corpora,
// and docs/DEPARTURES.md the paper's errata.
//
// # Candidates
//
// A Detector does not compare a new page with every kept one. The terms of a
// vector are positive, so each page is indexed under its prefix: its first
// keys whose weights add up to the threshold (2t·S/(1+t) of its total weight
// S with Normalized). If two pages are closer than the threshold, the first
// pattern they share lies in both prefixes, so a new page is compared
// exactly with the kept pages found under its own prefix keys. With
// Normalized and Equation the index finds every pair that comparing every
// pair would find; with TableForm, the pairs among pages that share
// content. Before each merge an O(M) lower bound skips most candidates, and
// a merge stops once the pair is at or beyond the threshold.
//
// # Memory
//
// A vector holds 12 bytes per distinct pattern, at most 12·M·n bytes for n
// tokens. A Detector bounds what it keeps: a kept page with more than
// Options.MaxPatterns patterns (DefaultMaxPatterns, 512) keeps a consistent
// sample, the patterns of smallest hash, with its page's totals (a bottom-k
// sketch over weighted patterns), over which its dissimilarity to a new
// page is estimated; a new page is always compared by its whole vector.
// MaxPatterns NoLimit keeps every pattern, the paper's exact method.
//
// # Cost
//
// Building a Vector costs O(M·n log(M·n)) for n tokens. The dissimilarity of
// two vectors is one merge, O(a + b), without allocation. A Match costs one
// map look-up per prefix key plus one merge per candidate. docs/BENCHMARKS.md
// has the timings.
//
// # When not to use it
//
// Not for pages whose near-duplicates differ by a template or boilerplate:
// every token counts, so extract the main content first. Not with a fixed
// threshold across pages of very different lengths with Equation (use
// Normalized). Not when memory per kept page must be a few bytes: simhash
// keeps 8. TableForm is not a similarity of contents.
//
// # Batch
//
// Dedup groups a whole set and applies the paper's rule (Fig. 6): of a
// near-duplicate pair, the page whose dissimilarity to the other pages is
// smaller is removed, with any Form. It honours a context.Context.
package shingle
