package hamming

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/race"
)

// scan is the oracle: a map of id -> fingerprint searched linearly.
type scan map[uint64]uint64

func (s scan) query(fp uint64, k int) []Hit {
	var hits []Hit
	for id, f := range s {
		if d := Distance(f, fp); d <= k {
			hits = append(hits, Hit{ID: id, Distance: d})
		}
	}
	return sortHits(hits)
}

// takeAt removes and returns (*ids)[i], moving the last id into its place.
func takeAt(ids *[]uint64, i int) uint64 {
	s := *ids
	id := s[i]
	s[i] = s[len(s)-1]
	*ids = s[:len(s)-1]
	return id
}

func sortHits(h []Hit) []Hit {
	slices.SortFunc(h, func(a, b Hit) int { return cmp.Compare(a.ID, b.ID) })
	return h
}

// flips returns fp with n distinct random bits of the given blocks flipped,
// per[b] bits in block b.
func flipInBlocks(r *rand.Rand, l *layout, fp uint64, per []int) uint64 {
	for b, n := range per {
		m := l.blockMask[b]
		var pos []int
		for i := range 64 {
			if m>>uint(i)&1 == 1 {
				pos = append(pos, i)
			}
		}
		r.Shuffle(len(pos), func(i, j int) { pos[i], pos[j] = pos[j], pos[i] })
		for _, p := range pos[:min(n, len(pos))] {
			fp ^= 1 << uint(p)
		}
	}
	return fp
}

// patterns returns every way of spreading n flipped bits over B blocks.
func patterns(B, n int) [][]int {
	if B == 1 {
		return [][]int{{n}}
	}
	var out [][]int
	for first := 0; first <= n; first++ {
		for _, rest := range patterns(B-1, n-first) {
			out = append(out, append([]int{first}, rest...))
		}
	}
	return out
}

func checkQuery(t *testing.T, ix *Index, ref scan, q uint64, k int) {
	t.Helper()
	got, err := ix.Query(q, k, nil)
	if err != nil {
		t.Fatalf("Query(%#x, %d): %v", q, k, err)
	}
	got = sortHits(got)
	want := ref.query(q, k)
	if !slices.Equal(got, want) {
		t.Fatalf("Query(%#x, %d) with %d entries (plan %v):\n got %v\nwant %v", uint64(q), k, len(ref), ix.Plan(), got, want)
	}
}

// checkBatch checks QueryBatch against a linear scan: the hits of each query
// of qs, in order, after hits already in dst.
func checkBatch(t *testing.T, ix *Index, ref scan, qs []uint64, k int) {
	t.Helper()
	pre := []Hit{{ID: 1 << 60}}
	dst, ends, err := ix.QueryBatch(qs, k, pre, nil)
	if err != nil {
		t.Fatalf("QueryBatch(%d queries, %d): %v", len(qs), k, err)
	}
	if len(ends) != len(qs) || dst[0] != pre[0] {
		t.Fatalf("QueryBatch: %d ends for %d queries, dst[0] = %v", len(ends), len(qs), dst[0])
	}
	from := len(pre)
	for i, q := range qs {
		got := sortHits(slices.Clone(dst[from:ends[i]]))
		from = ends[i]
		if want := ref.query(q, k); !slices.Equal(got, want) {
			t.Fatalf("QueryBatch query %d of %d (%#x, %d) with %d entries (plan %v):\n got %v\nwant %v", i, len(qs), uint64(q), k, len(ref), ix.Plan(), got, want)
		}
	}
}

