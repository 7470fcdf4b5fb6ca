// Package sentence implements the sentence-count filter of J. Prasanna Kumar
// and P. Govindarajulu, "Near-Duplicate Web Page Detection: An Efficient
// Approach Using Clustering, Sentence Feature and Fingerprinting" (§3.2a):
// the feature of a page is its number of sentences S, and a kept page d is a
// candidate near-duplicate of a new page k when
//
//	|S_d − S_k| ≤ T_s
//
// (the paper's text writes "<"; its worked example needs "≤", see
// docs/DEPARTURES.md of the repository).
//
// S is len(preprocess.Page.Sentences), computed once per Document (Count).
// A page with no sentence returns an error wrapping neardup.ErrNoFeatures:
// the filter cannot place it. A Detector keeps the counts, is safe for
// concurrent use, implements neardup.Detector, Verifier, Remover,
// MatchAdder, Replacer and Persister, and scores a match by |S_d − S_k|
// (CountDifference).
//
// # Defaults
//
// Options.Threshold zero means DefaultThreshold, T_s = 24 sentences;
// SameCount asks for T_s = 0. The paper's worked example uses
// T_s = 1 but it prints no value behind its evaluation; whole pages in site
// templates differ by many "sentences" (navigation lines, footers), which a
// small T_s turns into missed duplicates.
//
// Beyond the paper, the tolerance also grows with the pages: two pages are
// candidates when |S_d − S_k| ≤ max(T_s, ⌊Relative·max(S_d, S_k)⌋), with
// Relative = DefaultRelative = 0.6 unless Options.Relative says otherwise
// (Absolute gives the paper's rule). A fixed T_s drops re-templated copies
// of long pages, whose counts move with their length; at 0.6 the filter
// combined with SimHash costs SimHash no recall on labelled crawls and still
// removes some of its false positives. The rule is symmetric, so it
// does not matter whether the copy or its original came first. The
// measurements are in docs/DEPARTURES.md.
//
// # Cost
//
// The Detector keeps a map from sentence count to the IDs with that count
// and a sorted slice of the distinct counts. Match finds the first count
// ≥ S_k − T_s by binary search and walks the counts up to S_k + T_s, so it
// costs O(log C + M log M) for C distinct counts and M candidates, never a
// scan of every kept page. Add and Remove cost O(1) expected, plus O(C) when
// a count appears or disappears. Memory is about two map entries per
// document besides its ID.
//
// # When not to use it
//
// The sentence count is a cheap pre-filter, not a near-duplicate test: many
// unrelated pages share a count, so with a large repository it returns a
// large share of the pages of similar length (real page lengths pile up at
// small counts). Use it in a neardup.Cascade after a precise stage
// (simhash; the paper runs the sentence filter first): both orders return
// the same matches, but with simhash first its index finds the candidates,
// where this filter first hands every kept page of a similar count to the
// next stage, slower by orders of magnitude at a crawl's scale
// (docs/BENCHMARKS.md, "Cascade"). It also misses near-duplicates whose
// sentence splitting differs by more than the tolerance: a page wrapped in
// a new site template, boilerplate with many short "sentences", an added or
// removed section. Pages with no sentence terminator (lists, tables) give
// counts that carry little signal.
package sentence
