// Package neardup tells a crawler, a search index or a data pipeline whether a
// page it just fetched nearly duplicates one it already keeps: mirrors,
// reprints, pages that differ only in ads, timestamps, a few edited words or a
// new site template.
//
// The library is a set of small packages, each implementing one published
// method behind the same Detector interface, so a caller assembles the
// pipeline it needs:
//
//	preprocess  HTML or text -> visible text -> sentences -> tokens -> stop words -> stems -> term frequencies
//	sentence    sentence-count filter |S_d - S_k| <= T_s            (Kumar & Govindarajulu, seed 000 §3.2a)
//	simhash     64-bit Charikar fingerprint, Hamming distance, exact k-bit Index
//	            (seed 000 §3.2b, 3.3; Manku, Jain & Das Sarma, WWW 2007)
//	shingle     multiple k-shingle weighted dissimilarity            (Khan et al., seed 004)
//
// The design also names editdist (feature string and largest common
// characters overlap, seed 001), ssm (top-N keyword similarity score measure,
// seed 002) and cluster (KModes partitioning, seeds 000 §4 and 003 §4.1);
// they implement the same interfaces and arrive in later releases.
//
// A page is preprocessed once into a Document; every detector reads the
// features it needs from the Document, and each feature (fingerprint, sentence
// count, shingles, ...) is computed once however many stages read it (see
// Feature).
//
// A Cascade composes detectors: the first stage finds candidates through its
// own index, each later stage verifies only the survivors (seed 000: sentence
// count, then SimHash). A Partitioner sends a document to one or a few parts
// of the repository, each with its own detector (see Partitioned).
//
// Detectors are safe for concurrent use unless their documentation says
// otherwise. Errors are sentinel values tested with errors.Is.
package neardup
