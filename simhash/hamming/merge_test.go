package hamming

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/race"
)

// TestPosMap checks posMap against the new positions counted one by one,
// with adds spread out, clustered in one gap (more than a block's offsets
// count) and at block boundaries, and with removed entries.
func TestPosMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		oldN := 1 + r.IntN(3000)
		var ins []uint32
		for range r.IntN(oldN/2 + 1) {
			ins = append(ins, uint32(r.IntN(oldN+1)))
		}
		if round%4 == 0 { // many adds before one entry
			p := uint32(r.IntN(oldN + 1))
			many := 100 + r.IntN(300)
			if round == 100 {
				many = 1<<16 + 50 // more than 16 bits count, wrapping below maxBlockAdds
			}
			for range many {
				ins = append(ins, p)
			}
		}
		if round%5 == 0 { // before the first entry of each block
			for p := 0; p <= oldN; p += 64 {
				ins = append(ins, uint32(p))
			}
		}
		slices.Sort(ins)
		dead := make([]uint64, (oldN+63)/64)
		ndead := 0
		if round%3 != 0 {
			for range r.IntN(oldN/3 + 1) {
				if p := r.IntN(oldN); !bitGet(dead, p) {
					bitSet(dead, p)
					ndead++
				}
			}
		}
		pm := newPosMap(ins, dead, ndead, oldN)
		q, k := 0, 0
		for p := range oldN {
			for k < len(ins) && int(ins[k]) <= p {
				k++
				q++
			}
			got := pm.pos(uint32(p))
			if bitGet(dead, p) {
				if got != deadPos {
					t.Fatalf("round %d: pos(%d) = %d, want deadPos", round, p, got)
				}
				continue
			}
			if got != uint32(q) {
				t.Fatalf("round %d (oldN %d, %d adds, %d removed): pos(%d) = %d, want %d", round, oldN, len(ins), ndead, p, got, q)
			}
			q++
		}
	}
}

// TestIndexMergeInvariants checks the base after every merge against the
// entries kept: every table sorted within its buckets and holding exactly
// the kept fingerprints, the ids of table 0 beside their fingerprints, and
// the id lookup equal (bucket by bucket, in any order) to one rebuilt from
// the ids. The index grows past powers of two and shrinks below them (so
// that the id lookup gains and loses a bucket bit), with fingerprints added
// many times (more adds in one place than posMap's offsets count), removals
// and re-adds; merges of more than minParallelMerge adds use the workers
// when GOMAXPROCS > 1.
func TestIndexMergeInvariants(t *testing.T) {
	sizes := []int{3000, 40000, 9000, 150000, 60000}
	switch {
	case testing.Short():
		sizes = sizes[:3]
	case race.Enabled:
		// an eighth of each size: still past powers of two and back below
		// them (5000 > 2^12 > 1125, 18750 > 2^14 > 7500)
		sizes = []int{375, 5000, 1125, 18750, 7500}
	}
	// the last: a directory over the whole key, so that tables 1 and 2
	// leave a block out (trimTables)
	for ci, c := range []struct{ k, n int }{{3, 1 << 16}, {2, 1 << 16}, {3, 1 << 20}} {
		k := c.k
		ix, err := New(Options{MaxDistance: k, ExpectedSize: c.n})
		if err != nil {
			t.Fatal(err)
		}
		if trimmed := ix.lay.tables[1].drop != 0; trimmed != (ci == 2) {
			t.Fatalf("k=%d, %d entries: table 1 leaves a block out = %v", k, c.n, trimmed)
		}
		r := rand.New(rand.NewPCG(uint64(k), 9))
		ref := map[uint64]uint64{}
		var ids []uint64
		nextID := uint64(1)
		merges := 0
		lastBase := -1
		check := func() {
			if len(ix.buf.fps) != 0 || ix.base.n == lastBase {
				return
			}
			lastBase = ix.base.n
			merges++
			checkBase(t, ix, ref)
		}
		dup := r.Uint64()
		for _, size := range sizes {
			for len(ref) != size {
				switch {
				case len(ref) < size && r.IntN(50) == 0: // a burst of one fingerprint
					for range 200 + r.IntN(100) {
						id := nextID
						nextID++
						if err := ix.Add(id, uint64(dup)); err != nil {
							t.Fatal(err)
						}
						ref[id] = dup
						ids = append(ids, id)
						check()
					}
				case len(ref) < size && (r.IntN(20) != 0 || len(ids) == 0):
					id := nextID
					nextID++
					fp := r.Uint64()
					if r.IntN(10) == 0 && len(ids) > 0 {
						fp = ref[ids[r.IntN(len(ids))]] ^ 1<<uint(r.IntN(64))
					}
					if err := ix.Add(id, uint64(fp)); err != nil {
						t.Fatal(err)
					}
					ref[id] = fp
					ids = append(ids, id)
				default:
					id := takeAt(&ids, r.IntN(len(ids)))
					if err := ix.Remove(id); err != nil {
						t.Fatal(err)
					}
					fp := ref[id]
					delete(ref, id)
					if r.IntN(4) == 0 { // re-add the id at once, elsewhere
						fp ^= 1 << uint(r.IntN(64))
						if err := ix.Add(id, uint64(fp)); err != nil {
							t.Fatal(err)
						}
						ref[id] = fp
						ids = append(ids, id)
					}
				}
				check()
			}
			ix.mu.Lock()
			ix.merge()
			ix.mu.Unlock()
			check()
		}
		if merges < 10 {
			t.Fatalf("k=%d: %d merges", k, merges)
		}
	}
}

