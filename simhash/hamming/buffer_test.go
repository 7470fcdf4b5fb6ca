package hamming

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBufferChainHeads checks the chain heads' tags: walking from first
// reaches every entry of a chain whose tag is within k of the query's, and a
// chain of up to three entries none of whose tags is within k costs no walk.
// It checks the chain summaries likewise: they never rule out a chain with
// an entry whose low 15 bits are within k, and rule out a lone entry whose
// low bits are not.
func TestBufferChainHeads(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	for _, limit := range []int{256, 1000, 1 << 17} {
		bf := &buffer{links: 1}
		bf.sizeHeads(limit)
		bf.next = make([]int32, limit)
		mask := uint64(1)<<bf.tagBits - 1
		for trial := range 2000 {
			m := 1 + trial%6
			var h uint64
			var sum uint16
			keys := make([]uint64, m)   // keys[j]: the entry j links from the head
			entries := make([]int32, m) // index+1
			for j := m - 1; j >= 0; j-- {
				i := r.IntN(limit)
				for slices.Contains(entries[j+1:], int32(i+1)) {
					i = r.IntN(limit)
				}
				key := r.Uint64()
				if r.IntN(2) == 0 && j < m-1 {
					key = keys[j+1] ^ 1<<r.IntN(8) // a tag close to another's
				}
				bf.next[i] = bf.headEntry(h)
				h = bf.headAdd(h, i, key)
				sum = sumAdd(sum, key)
				keys[j], entries[j] = key, int32(i+1)
			}
			if got := bf.headEntry(h); got != entries[0] {
				t.Fatalf("limit %d: head index %d, want %d", limit, got, entries[0])
			}
			q := keys[r.IntN(m)] ^ uint64(r.IntN(16))
			if r.IntN(2) == 0 {
				q = r.Uint64()
			}
			for k := range 5 {
				walked := map[int32]bool{}
				for e := bf.first(h, 0, q, k); e != 0; e = bf.next[e-1] {
					walked[e] = true
				}
				near := false
				for j, key := range keys {
					if bits.OnesCount64((key^q)&mask) <= k {
						near = true
						if !walked[entries[j]] {
							t.Fatalf("limit %d, %d entries, k %d: entry %d (tag within k) not walked", limit, m, k, j)
						}
					}
				}
				if !near && m <= 3 && len(walked) > 0 {
					t.Fatalf("limit %d, %d entries, k %d: walked %d entries though no tag is within k", limit, m, k, len(walked))
				}
				near15 := false
				for _, key := range keys {
					near15 = near15 || bits.OnesCount64((key^q)&(sumOne-1)) <= k
				}
				if skip := sumSkips(sum, q, k); skip && near15 || m == 1 && !skip && !near15 {
					t.Fatalf("%d entries, k %d: summary %#x rules the chain out = %v, an entry's low bits within k = %v", m, k, sum, skip, near15)
				}
			}
		}
	}
	if !sumSkips(0, 0, 0) {
		t.Fatal("the summary of an empty chain does not rule it out")
	}
	// the index field holds the largest buffer
	big := maxIndexEntries / mergeFraction
	bf := &buffer{}
	bf.sizeHeads(big)
	if h := bf.headAdd(0, big-1, 5); int(h&(1<<30-1)) != big || bf.first(h, 0, 5, 0) != int32(big) {
		t.Fatalf("head of entry %d: %#x", big-1, h)
	}
}
