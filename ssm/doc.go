// Package ssm detects near-duplicate pages by the similarity score measure
// (SSM) of MD Zaheer, V. A. Narayana and Gaddameedhi Sreevani, "A Strategy
// for Near-Deduplication Web Documents Considering Both Domain & Size of the
// Document" (2019), §3.6–3.7 and §4, Tables 3.1–3.12.
//
// # Keyword tables
//
// A page's table (Table, TableOf) holds its top N keywords, N = 10 as in the
// paper, with their term frequencies: the analysed terms of the page
// (preprocess.Page.Top: lower-cased, stop words removed, stemmed; Han text as
// character bigrams), indexed 1..N by count descending, ties by text
// ascending.
//
// # The measure
//
// For the new page's table T1 and a kept page's T2 (Eqs. (3)–(6), natural
// logarithms):
//
//	keyword in both, tf x at index a in T1, tf y at index b in T2:
//	    S_Dc  = ln(x/y) · |1 + (a − b)|
//	keyword only in T1, tf x:  S_DT1 = ln(x) · (1 + |T2|)
//	keyword only in T2, tf y:  S_DT2 = ln(y) · (1 + |T1|)
//	SSM = (ΣS_Dc + ΣS_DT1 + ΣS_DT2) / ((|T1| + |T2|) / 2)
//
// SSM(T1, T2) (the function SSM; the argument order is new page, kept page)
// is 0 for equal tables, is not symmetric, and is negative when the common
// keywords are rarer in the new page and outweigh the rest. Explain returns
// every term, as the paper's tables print them. Keywords are compared by a
// 64-bit hash of their text, so SSM is one merge of two sorted arrays of N
// entries and does not allocate.
//
// # Detector
//
// Detector keeps tables and, as the paper prescribes, compares a new page
// only with the kept pages that share at least one of its top keywords (an
// inverted index from keyword to kept pages). A kept page matches when its
// SSM is below the cut-off: |SSM| < Cutoff with Rule Magnitude (the
// default), or SSM < Cutoff with Rule Signed, the paper's sentence read
// literally, under which any negative SSM is a near-duplicate. Match.Score
// is |SSM| (Measure AbsSSM): a non-negative distance, 0 for a page matching
// itself.
//
// # Defaults
//
// N = DefaultN (10), Rule Magnitude, Cutoff = DefaultCutoff (7). The paper
// prints no cut-off, and its worked examples, with term frequencies in the
// hundreds, put it between 19.59 and 52.64, where real pages (whose top
// keywords mostly occur fewer than 30 times) match unrelated pages. The
// cut-off was chosen on labelled corpora, leaving one corpus out; Chinese
// pages tolerate a larger one than English pages. docs/BENCHMARKS.md has
// what it gives on each corpus, and docs/DEPARTURES.md how the package reads
// the paper where it is ambiguous or wrong.
//
// # Partitions (§4)
//
// Partitioner splits the repository by domain (each a keyword vocabulary the
// caller supplies) and by the raw page's size (1–64 KB, 65–128 KB, ≥ 129 KB
// by default), and a cluster.Detector with it as Options.Partitioner keeps a
// detector of any method in each part. A page within Margin bytes of a size boundary also probes the
// neighbouring bucket. Partitions cut the comparisons per page and cost
// recall: a near-duplicate whose keywords lean to another domain than its
// original's, or whose size crosses a boundary, is never compared with it.
//
// # Cost
//
// A kept page costs its table (copies of its N keywords, not the page they
// came from), its index entries and its ID; docs/BENCHMARKS.md has the
// bytes per kept page. A Match compares the new page with every kept page that shares one of its
// keywords, so pages whose keywords are common words meet a large share of
// the repository.
//
// # When not to use it
//
// SSM sees only ten keywords and their counts: two different pages about one
// subject in one template (two manual pages on neighbouring commands) share
// their top keywords and frequencies, and a page padded with boilerplate
// changes them. A page whose top keywords all occur once scores 0 against any
// page it shares one with (ln 1 = 0), so very short pages are weak evidence.
// Shingle- or fingerprint-based methods (shingle, simhash, minhash) separate
// those better.
package ssm
