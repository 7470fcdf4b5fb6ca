package hamming

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// AllPairs calls fn(i, j, distance) once for every pair of fps with i < j and
// Hamming distance at most k, for offline deduplication of a whole set. Pairs
// come in no particular order. It uses the same block tables as Index, built
// one at a time (16 bytes per fingerprint of scratch memory): each table is
// sorted, and only fingerprints sharing a table's key are compared, a pair
// being reported by the first table that keys on blocks where it agrees.
//
// k must be in 0..MaxDistance, or AllPairs returns an error wrapping
// ErrInvalidOption. AllPairs stops and returns the error when fn
// returns one, and returns ctx.Err() when ctx is done (checked every few
// thousand comparisons).
func AllPairs(ctx context.Context, fps []uint64, k int, fn func(i, j, distance int) error) error {
	if k < 0 || k > MaxDistance {
		return fmt.Errorf("hamming: AllPairs: k = %d not in 0..%d: %w", k, MaxDistance, ErrInvalidOption)
	}
	if uint64(len(fps)) > math.MaxUint32 {
		return fmt.Errorf("hamming: AllPairs: %d fingerprints, more than %d: %w", len(fps), uint32(math.MaxUint32), ErrInvalidOption)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l := pairsLayout(k, len(fps))
	type entry struct {
		v uint64
		i uint32
	}
	buf := make([]entry, len(fps))
	work := 0
	for t := range l.tables {
		tl := &l.tables[t]
		for i, f := range fps {
			buf[i] = entry{applySegments(tl.perm, uint64(f)), uint32(i)}
		}
		slices.SortFunc(buf, func(a, b entry) int { return cmp.Compare(a.v, b.v) })
		shift := uint(64 - tl.prefix)
		for s := 0; s < len(buf); {
			key := buf[s].v >> shift
			e := s + 1
			for e < len(buf) && buf[e].v>>shift == key {
				e++
			}
			for x := s; x < e; x++ {
				vx := buf[x].v
				for y := x + 1; y < e; y++ {
					diff := vx ^ buf[y].v
					d := bits.OnesCount64(diff)
					if d > k || !l.canonical(applySegments(tl.inv, diff), t, k) {
						continue
					}
					i, j := int(buf[x].i), int(buf[y].i)
					if i > j {
						i, j = j, i
					}
					if err := fn(i, j, d); err != nil {
						return err
					}
				}
			}
			work += (e - s) * (e - s + 1) / 2
			if work >= 1<<14 {
				work = 0
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			s = e
		}
	}
	return nil
}

// pairsLayout picks the blocks for AllPairs: the fewest sorts plus
// comparisons, memory being one table at a time.
func pairsLayout(k, n int) layout {
	if k == 0 {
		return newLayout(0, 1, 64)
	}
	nf := float64(max(n, 2))
	var best layout
	bestCost := math.Inf(1)
	for B := k + 1; B <= 32 && binomial(B, k) <= maxIndexTables; B++ {
		l := newLayout(k, B, 64)
		cost := 0.0
		for _, tl := range l.tables {
			cost += nf*math.Log2(nf) + nf*nf/math.Exp2(float64(tl.prefix+1))
		}
		if cost < bestCost {
			best, bestCost = l, cost
		}
	}
	return best
}
