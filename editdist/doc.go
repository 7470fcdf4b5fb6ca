// Package editdist implements the near-replica detection of Junxiu An and
// Pengsen Cheng (Chengdu University of Information Technology), "The Chinese
// Duplicate Web Pages Detection Algorithm based on Edit Distance": no
// main-content extraction, only a feature string taken from the page with
// its tags stripped, compared by edit distance.
//
// # Method
//
// The feature string of a page is, for every Chinese full stop 。 in its
// text, the Han character just before it (nothing when that is
// punctuation, a Latin letter or a digit). Navigation bars, related links,
// advertisements and copyright lines rarely end in 。, so the string is
// mostly the article's, without deciding where the article is
// (Extractor, Han). For feature strings Sour (the shorter, length n) and
// Dest (length m ≥ n):
//
//	edit(Sour, Dest)     Levenshtein distance              (Definition 1)
//	m − n ≤ edit ≤ m                                        (Property 1)
//	LCC = m − edit, 0 ≤ LCC ≤ n                             (Definition 2, Property 2)
//	OverlapFactor_Sour = LCC/n, OverlapFactor_Dest = LCC/m  (Definition 3)
//
// and the pages are duplicates when OverlapFactor_Sour ≥ α' and
// OverlapFactor_Dest ≥ β, with α' = α for pages of different hosts and
// α + ε for pages of one host, whose shared template adds the same noise to
// both strings (Definition 4, Thresholds). A page with an empty feature
// string cannot be decided: Match and Add return an error wrapping
// neardup.ErrNoFeatures, never "duplicate".
//
// A Match's Score is 1 − OverlapFactor_Dest = edit/m (NonOverlap): 0 for
// identical feature strings, lower is closer.
//
// # Defaults
//
// α = DefaultAlpha (0.6), ε = DefaultEpsilon (0.3) and β = DefaultBeta (0.3),
// with 。 as the only terminator. They are not the paper's: its Table III
// reads α = 0.8 and ε = 0.2 (PaperAlpha, PaperEpsilon) and does not show β.
// Same-host pages that share a template need α + ε = 0.9 of the shorter
// string, pages of different hosts 0.6. The defaults were chosen on
// labelled Chinese corpora, leaving one corpus out, so that recall holds at
// high precision on pages they were not tuned on; docs/BENCHMARKS.md has
// what they and the paper's thresholds give on each corpus, and
// docs/DEPARTURES.md why the paper's host rule costs recall on real mirrors.
//
// # Beyond the paper
//
//   - Other scripts: Extractor's terminators and feature function are
//     options; Latin() takes the word before each . ! ? (hashed into a rune)
//     for alphabetic pages, and ChineseTerminators adds ！ and ？.
//   - Speed: the distance is bit-parallel (Myers 1999, Hyyrö 2003; Pattern),
//     and a decision computes only what can still pass: Definition 4 bounds
//     the distance by k = m − ⌈max(α'n, βm)⌉ (so n/m < β never compares),
//     a bag-of-symbols bound rejects most unrelated strings without any
//     distance, and the bounded computation (Pattern.Within) stops once no
//     cell can lead to a distance ≤ k. Every decision equals
//     github.com/agnivade/levenshtein's distance put through Definition 4
//     (the package's property tests).
//   - Index: kept pages are grouped by feature-string length, so a new page
//     of length L is compared only with kept pages of lengths in
//     [βL, L/β], in memory order.
//
// Only the first Options.MaxLength (8,192) runes of a feature string count,
// so an enormous page costs a bounded time per comparison.
//
// # When not to use it
//
// Not for pages without Chinese full stops (Latin() extends the method to
// alphabetic scripts, but a page with no terminator cannot be decided). Not
// when paragraphs move: the feature string keeps their order, so a page
// whose paragraphs were swapped is far from its original. Not for short
// pages: a feature string of a few characters is weak evidence.
//
// A Detector is safe for concurrent use and can be saved and restored
// (neardup.Persister); snapshots record α, β, ε, the terminators, the
// feature's name and MaxLength.
package editdist
