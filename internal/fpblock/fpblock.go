// Package fpblock splits 64-bit fingerprints into the k+1 blocks of Manku,
// Jain and Das Sarma ("Detecting Near-Duplicates for Web Crawling", WWW
// 2007): two fingerprints within k bits agree exactly in at least one
// block, so a store keyed by (block, value) finds every near fingerprint.
// The fleet backends (simhash/redisindex, simhash/pgindex) share it so that
// their keys are the same blocks.
package fpblock

// Block is bits Shift .. Shift+Width−1 of a fingerprint.
type Block struct{ Shift, Width uint }

// Split returns the k+1 blocks of a 64-bit fingerprint, in order from bit
// 0, as equal as they can be (the first 64 mod (k+1) one bit wider).
func Split(k int) []Block {
	nb := uint(k + 1)
	bs := make([]Block, 0, nb)
	var shift uint
	for i := range nb {
		w := 64 / nb
		if i < 64%nb {
			w++
		}
		bs = append(bs, Block{shift, w})
		shift += w
	}
	return bs
}

// Value returns the bits of fp in b, shifted down to bit 0.
func (b Block) Value(fp uint64) uint64 { return fp >> b.Shift & (1<<b.Width - 1) }
