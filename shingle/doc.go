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
// default. A pattern is kept as a 64-bit hash with k in its top five bits.
// Each distinct pattern p with term frequency tf weighs (Eqs. (2), (3))
//
//	wt(p)   = 1 + log10(tf(p))
//	norm(p) = wt(p) / sqrt(Σ_q wt(q)²)     over all patterns, every k together
//
// A Vector holds the (key, (k/M)·norm) pairs sorted by key.
//
// # Forms and thresholds
//
// Two pages are near-duplicates iff their dissimilarity is below the
// threshold. Normalized, the default form and beyond the paper, is Eq. (1)
// divided by the two pages' total weights: it lies in [0, 1] whatever the
// page length, and its default threshold is DefaultThreshold (0.25), chosen
// on labelled corpora by leaving each out in turn (docs/BENCHMARKS.md).
// Equation is Eq. (1) as printed, with the paper's threshold
// PaperThreshold (0.2); it grows with the square root of a page's pattern
// count, so no one threshold fits short and long pages. TableForm
// reproduces the paper's Table 4 and compares how much weight each k group
// holds, not which patterns. docs/DEPARTURES.md has the paper's errata.
//
// # Candidates
//
// A Detector does not compare a new page with every kept one. Each kept
// page is indexed under its prefix: its first keys whose weights add up to
// 2t·S/(1+t) of its total weight S with Normalized (t with Equation). Two
// pages closer than the threshold share a pattern of both prefixes, so a
// new page is compared with the kept pages found under its prefix keys. A pattern in the prefixes of more than
// Options.MaxPostings kept pages (DefaultMaxPostings, 8) — a site's
// template, boilerplate — is not looked up, so the pages a new page is
// compared with do not grow with its site; a pair whose prefixes share only
// such patterns is missed. When every known pattern of a page's prefix is
// common, MaxPostings pages of the rarest are compared. With MaxPostings
// and MaxPatterns NoLimit and Form Normalized or Equation, the index finds
// every pair that comparing every pair would find. An O(M) lower bound
// skips most candidates, and a merge stops once the pair is at or beyond
// the threshold.
//
// # Memory and cost
//
// A kept page with more than Options.MaxPatterns patterns
// (DefaultMaxPatterns, 512) keeps a consistent sample, the patterns of
// smallest hash, with its page's totals (a bottom-k sketch over weighted
// patterns); its dissimilarity to a new page, always compared whole, is
// estimated over the sample. A pattern costs 12 bytes, so the sample holds
// at most 6 KB of patterns; with its totals and its index entries a kept
// page costs 7,875 B of heap on the sample corpora of examples/evaluate
// (its BenchmarkKeptBytes; about 43 KB with NoLimit) and 12.5 KB on the
// generated crawl of BenchmarkScale (docs/BENCHMARKS.md). Building a Vector
// costs O(M·n log(M·n)) for n tokens; the dissimilarity of two vectors is
// one merge, O(a + b), without allocation. Comparisons reports how many
// kept pages the index left to compare.
//
// # Batch
//
// Dedup groups a whole set and applies the paper's rule (Fig. 6): of a
// near-duplicate pair, the page whose dissimilarity to the other pages is
// smaller is removed, with any Form. It compares whole vectors and looks up
// every pattern, and honours a context.Context.
//
// # When not to use it
//
// Not on pages in heavy site templates without extracting their main
// content first: every token counts, so two different pages of one
// template may be closer than the threshold, and two copies in different
// templates farther; package minhash models templates. Not when a kept
// page must cost a few bytes (simhash keeps 8). Not with Equation across
// pages of very different lengths. TableForm is not a similarity of
// contents: use it to reproduce the paper.
package shingle
