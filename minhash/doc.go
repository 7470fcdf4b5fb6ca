// Package minhash finds near-duplicate web pages by the Jaccard similarity
// of their word shingles, estimated from MinHash sketches, with each site's
// template discounted. Its Detector is the library's recommended detector:
// it needs no tuning and takes pages whose near-duplicates differ by site
// templates, ads, timestamps, edits or a few sentences.
//
// # Sketches and the records index
//
// A Sketch is a bottom-k MinHash sketch (A. Z. Broder, "On the resemblance
// and containment of documents", 1997; the bottom-k form of E. Cohen and
// H. Kaplan, 2007): the k smallest distinct 32-bit hashes of a set's
// elements, made by SketchOf from tokens (their w-token shingles are the
// elements). Jaccard estimates the similarity of two sets from their
// sketches. To find, among many records, those within a Jaccard threshold
// of a query, an LSH files their Signatures (k aligned MinHash values,
// SignatureOf) in bands. Records that are not web pages — titles, product
// rows, log lines — are sketched, compared and indexed the same way.
//
// # The detector
//
// For each page the Detector keeps two sketches of 4-token shingles of the
// page's analysed tokens (preprocess.Page.Tokens): of the whole page, and of
// its content — the blocks its markup does not mark as navigation, header,
// footer or sidebar and that are not mostly link text, and the link entries
// of a table of contents, with the block each hash came from. On a page
// whose markup marks its main content (preprocess.Block.Main: <main>,
// role=main or an id such as content; else an <article> or a class such as
// entry-content that holds a paragraph or more), only the blocks inside it
// are content: what a site puts around the text
// it marks — a blog's list of recent posts, a wiki's sidebar — is left out
// however it is marked up, so that it cannot outweigh a short post. A page
// with fewer than 8 content tokens takes its lines of link text too (inside
// its main content, when it marks one), then, when it marks none, its whole
// text. The content of a
// page is its content sketch less the blocks that are template: in the
// content sketches of TemplatePages (3) kept pages of its host, or template
// on two hosts (a generator's or a theme's text, so that a host's first
// pages lose it too). The template model counts kept pages only, so
// offering a page again, or a near-duplicate that is not kept, teaches it
// nothing, and it is rebuilt from the kept pages when a snapshot is read.
// The first verdict of a page not kept (the kept page it matched, and how
// far) is remembered by the hash of its text and written to snapshots, so a
// page offered again gets that verdict however the template has grown since.
//
// Two pages are near-duplicates when their contents are closer than
// ContentDistance (0.62, in Jaccard distance), or their whole pages closer
// than PageDistance (0.5) and their contents closer than ContentGuard
// (0.7); two pages of one host, only when their whole pages are also closer
// than HostPageDistance (0.55: far apart as wholes, they differ in what the
// markup calls furniture, such as a table of contents). When the markup of
// two pages disagrees on what is content, a content is also compared with
// the other's whole page. A page with the same text as a kept one is found
// through a hash;
// other candidates through an index of each kept page's eight smallest
// content hashes (Options.Keys) in which a hash shared by more than 256
// pages (Options.MaxPostings) stops being a key. A new page looks up its sixteen smallest: a kept page sharing two
// of them is a candidate, and a page of its own host sharing only one,
// when at most four pages are filed under it (as the host's template is
// learnt, a page's keys shift, so two pages of one host may keep one key in
// common). A phrase (a common phrase, boilerplate not yet template, or
// a rarer one) is among two unrelated pages' smallest hashes by chance the
// more often the more pages there are; with a second coincidence required,
// the pages a new page is compared with do not grow with the repository
// (docs/BENCHMARKS.md has the measurements at 10⁴–10⁶ pages, on a crawl
// whose text recurs in 4-token phrases too).
// When a block becomes template on a host, the host's kept pages holding it
// are filed again under their new content.
//
// Two contents small enough to be sketched whole are compared as if their
// union held one token's shingles more, so that two thin generated pages
// sharing a phrase around different identifiers are not near-duplicates.
// Match.Score is the smaller of the content and page distances (Measure
// JaccardDistance); Explain gives both and the rule that decided.
//
// # When not to use it
//
// Pages of a few words (titles, one-line records) have too few shingles for
// 4-token shingling: sketch them with SketchOf of width 1 or 2 instead, and
// index them with an LSH. The detector compares text, not meaning: a
// translation or a paraphrase is not a near-duplicate. A fleet of crawlers
// sharing one repository uses minhash/redisindex, which keeps the pages'
// records, the index and the template model in Redis and gives the
// Detector's verdicts.
package minhash