// TestIndexExact checks Query and QueryBatch against a linear scan, for several layouts,
// over random and clustered fingerprints (entries exactly j bits from a
// center in every block pattern, for j up to MaxDistance+1), with adds and
// removes interleaved with queries and merges.
func TestIndexExact(t *testing.T) {
	configs := []Options{
		{MaxDistance: 1, ExpectedSize: 1000},
		{MaxDistance: 2, ExpectedSize: 1 << 12},
		{MaxDistance: 3, ExpectedSize: 1 << 12},
		{MaxDistance: 3, ExpectedSize: 1 << 12, MaxBytesPerEntry: 200},
		{MaxDistance: 4, ExpectedSize: 500},
		{MaxDistance: 6, ExpectedSize: 1 << 10},
		{MaxDistance: 7, ExpectedSize: 1 << 12, MaxBytesPerEntry: 1000},
		{MaxDistance: 2, ExpectedSize: 1 << 12, MaxBytesPerEntry: 200},
		// directories over the whole key: tables leave a block out
		// (trimTables)
		{MaxDistance: 3, ExpectedSize: 1 << 20},
		{MaxDistance: 4, ExpectedSize: 1 << 17},
	}
	// multi-probe layouts: k, blocks (radius floor(k/blocks)), directory
	// bits (below the key width, so buckets mix keys), and whether the
	// buffer is always searched through its chains rather than scanned
	multi := []struct{ k, blocks, dir int }{
		{4, 2, 8}, {4, 3, 10}, {5, 2, 9}, {5, 5, 10}, {6, 3, 8}, {6, 4, 12},
		{7, 2, 8}, {7, 4, 10}, {8, 3, 10}, {8, 4, 8}, {8, 5, 12}, {9, 3, 9},
		{10, 4, 10}, {10, 6, 9}, {11, 4, 8}, {12, 4, 10}, {12, 5, 9},
	}
	for _, m := range multi {
		configs = append(configs, Options{MaxDistance: m.k, ExpectedSize: 1 << m.dir, MaxBytesPerEntry: 1000 + m.blocks})
	}
	rounds := 1500
	if testing.Short() || race.Enabled {
		rounds = 500 // every configuration still, fewer rounds each
	}
	rotations := 0 // configurations that take queryRot
	trimmed := 0   // configurations with tables that leave a block out
	for ci, opts := range configs {
		ix, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		rounds := rounds
		if opts.MaxBytesPerEntry == 200 {
			// more blocks than k+1: two or three exact blocks per table
			useLayout(ix, newLayout(opts.MaxDistance, opts.MaxDistance+3, 10))
		}
		chains := false
		if opts.MaxBytesPerEntry > 1000 {
			B := opts.MaxBytesPerEntry - 1000
			useLayout(ix, newMultiLayout(opts.MaxDistance, B, directoryBits(opts.ExpectedSize)-2, opts.ExpectedSize))
			if !ix.lay.multi || ix.lay.radius != opts.MaxDistance/B {
				t.Fatalf("k=%d B=%d: not a multi-probe layout of radius %d", opts.MaxDistance, B, opts.MaxDistance/B)
			}
			rounds /= 3
			chains = ci%2 == 0
		}
		if ix.lay.rot != nil {
			rotations++
		}
		for t := range ix.lay.tables {
			if ix.lay.tables[t].drop != 0 {
				trimmed++
				break
			}
		}
		t.Run(fmt.Sprintf("k%d_B%d_r%d", opts.MaxDistance, ix.Plan().Blocks, ix.lay.radius), func(t *testing.T) {
			if chains {
				defer func(f int) { bufferScanFactor = f }(bufferScanFactor)
				bufferScanFactor = 0
			}
			r := rand.New(rand.NewPCG(uint64(ci), 7))
			kmax := opts.MaxDistance
			l := &ix.lay
			ref := scan{}
			var ids []uint64
			nextID := uint64(1)
			add := func(fp uint64) {
				id := nextID
				nextID += 1 + uint64(r.IntN(3))
				if err := ix.Add(id, uint64(fp)); err != nil {
					t.Fatal(err)
				}
				ref[id] = uint64(fp)
				ids = append(ids, id)
			}
			// addBatch adds fps with AddBatch
			addBatch := func(fps []uint64) {
				bids := make([]uint64, len(fps))
				bfps := make([]uint64, len(fps))
				for i, fp := range fps {
					bids[i], bfps[i] = nextID, uint64(fp)
					nextID += 1 + uint64(r.IntN(3))
				}
				if err := ix.AddBatch(bids, bfps); err != nil {
					t.Fatal(err)
				}
				for i, id := range bids {
					ref[id] = bfps[i]
					ids = append(ids, id)
				}
			}
			var centers []uint64
			var batch []uint64
			for round := range rounds {
				switch x := r.IntN(10); {
				case x < 4: // random
					add(r.Uint64())
				case x < 6: // a new cluster: a center and entries 0..kmax+1 bits away in every block pattern
					c := r.Uint64()
					centers = append(centers, c)
					add(c)
					if r.IntN(4) == 0 {
						add(c) // same fingerprint, another id
					}
					j := r.IntN(kmax + 2)
					pats := patterns(l.blocks, j)
					if len(pats) > 40 {
						r.Shuffle(len(pats), func(a, b int) { pats[a], pats[b] = pats[b], pats[a] })
						pats = pats[:40]
					}
					var near []uint64
					for _, per := range pats {
						if fits(l, per) {
							near = append(near, flipInBlocks(r, l, c, per))
						}
					}
					if r.IntN(2) == 0 {
						addBatch(near)
					} else {
						for _, fp := range near {
							add(fp)
						}
					}
				case x < 8 && len(ids) > 0: // remove
					id := takeAt(&ids, r.IntN(len(ids)))
					if err := ix.Remove(id); err != nil {
						t.Fatal(err)
					}
					delete(ref, id)
				default: // re-add a removed id or a near copy of a center
					if len(centers) > 0 {
						c := centers[r.IntN(len(centers))]
						add(flipInBlocks(r, l, c, randomPattern(r, l.blocks, r.IntN(kmax+2))))
					}
				}
				if ix.Len() != len(ref) {
					t.Fatalf("round %d: Len %d, want %d", round, ix.Len(), len(ref))
				}
				// query around a center, a random point, and a stored entry
				k := r.IntN(kmax + 1)
				if len(centers) > 0 {
					c := centers[r.IntN(len(centers))]
					checkQuery(t, ix, ref, uint64(c), k)
					checkQuery(t, ix, ref, uint64(flipInBlocks(r, l, c, randomPattern(r, l.blocks, r.IntN(kmax+1)))), k)
				}
				checkQuery(t, ix, ref, uint64(r.Uint64()), k)
				if len(ids) > 0 {
					checkQuery(t, ix, ref, ref[ids[r.IntN(len(ids))]], kmax)
				}
				// a batch of the same kinds of queries now and then
				if round%100 == 99 {
					batch = batch[:0]
					for range 30 + r.IntN(60) {
						switch x := r.IntN(4); {
						case x == 0 && len(centers) > 0:
							batch = append(batch, uint64(centers[r.IntN(len(centers))]))
						case x == 1 && len(centers) > 0:
							c := centers[r.IntN(len(centers))]
							batch = append(batch, uint64(flipInBlocks(r, l, c, randomPattern(r, l.blocks, r.IntN(kmax+1)))))
						case x == 2 && len(ids) > 0:
							batch = append(batch, ref[ids[r.IntN(len(ids))]])
						default:
							batch = append(batch, uint64(r.Uint64()))
						}
					}
					checkBatch(t, ix, ref, batch, r.IntN(kmax+1))
				}
			}
			// every stored entry at every k, alone and in one batch
			batch = batch[:0]
			for _, id := range ids[:min(len(ids), 150)] {
				batch = append(batch, ref[id])
			}
			for k := 0; k <= kmax; k++ {
				checkBatch(t, ix, ref, batch, k)
			}
			for _, id := range ids[:min(len(ids), 300)] {
				for k := 0; k <= kmax; k++ {
					checkQuery(t, ix, ref, ref[id], k)
				}
				if fp, ok := ix.Code(id); !ok || fp != ref[id] {
					t.Fatalf("uint64(%d) = %#x, %v; want %#x", id, fp, ok, ref[id])
				}
			}
		})
	}
	if rotations < 3 || rotations == len(configs) {
		t.Fatalf("%d of %d configurations are rotation layouts; want both kinds", rotations, len(configs))
	}
	if trimmed < 2 {
		t.Fatalf("%d configurations with tables that leave a block out, want at least 2", trimmed)
	}
}

