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
// α = 0.8 and ε = 0.2 as the paper's Table III reads. The table is garbled
// and does not show β; DefaultBeta = 0.6 has the best F1 on the labelled
// corpus zh-dev (precision 1.000, recall 0.893, F1 0.943; from β = 0.3 to
// 0.5 one false positive more). The paper reports recall 96.7 % and
// precision 97.8 % on its own 998 pages. On zh-dev the host rule costs
// recall: with Thresholds.Epsilon = NoHostRule recall is 0.930 (F1 0.964),
// because mirrors on one host differ in a few sentences and α + ε = 1 asks
// the shorter string to be kept whole.
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
// A Detector is safe for concurrent use and can be saved and restored
// (neardup.Persister); snapshots record α, β, ε, the terminators, the
// feature's name and MaxLength.
package editdist