// checkBase checks a base that holds every kept entry (the buffer empty).
func checkBase(t *testing.T, ix *Index, ref map[uint64]uint64) {
	t.Helper()
	l, b := &ix.lay, &ix.base
	if b.n != len(ref) || b.ndead != 0 || len(b.ids) != b.n {
		t.Fatalf("base of %d entries (%d removed, %d ids), want %d", b.n, b.ndead, len(b.ids), len(ref))
	}
	for ti := range l.tables {
		tl, tab := &l.tables[ti], b.tabs[ti]
		// what the table stores of every fingerprint
		want := make([]uint64, 0, len(ref))
		for _, fp := range ref {
			want = append(want, fp&^tl.drop)
		}
		slices.Sort(want)
		if len(tab.dir) != 1<<tl.dbits+1 || int(tab.dir[len(tab.dir)-1]) != b.n || len(tab.data) < b.n*tl.stride+8 {
			t.Fatalf("table %d: directory or data of the wrong size", ti)
		}
		got := make([]uint64, 0, b.n)
		for j := range len(tab.dir) - 1 {
			lo, hi := int(tab.dir[j]), int(tab.dir[j+1])
			if lo > hi {
				t.Fatalf("table %d: directory decreases at bucket %d", ti, j)
			}
			for p := lo; p < hi; p++ {
				v := leU64(tab.data[p*tl.stride:]) & tl.low
				if p > lo && leU64(tab.data[(p-1)*tl.stride:])&tl.low > v {
					t.Fatalf("table %d: bucket %d not sorted at %d", ti, j, p)
				}
				got = append(got, applySegments(tl.inv, uint64(j)<<tl.shift|v))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("table %d does not hold the kept fingerprints (%d of %d)", ti, len(got), len(want))
		}
	}
	for p, id := range b.ids {
		if fp, ok := ref[id]; !ok || fp != b.fingerprintAt(&l.tables[0], p) {
			t.Fatalf("table 0 position %d: id %d beside the wrong fingerprint", p, id)
		}
	}
	// the id lookup, against one rebuilt from the ids
	rb := base{n: b.n, ids: b.ids}
	rb.buildIDs()
	if b.idBits != rb.idBits || b.posBits != rb.posBits || b.tagShift != rb.tagShift || b.tagMask != rb.tagMask || b.posMask != rb.posMask {
		t.Fatalf("id lookup parameters differ from a rebuild")
	}
	if !slices.Equal(b.idDir, rb.idDir) || len(b.idPos) != len(rb.idPos) {
		t.Fatalf("id lookup directory differs from a rebuild")
	}
	for j := range len(b.idDir) - 1 {
		x := slices.Clone(b.idPos[b.idDir[j]:b.idDir[j+1]])
		y := slices.Clone(rb.idPos[rb.idDir[j]:rb.idDir[j+1]])
		slices.Sort(x)
		slices.Sort(y)
		if !slices.Equal(x, y) {
			t.Fatalf("id lookup bucket %d differs from a rebuild", j)
		}
	}
	for id := range ref {
		if inBase, p, ok := ix.find(id); !ok || !inBase || b.ids[p] != id {
			t.Fatalf("find(%d) = %v, %d, %v", id, inBase, p, ok)
		}
	}
}

func leU64(b []byte) uint64 {
	var v uint64
	for i := range 8 {
		v |= uint64(b[i]) << (8 * i)
	}
	return v
}

// TestBucketSort checks bucketSort against a full sort, with ids alongside,
// for random keys, keys sharing their top bits in long descending runs
// (one group to sort whole), and equal keys.
func TestBucketSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const shift = 48
	for round := range 20 {
		n := r.IntN(5000)
		keys := make([]uint64, n)
		for i := range keys {
			switch round % 3 {
			case 0:
				keys[i] = r.Uint64()
			case 1: // one group: same top 24 bits, descending below
				keys[i] = 0xabcdef<<40 | uint64(n-i)<<8 | r.Uint64()&0xff
			case 2:
				keys[i] = uint64(r.IntN(4)) << 62
			}
		}
		ids := make([]uint64, n)
		for i := range ids {
			ids[i] = keys[i] ^ 0x5555
		}
		end := make([]uint32, 1<<(64-shift)+1)
		gotK, gotIDs := bucketSort(slices.Clone(keys), ids, make([]uint64, n), make([]uint64, n), end, shift, shift-8)
		want := slices.Clone(keys)
		slices.Sort(want)
		if !slices.Equal(gotK, want) {
			t.Fatalf("round %d: not sorted", round)
		}
		for i, k := range gotK {
			if gotIDs[i] != k^0x5555 {
				t.Fatalf("round %d: id %d not beside its key", round, i)
			}
			if j := k >> shift; int(end[j]) <= i || (j > 0 && int(end[j-1]) > i) {
				t.Fatalf("round %d: end of bucket %d wrong", round, j)
			}
		}
	}
}
