// Package simhash implements the SimHash fingerprint and near-duplicate
// detector of J. Prasanna Kumar and P. Govindarajulu, "Near-Duplicate Web
// Page Detection: An Efficient Approach Using Clustering, Sentence Feature and
// Fingerprinting" (§3.2b, §3.3, Fig. 2), after M. Charikar, "Similarity
// estimation techniques from rounding algorithms", STOC 2002.
//
// # The method
//
// A page's fingerprint has f = 64 bits. Every keyword with weight w (its
// term frequency) is hashed to 64 bits (Hash: xxhash64); w is added to a sum
// V[i] for each bit i set in the hash and subtracted for each bit clear, and
// bit i of the fingerprint is 1 iff V[i] > 0 (Builder, Sum). Similar pages
// share most keywords, so most sums keep their sign and the fingerprints
// differ in few bits. Two pages are near-duplicates when the Hamming distance
// b_f of their fingerprints (Distance) is at most T_B.
//
// Of gives a Document's fingerprint, from the terms of its preprocess.Page
// (stems, stop words removed); FromText gives the same fingerprint for a
// plain-text string. ParseBinary and Fingerprint.String read and write the
// 64-digit binary form the paper prints.
//
// A Detector keeps fingerprints and finds the kept ones within T_B bits of
// a new page's. Up to T_B = 16 it asks an exact k-bit index (package
// simhash/hamming: permuted block tables, after Manku, Jain and Das Sarma,
// "Detecting Near-Duplicates for Web Crawling", WWW 2007), so a Match does
// not compare with every kept page; beyond 16 it scans them. It is safe for
// concurrent use, implements neardup.Detector, Verifier, Remover, MatchAdder,
// Replacer and Persister, and scores matches in bits (Bits).
//
// # Defaults
//
// T_B is DefaultMaxDistance, 8 bits, unless Options.MaxDistance says
// otherwise (Identical for T_B = 0: identical fingerprints only).
// The paper's example, and Manku et al., use 3 bits; with this package's
// preprocessing 3 bits misses many of the duplicates in labelled crawls,
// whose best T_B lies between 5 and 10 bits. Where this package departs from
// the paper, and why, is in docs/DEPARTURES.md of the repository.
//
// The index is sized for Options.ExpectedSize kept pages
// (DefaultExpectedSize, 65,536) within Options.IndexBytesPerEntry bytes per
// page (DefaultIndexBytesPerEntry, 64). It stays exact at any size; far
// beyond ExpectedSize it gets slower, so size it for the repository you
// expect. A kept page costs its index entry, its ID and a map entry; a
// snapshot (WriteTo) keeps the ID and 8 bytes. Speed and memory are
// measured in docs/BENCHMARKS.md, with the commands that measure them.
//
// # When not to use it
//
// SimHash over whole-page keywords sees a bag of words. A short page inside
// a large site template is dominated by the template, so two different
// pages of one template can land within T_B; strip templates first, or use
// a method that compares sentences or shingles. Very short pages (a few
// dozen words) give unstable fingerprints. Word order is ignored: a page
// with its paragraphs reordered is an exact match. A fingerprint says how
// many bits differ, not how much text: T_B cannot be read as a share of
// the page, so choose it on labelled pages of your own.
package simhash