// useLayout replaces the layout of an empty index.
func useLayout(ix *Index, l layout) {
	ix.lay = l
	ix.plan = l.plan(ix.plan.ExpectedSize, l.bytesPerEntry(ix.plan.ExpectedSize), false)
	ix.base = emptyBase(&ix.lay)
	ix.buf = buffer{}
	ix.buf.reset(&ix.lay, mergeThreshold(0))
}

func fits(l *layout, per []int) bool {
	for b, n := range per {
		if n > l.width[b] {
			return false
		}
	}
	return true
}

func randomPattern(r *rand.Rand, B, n int) []int {
	per := make([]int, B)
	for range n {
		per[r.IntN(B)]++
	}
	return per
}

func TestIndexLayoutTables(t *testing.T) {
	for k := 0; k <= MaxDistance; k++ {
		for B := k + 1; B <= min(k+4, 32); B++ {
			if binomial(B, k) > maxIndexTables {
				continue
			}
			l := newLayout(k, B, 16)
			if B == k+1 && l.rot == nil {
				t.Fatalf("k=%d B=%d: not a rotation layout", k, B)
			}
			if len(l.tables) != binomial(B, B-k) {
				t.Fatalf("k=%d B=%d: %d tables, want C(%d,%d)", k, B, len(l.tables), B, k)
			}
			seen := map[uint64]bool{}
			for i, tl := range l.tables {
				if seen[tl.combo] {
					t.Fatalf("k=%d B=%d: table %d repeats combination %b", k, B, i, tl.combo)
				}
				seen[tl.combo] = true
				x := rand.Uint64()
				if got := applySegments(tl.inv, applySegments(tl.perm, x)); got != x {
					t.Fatalf("k=%d B=%d table %d: inverse permutation broken", k, B, i)
				}
				if i == 0 && applySegments(tl.perm, x) != x {
					t.Fatalf("k=%d B=%d: table 0 is not the identity", k, B)
				}
				if got := l.permute(i, x); got != applySegments(tl.perm, x) {
					t.Fatalf("k=%d B=%d table %d: permute %x, perm %x", k, B, i, got, applySegments(tl.perm, x))
				}
				// the key blocks are the top prefix bits
				var key uint64
				for b := range B {
					if tl.combo>>uint(b)&1 == 1 {
						key |= l.blockMask[b]
					}
				}
				if applySegments(tl.perm, key) != lowMask(tl.prefix)<<uint(64-tl.prefix) {
					t.Fatalf("k=%d B=%d table %d: key not at the top", k, B, i)
				}
			}
			for kk := 0; kk <= k; kk++ {
				lim := uint64(1)<<uint(l.exact+kk) - 1
				for i := 0; i < l.nprobe[kk]; i++ {
					if l.tables[i].combo&^lim != 0 {
						t.Fatalf("k=%d B=%d: probe set for %d not a prefix", k, B, kk)
					}
				}
			}
		}
	}
}

