// Package cluster splits a repository of pages into clusters by their top
// keywords with k-modes, so that a new page is compared only with the pages
// of its most similar clusters: the "enhanced approach" of J. Prasanna Kumar
// and P. Govindarajulu, "Near-Duplicate Web Page Detection: An Efficient
// Approach Using Clustering, Sentence Feature and Fingerprinting" (2012), §4,
// with the cosine similarity of Nandhu et al., "Webpage Duplication
// Detection using Machine Learning", §4.1. k-modes is Z. Huang's (Data
// Mining and Knowledge Discovery 2(3), 1998), initialised as F. Cao, J. Liang
// and L. Bai propose (Expert Systems with Applications 36(7), 2009) or as
// Huang does.
//
// # Method
//
// A document is represented by its top f keywords R (stems after stop-word
// removal; KeywordsOf). A cluster's mode M is the set of keywords most frequent
// among its documents. A document is as similar to a cluster as
//
//	s = |R ∩ M| / √(|R|·|M|)
//
// (Cosine), or, as an option, Huang's simple matching dissimilarity
// |R ∖ M| + |M ∖ R| (Matching). KModes.Fit chooses k initial modes, then
// assigns every document to its most similar mode and recomputes the modes
// until no document moves or MaxIter passes have run; Update folds one new
// document into the modes.
//
// The Detector keeps a detector per part of the repository. Given a fixed
// partition (Options.Partitioner: a KModes fitted on a sample, an
// ssm.Partitioner's domain × size buckets), it compares a new page within
// the parts the partition gives it. Without one it is the paper's clustered
// detector for a repository that grows from empty: it keeps every page in
// one detector until FitAt pages, then fits KModes and moves each page into a new detector of its cluster,
// and fits again at every doubling (in generations, or moving every page
// when Options.Source gives kept pages back). The detector each cluster
// keeps is the caller's (Options.NewDetector): the paper uses the cascade of
// a sentence-count filter and SimHash (see the Detector example). A new page
// is compared within its p most similar clusters of every generation, so it
// meets about p·n/k of the n kept pages. Stats reports either's clusters.
//
// # Defaults
//
// k = DefaultK (16) clusters, f = DefaultKeywords (4) keywords per page,
// modes of DefaultModeKeywords (200) keywords, Cao's deterministic
// initialisation, Cosine, p = 1 probed cluster, the first fit at
// DefaultFitAt (256) kept pages and a fit at every doubling (DefaultGrowth).
// They were chosen by streaming labelled corpora through the clustered
// cascade; docs/cluster.md has the measurements, and docs/DEPARTURES.md
// where the defaults depart from the paper (modes larger than a page's
// keywords, f, refits, multi-probe).
//
// # Cost
//
// A fit costs O(n·k·f) bit tests per pass; Partition costs k·f bit tests. A
// Detector's Match is one Partition per generation (about log2(n/FitAt) of them)
// plus its cluster detectors' Match over about p·n/k pages. The Detector is
// locked during a fit. A model holds k bitsets over the keywords seen; the
// Detector keeps per page its place and keyword ids, and, until its first
// fit only, each page's *Document. docs/BENCHMARKS.md has the timings.
//
// # When not to use it
//
//   - When every duplicate counts: a near-duplicate whose keywords send it
//     to another cluster than its original's is missed; probing p > 1
//     clusters recovers most of them at p times the comparisons.
//   - In front of a detector that is already sub-linear, such as SimHash's
//     k-bit index: clustering pays where the cluster detector scans a share
//     of the repository (the sentence-count filter, shingle comparisons,
//     edit distances).
//   - For small repositories (below FitAt there is one detector): nothing to
//     save, and k empty cluster detectors to pay for at every fit.
//   - For pages whose most frequent words are site boilerplate: they cluster
//     by site, not by topic; separate content from template first.
//   - With Matching and modes larger than documents: one cluster takes most
//     pages.
//
// A KModes and a Detector are safe for concurrent use. Their snapshots
// (WriteTo, ReadFrom) are described in docs/cluster.md.
package cluster
