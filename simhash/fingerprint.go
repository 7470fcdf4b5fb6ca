package simhash

import "math/bits"

// Fingerprint is a 64-bit SimHash fingerprint (f = 64, seed 000 §3.2b).
// Bit i is 1 iff the weighted sum of bit i over the document's keyword hashes
// is > 0.
type Fingerprint uint64

// Distance returns the Hamming distance b_f between a and b: the number of
// bit positions in which they differ (seed 000 §3.3).
func Distance(a, b Fingerprint) int {
	return bits.OnesCount64(uint64(a ^ b))
}
