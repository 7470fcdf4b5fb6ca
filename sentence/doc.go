// Package sentence implements the sentence-count filter of Kumar and
// Govindarajulu's cascade ("Near-Duplicate Web Page Detection: An
// Efficient Approach Using Clustering, Sentence Feature and Fingerprinting",
// §3.2a): the feature of a page is its number of sentences S, and a kept page
// d is a candidate near-duplicate of a new page k when
//
//	|S_d − S_k| ≤ T_s
//
// The paper's text writes "< T_s", but its own worked example (Tables 2 and
// 4: S_new = 4, T_s = 1 keeps Wp2 with 5 sentences and Wp3 with 4, drops Wp1
// with 6) needs "≤", and that is what this package implements.
//
// S is len(preprocess.Page.Sentences), computed once per Document (see
// Count). A page with no sentence returns an error wrapping
// neardup.ErrNoFeatures: the filter cannot place it.
//
// # Defaults
//
// Options.Threshold zero means DefaultThreshold, T_s = 24, chosen on the
// labelled corpora en-dev and zh-dev; the paper's worked example uses T_s = 1
// but the paper does not print the value behind its evaluation (Fig. 5 only
// shows recall and F rising and falling with T_s). Options.ExplicitZero asks
// for T_s = 0.
//
// Beyond the paper, the tolerance also grows with the pages: two pages are
// candidates when |S_d − S_k| ≤ max(T_s, ⌊Relative·max(S_d, S_k)⌋), with
// Relative = DefaultRelative = 0.6 unless Options.Relative says otherwise
// (Absolute turns it off). A fixed T_s drops re-templated copies of long pages,
// whose counts move with their length, so a cascade with a fixed T_s finds
// fewer duplicates than its SimHash stage alone. The rule is symmetric, so it
// does not matter whether the copy or its original came first. Streaming the
// labelled corpora through the cascade (sentence, then SimHash at T_B = 8),
// recall and F1 by Relative, against SimHash alone:
//
//	Relative        en-dev          zh-dev          en-dev-hard     zh-dev-hard
//	off (paper)     0.963 / 0.958   0.933 / 0.964   0.836 / 0.872   0.891 / 0.884
//	0.3             0.967 / 0.958   0.938 / 0.967   0.842 / 0.869   0.894 / 0.878
//	0.5             0.967 / 0.952   0.938 / 0.967   0.853 / 0.870   0.898 / 0.880
//	0.6             0.967 / 0.949   0.938 / 0.967   0.862 / 0.872   0.898 / 0.880
//	SimHash alone   0.967 / 0.942   0.938 / 0.967   0.863 / 0.866   0.898 / 0.880
//
// At 0.6 the filter costs SimHash no recall (one page of 702 on en-dev-hard)
// and still removes a quarter of its false positives on en-dev; it is the
// smallest value that does so on all four corpora.
//
// # Cost
//
// The Detector keeps a map from sentence count to the IDs with that count and a
// sorted slice of the distinct counts. Match finds the first count ≥ S_k − T_s
// by binary search and walks the counts up to S_k + T_s, so it costs
// O(log C + M log M) for C distinct counts and M candidates, never a scan of
// every kept page. Add and Remove cost O(1) expected, plus O(C) when a count
// appears or disappears. Memory is about two map entries per document (the ID
// string is shared): some 100 bytes per document plus its ID.
//
// # When not to use it
//
// The sentence count is a cheap pre-filter, not a near-duplicate test: many
// unrelated pages share a count, so with a large repository and a small T_s it
// still returns a large share of the pages of similar length (real page
// lengths pile up at small counts). Put it first in a neardup.Cascade in front
// of a precise stage (simhash in the paper). It also misses true
// near-duplicates whose sentence splitting differs by more than T_s: a page
// wrapped in a new site template, boilerplate with many short "sentences",
// an added or removed paragraph. Pages with no sentence terminator (lists,
// tables, CJK text split badly) give counts that carry little signal.
package sentence
