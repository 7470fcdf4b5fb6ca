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
// clusters stay as fitted. Detector does the same and also refits: it keeps
// every page in cluster 0 until the repository reaches FitAt pages, then fits
// KModes on the kept pages' keywords and moves each page into a new detector
// of its cluster (by default the cascade of Kumar and Govindarajulu §3:
// sentence count, then SimHash), and refits at every doubling. Moving a page
// means adding it again, so the Detector keeps the pages (their *Document)
// unless DetectorOptions.Source can read them back.
//
// # Departures from the papers
//
//   - Modes of 200 keywords (ModeKeywords), not f: the paper's modes, as
//     large as a document's representatives, describe a cluster of hundreds
//     of pages by a handful of words; on the labelled corpora they lose 1–2
//     points of F1 at p = 1 where 100–400 keywords lose none (table below).
//     ModeKeywords = Keywords gives the paper's modes.
//   - f = 5 (the worked example shows 10 keywords per page, Tables 1 and 4;
//     the paper prints no f behind its figures): 3–7 do equally well, 10
//     loses recall.
//   - Ties go to the lowest cluster index; an empty cluster takes the
//     document least similar to its mode; modes are updated after each pass
//     (the papers' steps), not after each move as in Huang's original.
//   - The repository grows: the Detector refits at FitAt and every doubling
//     (Growth) instead of clustering a fixed database once. Between refits
//     the modes stay as fitted unless Incremental is set, so that a
//     near-duplicate with its original's keywords goes where the original
//     went (with Incremental, recall at p = 1 falls by up to 3 points with
//     the paper's modes).
//   - Multi-probe (p > 1): a near-duplicate whose keywords send it to another
//     cluster than its original is lost at p = 1; probing the p most similar
//     clusters recovers most of them at p times the comparisons.
//
// # Defaults and how they were chosen
//
// k = DefaultK (16), f = DefaultKeywords (5), modes of DefaultModeKeywords
// (200) keywords, Cao, Cosine, p = 1, the first fit at DefaultFitAt (256)
// kept pages and a refit at every doubling. They come from streaming the
// four labelled corpora (en-dev, zh-dev, en-dev-hard, zh-dev-hard; 5,258
// pages) through the clustered cascade over a grid of k, f, mode size, fit
// size and p (TestCorpusSweep): mean F1 over the four corpora, and the
// share of the kept pages a new page is compared with (Σ n_j² / n²):
//
//	                                   p = 1            p = 2
//	cascade alone                      0.917 (100 %)
//	k = 16, f = 10, modes of f         0.905 (10 %)     0.914 (20 %)
//	k = 16, f = 5,  modes of f         0.908 (15 %)     0.911 (29 %)
//	k = 16, f = 10, modes of 200       0.913 (7 %)      0.915 (14 %)
//	k = 16, f = 5,  modes of 200       0.918 (7 %)      0.919 (14 %)
//	k = 4 / 8 / 32 / 64, f = 5, 200    0.913 / 0.915 / 0.914 / 0.916
//	                                   (32 / 13 / 4 / 2 %)
//
// Differences under 0.005 are within the noise of corpora of 400–1,200 kept
// pages. With modes larger than documents Matching sends pages to the
// clusters of smallest modes (it counts keywords in one set and not the
// other), so with Matching the modes default to f keywords.
//
// # Measured
//
// Time per new page against the repository size, with and without
// clustering (Figs. 6 and 8 of Kumar and Govindarajulu), on en-dev
// (BenchmarkCorpusMatch: 300 held-out pages matched against the first n of
// the others, all kept; AMD EPYC, one core, medians of 6):
//
//	n        cascade alone   k = 16, p = 1       p = 2
//	100         5.8 µs        0.67 µs (6 pages)   1.4 µs (13)
//	400        29.0 µs        2.0 µs (25)         4.0 µs (50)
//	1,600     137   µs        8.5 µs (107)       16.1 µs (215)
//
// The sentence-count filter returns a share of the repository, so the
// cascade alone grows linearly; the clusters cut the pages it meets 15-fold.
// Precision / recall / F1 with and without clustering (Fig. 7), streaming
// each corpus at the defaults (TestCorpusClaims):
//
//	corpus        cascade alone         k = 16, p = 1         p = 2
//	en-dev        0.933/0.967/0.949     0.962/0.947/0.954     0.948/0.959/0.954
//	zh-dev        0.997/0.938/0.967     0.997/0.917/0.955     0.997/0.925/0.960
//	en-dev-hard   0.883/0.862/0.872     0.917/0.839/0.876     0.902/0.853/0.877
//	zh-dev-hard   0.863/0.898/0.880     0.884/0.887/0.885     0.878/0.891/0.884
//
// Clustering raises precision (fewer unrelated pages are compared) and
// lowers recall. Every duplicate lost at p = 1 had its original kept in
// another cluster; on en-dev 10 of the 19 were in the page's second most
// similar cluster and 3 in its third, so p = 2 and p = 3 recover them.
// docs/cluster.md has the details.
//
// # Cost and memory
//
// Fit: O(n·f) to build the vocabulary and densities, then O(n·k·f) per pass
// (bit tests) plus O(n·f) to recount the modes; Cao adds O(n·k·f), Huang
// O(k·(V + n·f)) per run. 10,000 pages take 28 ms at k = 8 (15 passes) and
// 70 ms at k = 32 (BenchmarkFit); Huang with 10 runs on two cores 275 ms.
// Assign: k·f bit tests, 0.26 µs at k = 8 and 0.55 µs at k = 32
// (BenchmarkAssign). Detector.Match: Assign plus the cluster detector's
// Match over about n/k pages. A refit costs the fit plus one Add per kept
// page, under the Detector's lock.
//
// A model holds k bitsets of V bits (V the number of distinct keywords
// seen), each cluster's keyword counts (at most n·f entries in all) and the
// vocabulary. The Detector keeps per page its cluster and keyword ids (about
// 270 bytes beside the cluster detector's own record, measured on en-dev)
// and, without a Source, the page's *Document for refits: the raw page and
// its preprocessed Page, 37 KB per en-dev page (13 KB of HTML). Give a
// Source to keep memory per page small; a snapshot (WriteTo) holds
// features, not pages, so a Detector read from one needs a Source to refit
// (ErrNoSource otherwise; Stats reports an automatic refit that failed).
//
// # When not to use it
//
//   - When every duplicate counts: a near-duplicate whose keywords send it
//     elsewhere is missed (about 2 points of recall at p = 1, 1 at p = 2).
//   - In front of a detector that is already sub-linear: the SimHash-first
//     cascade answers from its k-bit index in 2–4 µs at every size
//     measured (BenchmarkCorpusMatch, "cascade-simhash-first": 2.6 µs at
//     1,600 pages), faster than the clustered sentence-first cascade. Clustering pays where the first
//     stage scans a share of the repository (the sentence filter, shingle
//     comparisons, edit distances).
//   - For small repositories (below FitAt, one cluster): nothing to save.
//   - For pages whose most frequent words are site boilerplate: they cluster
//     by site, not by topic, and a copy in another site's template lands in
//     another cluster; separate content from template first.
//   - With Matching and modes larger than documents, or with Incremental,
//     routing drifts (see above).
//
// A KModes and a Detector are safe for concurrent use; their snapshots are
// described in docs/cluster.md.
package cluster
