// Package cluster splits a repository of pages into clusters by their top
// keywords with k-modes, so that a new page is compared only with the pages
// of its most similar cluster: the "enhanced approach" of J. Prasanna Kumar
// and P. Govindarajulu, "Near-Duplicate Web Page Detection: An Efficient
// Approach Using Clustering, Sentence Feature and Fingerprinting" (MVSR
// Engineering College, Osmania University, and Sri Venkateswara University;
// received December 2011, accepted July 2012), §4, with the cosine
// similarity of E. Nandhu, E. Badrinath, E. Hasmitha, E. Lohitha and H.
// Packiaraj, "Webpage Duplication Detection using Machine Learning" (Malla
// Reddy University), §4.1.
//
// k-modes is Z. Huang's extension of k-means to categorical data ("Extensions
// to the k-Means Algorithm for Clustering Large Data Sets with Categorical
// Values", Data Mining and Knowledge Discovery 2(3):283–304, 1998); Kumar and
// Govindarajulu cite the variant of O. M. San, V.-N. Huynh and Y. Nakamori
// ("An Alternative Extension of the K-Means Algorithm for Clustering
// Categorical Data", International Journal of Applied Mathematics and
// Computer Science 14(2):241–247, 2004). The initialisations are those of
// F. Cao, J. Liang and L. Bai ("A new initialization method for categorical
// data clustering", Expert Systems with Applications 36(7):10223–10228, 2009)
// and of Huang (1998), as the reference implementation nicodv/kmodes (Python)
// offers them.
//
// # Method
//
// A document d is represented by its representatives R: its f most frequent
// keywords (stems after stop-word removal, Page.Top(f); see Keywords). A
// cluster's mode M is the set of the keywords most frequent among its
// documents (ModeKeywords of them; ties to the keyword seen first). A
// document is as similar to a cluster as (Nandhu et al. §4.1)
//
//	s = d·M / (√(d·d) √(M·M)) = |R ∩ M| / √(|R|·|M|)
//
// over keyword presence vectors (Cosine), or, as an option, Huang's simple
// matching dissimilarity |R ∖ M| + |M ∖ R| (Matching). Modes are bitsets over
// a vocabulary that gives each keyword a dense id, so s costs f bit tests.
//
// KModes.Fit: (1) choose k initial modes; (2) assign every document to its
// most similar mode (ties to the lowest cluster index); (3) if no document
// moved, stop; (4) give each empty cluster the document least similar to its
// own mode; (5) make each mode its cluster's most frequent keywords; repeat
// from (2), at most MaxIter passes (Kumar and Govindarajulu §4.1, steps
// 1–5). Labels are always the assignment under the final modes, so Assign of
// a fitted document returns its label, even when the cap stops the fit. The
// cost reported is the k-modes cost: the sum over documents of their
// dissimilarity to their cluster's mode (1 − s, or the matching count).
//
// Initialisation: Cao (the default) is deterministic: the first mode is the
// document of highest density (the mean, over its keywords, of the share of
// documents holding them), each next one the document maximising density ×
// dissimilarity to the nearest mode chosen (Cao et al. compute the density
// over every attribute; over keyword presence the absent keywords, shared by
// nearly every pair, would add the same large term to every density). Huang
// draws each mode's keywords with probabilities proportional to their
// document frequencies and starts from the document most similar to the
// draw; NInit runs (in parallel, run r seeded by PCG(Seed, r)) are fitted to
// the end and the cheapest wins, so the result depends on the seed, not on
// scheduling. FitCodes takes integer-coded categories (sets of uint32 codes)
// instead of documents; Update and UpdateCodes fold new items into the modes
// one at a time (online k-modes, O(f·m) each).
//
// A fitted KModes is a neardup.Partitioner: neardup.NewPartitioned(km,
// newDetector) keeps a detector per cluster (the sentence → SimHash cascade,
// say) and compares a page within its Probes (p) most similar clusters; its
// clusters stay as fitted. Detector does the same and fits again as the
// repository grows, losing no kept page: it keeps every page in one detector
// until the repository reaches FitAt pages, fits KModes on their keywords
// and moves each page into a new detector of its cluster (by default the
// cascade of Kumar and Govindarajulu §3: sentence count, then SimHash);
// then, at every doubling, it fits again on the keywords of every kept page.
// With Options.Source, which gives kept pages back, that fit moves
// every page again. Without one the fit starts a generation: new cluster
// detectors for the pages to come, routed by the new model, while the pages
// already kept stay where their own generation's model sent them. A page is
// compared within its p nearest clusters of each generation, so a
// near-duplicate is routed as its original was, and a page meets about
// p·n/k kept pages in all. The Detector holds the pages it is given only
// until its first fit.
//
// # Departures from the papers
//
//   - Modes of 200 keywords (ModeKeywords), not f: the paper's modes, as
//     large as a document's representatives, describe a cluster of hundreds
//     of pages by a handful of words; on the labelled corpora they compare
//     three times the pages for no better F1 (table below).
//     ModeKeywords = Keywords gives the paper's modes.
//   - f = 4 (the worked example shows 10 keywords per page, Tables 1 and 4;
//     the paper prints no f behind its figures): 3 to 5 do best, 10 loses
//     recall.
//   - Ties go to the lowest cluster index; an empty cluster takes the
//     document least similar to its mode; modes are updated after each pass
//     (the papers' steps), not after each move as in Huang's original.
//   - The repository grows: the Detector fits at FitAt and every doubling
//     (Growth), in generations, instead of clustering a fixed database once.
//     Between fits the modes stay as fitted unless Incremental is set, so
//     that a near-duplicate with its original's keywords goes where the
//     original went (Incremental measured no better: table below).
//   - Multi-probe (p > 1): a near-duplicate whose keywords send it to another
//     cluster than its original is lost at p = 1; probing the p most similar
//     clusters recovers most of them at p times the comparisons.
//
// # Defaults and how they were chosen
//
// k = DefaultK (16), f = DefaultKeywords (4), modes of DefaultModeKeywords
// (200) keywords, Cao, Cosine, p = 1, the first fit at DefaultFitAt (256)
// kept pages and a fit at every doubling. They come from streaming the four
// labelled corpora (en-dev, zh-dev, en-dev-hard, zh-dev-hard; 5,258 pages)
// through the clustered cascade over a grid of k, f, mode size, first fit and
// p (TestCorpusSweep), counting as examples/evaluate does: mean F1 over the
// four corpora, and the mean share of the kept pages a new page is compared
// with (Σ n_j² / n² per generation):
//
//	                                   p = 1            p = 2
//	cascade alone                      0.889 (100 %)
//	k = 16, f = 10, modes of f         0.883 (11 %)     0.889 (21 %)
//	k = 16, f = 4,  modes of f         0.892 (20 %)     0.894 (39 %)
//	k = 16, f = 10, modes of 200       0.887 (7 %)      0.891 (14 %)
//	k = 16, f = 5,  modes of 200       0.892 (7 %)      0.892 (14 %)
//	k = 16, f = 3,  modes of 200       0.898 (7 %)      0.895 (15 %)
//	k = 16, f = 4,  modes of 200       0.894 (7 %)      0.894 (15 %)
//	k = 4 / 8 / 32 / 64, f = 4, 200    0.892 / 0.894 / 0.893 / 0.895
//	                                   (27 / 14 / 4 / 2 %)
//	k = 16, f = 4, 200, first fit 128  0.892 (8 %)      0.896 (16 %)
//	Huang (NInit 10) / Incremental     0.892 / 0.889    0.892 / 0.896
//
// Differences under 0.006 are within the noise of corpora of 400–1,200 kept
// pages; k from 8 to 64 gives the same F1, and a larger k compares fewer
// pages for k empty cluster detectors per generation (see below), so large
// repositories can take a larger k. Matching ranks clusters as Cosine does
// when documents and modes have the same size (its default, modes of f
// keywords: 0.892 and 0.894); with larger modes it counts their extra
// keywords against them and sends pages to the clusters of smallest modes.
//
// # Measured
//
// Time per new page against the repository size, with and without
// clustering (Figs. 6 and 8 of Kumar and Govindarajulu), on en-dev
// (BenchmarkCorpusMatch: 300 held-out pages matched against the first n of
// the others, all kept and then fitted; AMD EPYC, one core, medians of 6):
//
//	n        cascade alone   k = 16, p = 1       p = 2
//	100         5.6 µs        0.77 µs (7 pages)   1.5 µs (14)
//	400        29.2 µs        1.8 µs (25)         3.6 µs (50)
//	1,600     133   µs        7.7 µs (106)       15.2 µs (213)
//
// The sentence-count filter lets through a share of the repository, so the
// cascade alone grows linearly; the clusters cut the pages it meets 15-fold
// and the time 17-fold.
//
// Precision / recall / F1 with and without clustering (Fig. 7), streaming
// each corpus at the defaults as examples/evaluate does (TestCorpusClaims):
//
//	corpus        cascade alone         k = 16, p = 1         p = 2
//	en-dev        0.907/0.940/0.923     0.946/0.927/0.936     0.927/0.931/0.929
//	zh-dev        0.994/0.935/0.964     0.994/0.914/0.952     0.994/0.933/0.963
//	en-dev-hard   0.836/0.816/0.826     0.881/0.812/0.845     0.861/0.812/0.836
//	zh-dev-hard   0.828/0.861/0.844     0.846/0.839/0.842     0.842/0.858/0.850
//
// Clustering raises precision (fewer unrelated pages are compared) and
// lowers recall. Every duplicate lost at p = 1 had its original kept in
// another cluster; on en-dev 11 of the 23 were in the page's second most
// similar cluster and 6 in its third, so p = 2 and p = 3 recover them.
// docs/cluster.md has the details.
//
// # Cost and memory
//
// Fit: O(n·f) to build the vocabulary and densities, then O(n·k·f) per pass
// (bit tests) plus O(n·f) to recount the modes; Cao adds O(n·k·f), Huang
// O(k·(V + n·f)) per run. 10,000 pages take 29 ms at k = 8 (18 passes) and
// 54 ms at k = 32 (BenchmarkFit); Huang with 10 runs on two cores 291 ms.
// Assign: k·f bit tests, 0.21 µs at k = 8 and 0.43 µs at k = 32
// (BenchmarkAssign). Detector.Match: one Assign per generation (about
// log2(n/FitAt) of them) plus the cluster detectors' Match over about p·n/k
// pages. A fit costs the KModes fit on every kept page, plus one Add per kept
// page when it moves them; the Detector is locked meanwhile.
//
// A model holds k bitsets of V bits (V the number of distinct keywords
// seen), the vocabulary, and, for KModes and an Incremental Detector's latest
// generation, each cluster's keyword counts (at most n·f entries in all).
// The Detector keeps per page its place and keyword ids: on en-dev its
// default cascades and records take 1,041 bytes per kept page against 354
// for one cascade, most of it the fixed cost of an empty cluster detector
// (25 KB for the default cascade, k per generation), which larger
// repositories amortise. Until its first fit it also holds each page's
// *Document (37 KB per en-dev page, 13 KB of it HTML) to move it; a
// snapshot (WriteTo) holds features, not pages.
//
// # When not to use it
//
//   - When every duplicate counts: a near-duplicate whose keywords send it
//     elsewhere is missed (up to 2 points of recall at p = 1, 1 at p = 2).
//   - In front of a detector that is already sub-linear: the SimHash-first
//     cascade answers from its k-bit index in 2–5 µs at every size measured
//     (BenchmarkCorpusMatch, "cascade-simhash-first": 3.1 µs at 1,600
//     pages), faster than the clustered sentence-first cascade. Clustering
//     pays where the first stage scans a share of the repository (the
//     sentence filter, shingle comparisons, edit distances).
//   - For small repositories (below FitAt, one detector): nothing to save,
//     and k empty cluster detectors to pay for.
//   - For pages whose most frequent words are site boilerplate: they cluster
//     by site, not by topic, and a copy in another site's template lands in
//     another cluster; separate content from template first.
//   - With Matching and modes larger than documents: one cluster takes most
//     pages.
//
// A KModes and a Detector are safe for concurrent use; their snapshots are
// described in docs/cluster.md.
package cluster
