// Package neardup tells a crawler, a search index or a data pipeline whether a
// page it just fetched nearly duplicates one it already keeps: mirrors,
// reprints, pages that differ only in ads, timestamps, a few edited words or a
// new site template.
//
// This package holds what every method shares, and no method of its own:
//
//   - the contracts: Document (a page preprocessed once, whose features are
//     computed once however many detectors read them: see Feature), Match and
//     its Measure, the Detector interface (Match, Add) and the optional
//     abilities a detector may have: Verifier (check candidates found
//     elsewhere), Remover, MatchAdder (an atomic "add if new"), Replacer (a
//     page fetched again) and Persister (save and read back what is kept);
//   - combinators over any detectors: Cascade (the first stage finds
//     candidates, the later ones verify them) and Window (keep only the
//     most recent pages); cluster.Detector keeps one detector per part of
//     the repository (clusters it fits, or a caller's fixed partition);
//   - persistence: SaveFile and LoadFile write and read a Persister's
//     versioned, checksummed snapshot atomically, and WithSettings ties a
//     snapshot to the preprocessing its features came from.
//
// # Which detector
//
// minhash.Detector is the recommended detector: it needs no tuning, discounts
// each site's template, and finds pages that differ by ads, timestamps, edits
// or a few sentences (minhash.New(minhash.Options{})). The other packages
// implement the methods of particular papers, for comparison with them or for
// their particular strengths:
//
//	preprocess          HTML or text -> decoding -> visible text -> sentences -> tokens -> terms (used by every method)
//	minhash             MinHash sketches of page and content, template discounted (Broder 1997): the recommended detector
//	simhash             64-bit SimHash fingerprints within T_B bits (Kumar & Govindarajulu §3.2b; Charikar 2002)
//	simhash/hamming     exact index of 64-bit codes within k bits (Manku, Jain & Das Sarma 2007), no Detector
//	sentence            sentence-count filter |S_d - S_k| <= T_s, a cascade's filter stage (Kumar & Govindarajulu §3.2a)
//	shingle             multiple k-shingle weighted dissimilarity (Khan, Ahmed & Almistarihi 2019)
//	editdist            edit distance of the characters before each 。, for Chinese pages (An & Cheng)
//	ssm                 similarity score of top-keyword tables within domain x size buckets (Zaheer, Narayana & Sreevani 2019)
//	cluster             k-modes clusters of top keywords, one detector per cluster (Kumar & Govindarajulu §4)
//	minhash/redisindex  the minhash detector's repository kept in Redis, shared by a fleet of crawlers (a module of its own)
//	simhash/redisindex  SimHash fingerprints kept in Redis, shared by a fleet of crawlers (a module of its own)
//	simhash/pgindex     SimHash fingerprints kept in PostgreSQL, shared by a fleet of crawlers (a module of its own)
//
// where Kumar & Govindarajulu is "Near-Duplicate Web Page Detection: An
// Efficient Approach Using Clustering, Sentence Feature and Fingerprinting".
// Each package's documentation gives its defaults and when not to use it;
// docs/BENCHMARKS.md gives the measurements, docs/DEPARTURES.md where the
// library departs from a paper.
//
// The detectors of minhash, simhash, sentence, shingle, editdist, ssm and
// cluster are Verifiers, Removers, MatchAdders, Replacers and Persisters.
// The fleet backends (simhash/pgindex, simhash/redisindex,
// minhash/redisindex) are all but Persisters: what they keep is on the
// server. A Cascade, a Window and a cluster.Detector have every one of these
// methods, and each works when the detectors it holds have the ability it
// needs (see each method).
//
// # Contracts
//
// Every method of the detector interfaces takes a context.Context first;
// a server backend bounds and cancels its call with it (see Detector).
// Every Match carries a Score that is a distance (0 for identical features,
// lower is closer) and the Measure it is in. Detectors are safe for
// concurrent use unless their documentation says otherwise. MatchOrAdd and
// Replace are one step each: two concurrent near-duplicates are never both
// kept, and a page offered again under its own kept ID is answered
// "added" (MatchAdder), never a near-duplicate of itself. IDs are 1 to
// MaxIDLen bytes. Errors wrap sentinel values (ErrNilDocument,
// ErrNoFeatures, ErrInvalidOption, ErrInvalidID, ErrDuplicateID,
// ErrUnknownID, the snapshot errors and preprocess's errors) tested with
// errors.Is.
//
// # A crawler
//
// Preprocess each fetched page once (NewDocument with the HTTP
// Content-Type; preprocess.ReadPage reads a response body within bounds). A
// page fetched again under its own URL is known when what is kept under that
// URL still matches it; otherwise Replace keeps it in place of the old
// version, unless it now copies another kept page:
//
//	doc, err := neardup.NewDocument(pipe, url, url, contentType, body)
//	...
//	if ms, err := det.Verify(ctx, doc, []neardup.Match{{ID: url}}); err == nil && len(ms) == 1 {
//		return // known and unchanged
//	}
//	matches, kept, err := det.Replace(ctx, doc)
//
// Save what is kept when the crawler stops (SaveFile) and read it back when
// it starts (LoadFile); a snapshot holds features, not pages, so read it back
// with the same preprocessing (WithSettings checks that).
package neardup
