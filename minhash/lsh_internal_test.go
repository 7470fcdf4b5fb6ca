package minhash

import (
	"math/rand/v2"
	"testing"
)

// NewSignature's i-th value is the least high half of a_i·x + c_i over the
// elements x, for every set size (records of up to 16 elements take four
// hash functions at a time, larger sets another loop) and every k (a
// multiple of four or not), the empty set all 0xFFFFFFFF. Catches a hash
// function given to the wrong position, a position left out of the last
// group of four, and a minimum over the low half.
func TestSignatureDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var sig Signature
	for n := range 21 {
		el := make([]uint64, n)
		for i := range el {
			el[i] = r.Uint64()
		}
		for _, k := range []int{1, 3, 4, 5, 7, 128, 373} {
			sig = NewSignature(k, el, sig)
			if len(sig) != k {
				t.Fatalf("%d elements, k = %d: %d values", n, k, len(sig))
			}
			for i, got := range sig {
				a, c := signatureHash(i)
				want := uint32(0xFFFFFFFF)
				for _, x := range el {
					want = min(want, uint32((x*a+c)>>32))
				}
				if got != want {
					t.Fatalf("%d elements, k = %d: value %d is %#x, want %#x", n, k, i, got, want)
				}
			}
		}
	}
}