func TestIndexPlan(t *testing.T) {
	ix, err := New(Options{MaxDistance: 3, ExpectedSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	p := ix.Plan()
	t.Log(p)
	if p.Blocks != 4 || p.Tables != 4 || p.PrefixBits != 16 || p.BytesPerEntry > 48 {
		t.Errorf("plan at 1M, k=3: %v", p)
	}
	// Every k gets a layout at the default size: within the default budget
	// of 48 bytes per entry, or flagged as over it and within 64; exact
	// (more blocks than k, one bucket per table) or multi-probe (at most k
	// blocks, probed within floor(k/B)).
	for k := 1; k <= MaxDistance; k++ {
		ix, err := New(Options{MaxDistance: k})
		if err != nil {
			t.Fatal(err)
		}
		p := ix.Plan()
		budget := p.BytesPerEntry <= 48 || p.OverBudget && p.BytesPerEntry <= 64
		exact := p.Radius == 0 && p.Blocks > k && p.ProbesPerQuery == p.Tables
		multi := p.Radius == k/p.Blocks && p.Radius > 0 && p.Tables == p.Blocks
		if p.MaxDistance != k || !budget || !exact && !multi {
			t.Errorf("default plan for k = %d: %v", k, p)
		}
	}
	// Below a million entries the exact tables need 7-byte entries (50.6
	// B/entry at 16K); the default budget bends to them rather than take
	// multi-probe tables estimated 5 times slower. A strict budget does not.
	small, err := New(Options{MaxDistance: 3, ExpectedSize: 1 << 14})
	if err != nil {
		t.Fatal(err)
	}
	if p := small.Plan(); p.Radius != 0 || p.Tables != 4 || !p.OverBudget || p.BytesPerEntry > 64 {
		t.Errorf("default plan at 16K, k=3: %v", p)
	}
	strict, err := New(Options{MaxDistance: 3, ExpectedSize: 1 << 14, MaxBytesPerEntry: 48})
	if err != nil {
		t.Fatal(err)
	}
	if p := strict.Plan(); p.OverBudget || p.BytesPerEntry > 48 {
		t.Errorf("plan at 16K, k=3, 48 B/entry: %v", p)
	}
	// The plan New would choose, without the empty directories of an index
	// for a billion entries (970 MB; 2.4 GB under -race).
	_, big, err := choosePlan(3, 1<<30, 100)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(big)
	if big.Blocks == 4 {
		t.Errorf("at 1G entries with 100 B/entry, expected more than 4 blocks: %v", big)
	}
}

func TestIndexErrors(t *testing.T) {
	for _, o := range []Options{
		{MaxDistance: -1}, {MaxDistance: MaxDistance + 1}, {ExpectedSize: -5},
		{MaxBytesPerEntry: -1}, {MaxDistance: 8, MaxBytesPerEntry: 20},
	} {
		_, err := New(o)
		if !errors.Is(err, ErrInvalidOption) || !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): %v, want neardup.ErrInvalidOption", o, err)
		} else if n := strings.Count(err.Error(), "hamming:"); n != 1 {
			t.Errorf("New(%+v): %q names the package %d times", o, err, n)
		}
	}
	ix, err := New(Options{MaxDistance: 3, ExpectedSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Add(1, 0xff); err != nil {
		t.Fatal(err)
	}
	if err := ix.Add(1, 0xf0); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("Add duplicate: %v", err)
	}
	for _, k := range []int{-1, 4} {
		if _, err := ix.Query(0xff, k, nil); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("Query k=%d: %v", k, err)
		}
		if dst, ends, err := ix.QueryBatch([]uint64{0xff}, k, nil, nil); !errors.Is(err, ErrInvalidOption) || dst != nil || ends != nil {
			t.Errorf("QueryBatch k=%d: %v, %v, %v", k, dst, ends, err)
		}
	}
	if err := ix.Remove(2); !errors.Is(err, ErrUnknownID) {
		t.Errorf("Remove unknown: %v", err)
	}
	// AddBatch: mismatched lengths; a duplicate of a kept id and one within
	// the batch stop it there, keeping the entries before
	if err := ix.AddBatch([]uint64{5}, nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("AddBatch with 1 id and 0 fingerprints: %v", err)
	}
	err = ix.AddBatch([]uint64{5, 6, 1, 7}, []uint64{5, 6, 1, 7})
	if !errors.Is(err, ErrDuplicateID) || !strings.Contains(err.Error(), "at 2") {
		t.Errorf("AddBatch with kept id 1 at 2: %v", err)
	}
	err = ix.AddBatch([]uint64{8, 9, 8}, []uint64{8, 9, 8})
	if !errors.Is(err, ErrDuplicateID) || !strings.Contains(err.Error(), "at 2") {
		t.Errorf("AddBatch with id 8 twice: %v", err)
	}
	for id, want := range map[uint64]bool{5: true, 6: true, 7: false, 8: true, 9: true} {
		if _, ok := ix.Code(id); ok != want {
			t.Errorf("after the failed batches, id %d kept = %v, want %v", id, ok, want)
		}
	}
	for _, id := range []uint64{5, 6, 8, 9} {
		if err := ix.Remove(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Remove(1); err != nil {
		t.Fatal(err)
	}
	if err := ix.Remove(1); !errors.Is(err, ErrUnknownID) {
		t.Errorf("Remove twice: %v", err)
	}
	if err := ix.Add(1, 0xf0); err != nil {
		t.Errorf("re-Add after Remove: %v", err)
	}
	// the same checks once the entries are merged into the base
	for i := uint64(10); i < 2000; i++ {
		if err := ix.Add(i, uint64(i*0x9e3779b97f4a7c15)); err != nil {
			t.Fatal(err)
		}
	}
	if ix.base.n == 0 {
		t.Fatal("no merge happened")
	}
	if err := ix.Add(10, 1); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("Add duplicate (base): %v", err)
	}
	if err := ix.Remove(10); err != nil {
		t.Fatal(err)
	}
	if err := ix.Remove(10); !errors.Is(err, ErrUnknownID) {
		t.Errorf("Remove twice (base): %v", err)
	}
}

func TestIndexQueryAllocs(t *testing.T) {
	ix, err := New(Options{ExpectedSize: 1 << 14})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var fps []uint64
	for i := range 20000 {
		fp := uint64(r.Uint64())
		fps = append(fps, fp)
		if err := ix.Add(uint64(i), fp); err != nil {
			t.Fatal(err)
		}
	}
	dst := make([]Hit, 0, 16)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		q := fps[i%len(fps)] ^ 0b1011
		i++
		dst, _ = ix.Query(q, 3, dst[:0])
		if len(dst) == 0 {
			panic("stored fingerprint not found")
		}
	})
	if allocs != 0 {
		t.Errorf("Query allocates %.1f times per call", allocs)
	}
	qs := make([]uint64, 600) // more than one chunk
	for j := range qs {
		qs[j] = fps[j] ^ 0b1011
	}
	dst = make([]Hit, 0, 2*len(qs))
	ends := make([]int, 0, len(qs))
	allocs = testing.AllocsPerRun(20, func() {
		dst, ends, _ = ix.QueryBatch(qs, 3, dst[:0], ends[:0])
		if len(ends) != len(qs) || len(dst) < len(qs) {
			panic("stored fingerprints not found")
		}
	})
	if allocs != 0 {
		t.Errorf("QueryBatch allocates %.1f times per call", allocs)
	}
}

