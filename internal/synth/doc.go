// Package synth generates a labelled web crawl for measuring near-duplicate
// detectors: many hosts, each with its own heavy site template, boilerplate
// shared across hosts, English and Chinese articles, and near-duplicates of
// the kinds a crawler meets, each page labelled with its group.
//
// # The crawl
//
// Hosts: page i's host is the k-th host with probability ∝
// (ZipfOffset+k)^-ZipfExponent (1.4 and 20 by default), over an unbounded
// number of hosts (or Options.Hosts), so the hosts seen grow with the crawl
// and most of them show fewer than five pages at every length: the long
// tail of a real crawl, where a detector meets most hosts cold. About a
// quarter of the hosts (Options.Chinese) write in Chinese.
//
// Templates: each host has its own, built from its rank and the seed: a
// header with the site's name and a navigation menu (<nav><ul><li><a>), a
// sidebar of link lists, a related-articles list, a footer with links and a
// copyright or licence text, often a cookie notice. Each part is a semantic
// element (nav, aside, footer, section) on some hosts and a <div> with a
// generic class, or none, on others, so that markup alone does not find all
// of it. Shared boilerplate comes from small pools that many hosts draw
// from: CMS and theme credits, cookie notices, share buttons, ads and
// newsletter boxes. An English template shows 290–470 words (5th to 95th
// percentile), a page's variable parts (ads, related links) included.
//
// Articles: a title, a byline and paragraphs written by a word model of the
// sample corpora (examples/evaluate/testdata; see gen_model.go) with a
// topic of their own: words drawn by frequency, after the previous word, or
// from the topic. A share of them (Options.Short, 15 %) has 50–150 words,
// less than its template; the others are log-normal around
// Options.MedianWords (450). Distinct articles share next to no text, also
// on one host (where only their template is common: the hard false
// positive).
//
// With Options.Text Bigram the articles walk the model's bigrams instead
// (nine words in ten follow the previous word), so that 4-word phrases recur
// across unrelated pages as common phrases do in a large crawl: a sketch
// index whose candidates share one phrase grows with the repository on it.
//
// Near-duplicates: a share of the pages (Options.Duplicates, 15 %) copies an
// earlier page, picked uniformly, as one of the Kinds Refetch, Retemplate,
// Boilerplate, Swap, Edit or Reoffer (Options.Mix). Every page of a group
// nearly duplicates the group's first page, a Distinct page, which came
// earlier; a re-offer repeats an earlier page's bytes and ID.
//
// # Records
//
// NewRecords writes short records instead of pages — product titles and log
// lines, a share of them planted copies of an earlier record at a Jaccard
// similarity of their word sets drawn from [0.5, 1] — for measuring a
// threshold index (minhash.LSH); Pairs finds all the pairs above a
// similarity exhaustively.
//
// # Use
//
// New validates the options; Next streams the pages in order, At gives any
// page, All ranges over them, and WriteCorpus writes the crawl as a labelled
// corpus directory (manifest.tsv: id, url, group, file, kind, original).
// Page i depends on the seed, the options other than Pages, and i alone: a
// crawl is a prefix of every longer one, and the same seed and options give
// the same bytes in every run. The generator owns its random numbers
// (SplitMix64), so a new Go release does not change them; the few
// floating-point steps (host ranks, article lengths) might round
// differently on another architecture.
//
// # Cost
//
// Next's time and allocation per page are in docs/BENCHMARKS.md. Nothing
// is kept per page: a crawl holds the word models (about 0.4 MB) and at
// most Options.HostCache host templates (about 6 KB each, 1024 by
// default); a host evicted from the cache is built again from its seed
// when it comes back. A benchmark that measures a detector's heap should
// let the crawl go (or read its baseline with the crawl warm).
//
// # When not to use
//
// The text is word salad with realistic word frequencies, not language:
// it measures what detectors do with templates, boilerplate and copies,
// not how they handle real prose, syntax or translation. Use the labelled
// real corpora for accuracy that is to be quoted.
package synth
