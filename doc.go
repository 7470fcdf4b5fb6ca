// Package neardup tells a crawler, a search index or a data pipeline whether a
// page it just fetched nearly duplicates one it already keeps: mirrors,
// reprints, pages that differ only in ads, timestamps, a few edited words or a
// new site template.
//
// A page is preprocessed once into a Document (NewDocument, NewDocumentContent
// with the HTTP Content-Type); every detector reads the features it needs from
// the Document, and each feature (fingerprint, sentence count, shingles, ...)
// is computed once however many detectors read it (see Feature).
//
// Recommended is the detector to use when in doubt: MinHash sketches (A. Z.
// Broder, "On the resemblance and containment of documents", SEQUENCES 1997)
// of each page and of its content, the page less the text blocks its site
// repeats, learnt per host as pages arrive. The methods of the papers the
// library implements are packages of their own, each behind the same Detector
// interface:
//
//	preprocess  HTML or text -> decoding -> visible text -> sentences -> tokens -> stop words -> stems -> terms
//	sentence    sentence-count filter |S_d - S_k| <= T_s       (Kumar & Govindarajulu §3.2a)
//	simhash     64-bit SimHash fingerprint and detector        (Kumar & Govindarajulu §3.2b; Charikar, STOC 2002)
//	simhash/hamming  exact index of codes within k bits        (Manku, Jain & Das Sarma, WWW 2007)
//	shingle     multiple k-shingle weighted dissimilarity       (Khan, Ahmed & Almistarihi, IJIES 2019)
//
// where Kumar & Govindarajulu is "Near-Duplicate Web Page Detection: An
// Efficient Approach Using Clustering, Sentence Feature and Fingerprinting".
//
// Every Match carries a Score that is a distance (0 for identical features,
// lower is closer) and the Measure it is in. A Cascade composes detectors: the
// first stage finds candidates through its own index, each later stage
// verifies only the survivors (Kumar & Govindarajulu: sentence count, then
// SimHash). A Partitioner sends a document to one or a few parts of the
// repository, each with its own detector (see Partitioned); a Window keeps
// only the most recent documents of a detector.
//
// Detectors are safe for concurrent use unless their documentation says
// otherwise, and have an atomic "add if new" (MatchAdder) and a re-fetch
// (Replacer). Every detector saves what it keeps and reads it back
// (Persister, SaveFile, LoadFile) in a versioned, checksummed format. Errors
// are sentinel values tested with errors.Is.
package neardup