// TestIndexConcurrent runs readers and writers together; run with -race.
func TestIndexConcurrent(t *testing.T) {
	ix, err := New(Options{MaxDistance: 3, ExpectedSize: 1 << 12})
	if err != nil {
		t.Fatal(err)
	}
	n := 3000
	if testing.Short() {
		n = 1000
	}
	// stable entries that every reader must always find
	for i := range 200 {
		if err := ix.Add(uint64(i), uint64(uint64(i)*0x9e3779b97f4a7c15)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			base := uint64(1_000_000 * (w + 1))
			if w == 1 {
				// this writer adds in batches of 50, removing as it goes
				for i := 0; i < n; i += 50 {
					bids := make([]uint64, 0, 50)
					bfps := make([]uint64, 0, 50)
					for j := i; j < min(i+50, n); j++ {
						bids = append(bids, base+uint64(j))
						bfps = append(bfps, uint64(r.Uint64()))
					}
					if err := ix.AddBatch(bids, bfps); err != nil {
						t.Error(err)
						return
					}
					if err := ix.Remove(base + uint64(i/2)); err != nil && !errors.Is(err, ErrUnknownID) {
						t.Error(err)
						return
					}
				}
				return
			}
			for i := range n {
				if err := ix.Add(base+uint64(i), uint64(r.Uint64())); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					if err := ix.Remove(base + uint64(i/2)); err != nil && !errors.Is(err, ErrUnknownID) {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dst []Hit
			for i := range n {
				id := uint64((i + g) % 200)
				fp := uint64(id*0x9e3779b97f4a7c15) ^ 0b101
				var err error
				dst, err = ix.Query(fp, 3, dst[:0])
				if err != nil {
					t.Error(err)
					return
				}
				if !slices.ContainsFunc(dst, func(h Hit) bool { return h.ID == id && h.Distance == 2 }) {
					t.Errorf("entry %d not found: %v", id, dst)
					return
				}
				_ = ix.Len()
			}
		}()
	}
	// a reader of batches of the stable entries, spanning several locks
	wg.Add(1)
	go func() {
		defer wg.Done()
		qs := make([]uint64, 600)
		for i := range qs {
			qs[i] = uint64(uint64(i%200)*0x9e3779b97f4a7c15) ^ 0b101
		}
		var dst []Hit
		var ends []int
		for range n / 100 {
			var err error
			dst, ends, err = ix.QueryBatch(qs, 3, dst[:0], ends[:0])
			if err != nil {
				t.Error(err)
				return
			}
			from := 0
			for i, end := range ends {
				id := uint64(i % 200)
				if !slices.ContainsFunc(dst[from:end], func(h Hit) bool { return h.ID == id && h.Distance == 2 }) {
					t.Errorf("batch: entry %d not found: %v", id, dst[from:end])
					return
				}
				from = end
			}
		}
	}()
	wg.Wait()
	if ix.Len() < 200 {
		t.Fatalf("Len %d", ix.Len())
	}
}

func TestAllPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var fps []uint64
	for range 300 {
		c := r.Uint64()
		fps = append(fps, uint64(c))
		for range r.IntN(5) {
			fps = append(fps, uint64(c^1<<uint(r.IntN(64))^1<<uint(r.IntN(64))^1<<uint(r.IntN(64))^1<<uint(r.IntN(64))))
		}
	}
	fps = append(fps, fps[0], fps[1], fps[1])
	for k := 0; k <= 8; k++ {
		type pair struct{ i, j, d int }
		var want []pair
		for i := range fps {
			for j := i + 1; j < len(fps); j++ {
				if d := Distance(fps[i], fps[j]); d <= k {
					want = append(want, pair{i, j, d})
				}
			}
		}
		var got []pair
		err := AllPairs(context.Background(), fps, k, func(i, j, d int) error {
			got = append(got, pair{i, j, d})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		cmpPair := func(a, b pair) int { return cmp.Or(cmp.Compare(a.i, b.i), cmp.Compare(a.j, b.j)) }
		slices.SortFunc(got, cmpPair)
		if !slices.Equal(got, want) {
			t.Fatalf("k=%d: %d pairs, want %d\n got %v\nwant %v", k, len(got), len(want), got, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := AllPairs(ctx, fps, 3, func(i, j, d int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled AllPairs: %v", err)
	}
	stop := errors.New("stop")
	if err := AllPairs(context.Background(), fps, 3, func(i, j, d int) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("AllPairs callback error: %v", err)
	}
	if err := AllPairs(context.Background(), fps, MaxDistance+1, func(i, j, d int) error { return nil }); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("AllPairs k too large: %v", err)
	}
}

// TestNextFlip checks the enumeration of the masks within a radius: each
// d-bit mask of at most r bits once, by increasing popcount.
func TestNextFlip(t *testing.T) {
	for d := 1; d <= 16; d++ {
		for r := 0; r <= 4; r++ {
			seen := map[uint64]bool{}
			last := 0
			for f, more := uint64(0), true; more; f, more = nextFlip(f, d, r) {
				c := bits.OnesCount64(f)
				if seen[f] || f>>uint(d) != 0 || c > r || c < last {
					t.Fatalf("d=%d r=%d: mask %b out of order or repeated", d, r, f)
				}
				seen[f], last = true, c
			}
			if len(seen) != neighbours(d, r) {
				t.Fatalf("d=%d r=%d: %d masks, want %d", d, r, len(seen), neighbours(d, r))
			}
		}
	}
}

// TestIndexPlanMulti checks that the default budget gives k = 8 at 1M a
// multi-probe layout within budget, and that a query at a smaller k probes
// enough tables at a small enough radius to stay exact by pigeonhole.
func TestIndexPlanMulti(t *testing.T) {
	ix, err := New(Options{MaxDistance: 8, ExpectedSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	p := ix.Plan()
	t.Log(p)
	if p.Radius == 0 || p.OverBudget || p.BytesPerEntry > 48 || p.ProbesPerQuery > 1000 {
		t.Errorf("plan at 1M, k=8: %v", p)
	}
	for k := 1; k <= MaxDistance; k++ {
		for B := 1; B <= k; B++ {
			l := newMultiLayout(k, B, 12, 1<<16)
			for kk := 0; kk <= k; kk++ {
				j, r := l.nprobe[kk], l.qradius[kk]
				if j > B || j*(r+1) <= kk {
					t.Fatalf("k=%d B=%d: at %d, %d tables within %d do not cover", k, B, kk, j, r)
				}
			}
		}
	}
}
