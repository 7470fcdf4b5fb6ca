package hamming

import (
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/neardup/neardup/internal/sentinel"
)

// Errors. Test them with errors.Is. They are package neardup's errors of the
// same names (this package does not import neardup), so that errors.Is(err,
// neardup.ErrInvalidOption) holds for an Index's invalid options too.
var (
	// ErrInvalidOption reports an option or argument outside its range: a
	// MaxDistance above MaxDistance, a k above the index's, a memory budget
	// no layout fits. It is neardup.ErrInvalidOption.
	ErrInvalidOption = sentinel.ErrInvalidOption
	// ErrDuplicateID reports an Add of an id that is already stored. It is
	// neardup.ErrDuplicateID.
	ErrDuplicateID = sentinel.ErrDuplicateID
	// ErrUnknownID reports a Remove of an id that is not stored. It is
	// neardup.ErrUnknownID.
	ErrUnknownID = sentinel.ErrUnknownID
)

// Distance returns the Hamming distance of a and b: the number of bits in
// which they differ.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Options configures New. The zero value is an index for queries up
// to 3 bits (Kumar and Govindarajulu's T_B) sized for about a million fingerprints.
type Options struct {
	// MaxDistance is the largest k a Query may ask, 1..MaxDistance;
	// 0 means 3. A Query may ask any k from 0 to MaxDistance, and a smaller
	// k probes fewer tables (k = 0 probes one).
	MaxDistance int
	// ExpectedSize is the number of fingerprints the layout is chosen for;
	// 0 means 1<<20. The index stays exact at any size; far beyond
	// ExpectedSize its buckets grow and queries slow down, far below it the
	// directories dominate memory.
	ExpectedSize int
	// MaxBytesPerEntry bounds the memory per entry of the layout at
	// ExpectedSize; New picks the fastest layout within it and fails
	// with ErrInvalidOption when none fits. 0 means a default of 48 bytes
	// that bends: to up to 64 bytes when that buys a layout estimated at
	// least three times as fast (below about a million entries the
	// directories cost more per entry and the exact tables need wider
	// entries), and to the smallest layout when none fits.
	// Plan.OverBudget tells when it bent.
	MaxBytesPerEntry int
}

// Hit is one stored entry found by Index.Query.
type Hit struct {
	ID       uint64 // the id given to Add
	Distance int    // Hamming distance to the query
}

// Index keeps 64-bit codes under uint64 ids and finds every stored code
// within k bits of a query, exactly as a scan of all of them would, without
// scanning them (see the package documentation for how and what it costs).
//
// An Index is safe for concurrent use: Query, QueryBatch, Code, Len,
// MemoryUsage and Plan take a read lock and may run in parallel; Add,
// AddBatch and Remove take the write lock. Query and QueryBatch do not
// allocate when their destination slices have room.
type Index struct {
	mu   sync.RWMutex
	lay  layout
	plan Plan
	base base
	buf  buffer
	live int
}

// New returns an empty Index for opts. Options out of range return an
// error wrapping ErrInvalidOption.
func New(opts Options) (*Index, error) {
	k := opts.MaxDistance
	if k == 0 {
		k = defaultIndexDistance
	}
	if k < 0 || k > MaxDistance {
		return nil, fmt.Errorf("hamming: New: MaxDistance %d not in 0..%d: %w", opts.MaxDistance, MaxDistance, ErrInvalidOption)
	}
	n := opts.ExpectedSize
	if n == 0 {
		n = defaultExpectedSize
	}
	if n < 0 || n > maxIndexEntries {
		return nil, fmt.Errorf("hamming: New: ExpectedSize %d not in 0..%d: %w", opts.ExpectedSize, maxIndexEntries, ErrInvalidOption)
	}
	if opts.MaxBytesPerEntry < 0 {
		return nil, fmt.Errorf("hamming: New: MaxBytesPerEntry %d < 0: %w", opts.MaxBytesPerEntry, ErrInvalidOption)
	}
	lay, plan, err := choosePlan(k, n, opts.MaxBytesPerEntry)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrInvalidOption)
	}
	ix := &Index{lay: lay, plan: plan}
	ix.base = emptyBase(&ix.lay)
	ix.buf.reset(&ix.lay, mergeThreshold(0))
	return ix, nil
}

// maxIndexEntries keeps positions and bucket offsets within uint32.
const maxIndexEntries = min(1<<32-1<<20, math.MaxInt)

// Plan returns the layout chosen by New.
func (ix *Index) Plan() Plan {
	p := ix.plan
	p.BlockBits = append([]int(nil), p.BlockBits...)
	return p
}

// Len returns the number of entries kept.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// MemoryUsage returns the bytes held by the index's arrays: tables,
// directories, ids, id lookup, tombstones and the insert buffer at its
// allocated capacity. Divided by Len it is the measured bytes per entry.
func (ix *Index) MemoryUsage() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	b, bf := &ix.base, &ix.buf
	s := 8*cap(b.ids) + 8*cap(b.dead) + 4*cap(b.idDir) + 4*cap(b.idPos)
	for _, t := range b.tabs {
		s += cap(t.data) + 4*cap(t.dir) + 2*cap(t.cdir) + 4*cap(t.cbase)
	}
	s += 8*cap(bf.fps) + 8*cap(bf.ids) + 8*cap(bf.dead) + 4*cap(bf.next)
	for t := range bf.heads {
		s += 8*cap(bf.heads[t]) + 2*cap(bf.sums[t])
	}
	s += 4 * cap(bf.idHeads)
	return s
}

// Add keeps fp under id. An id already kept returns an error wrapping
// ErrDuplicateID and leaves the index unchanged. The entry is visible
// to every Query that starts after Add returns.
func (ix *Index) Add(id uint64, fp uint64) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// what the add writes loads while find looks for the id
	ix.buf.prefetchAdd(&ix.lay, uint64(fp))
	if _, _, ok := ix.find(id); ok {
		return fmt.Errorf("hamming: Index.Add %d: %w", id, ErrDuplicateID)
	}
	if ix.live >= maxIndexEntries {
		return fmt.Errorf("hamming: Index.Add %d: index holds the maximum of %d entries", id, maxIndexEntries)
	}
	ix.buf.add(&ix.lay, id, uint64(fp))
	ix.live++
	ix.maybeMerge()
	return nil
}

// Remove drops the entry kept under id. An id not kept returns an error
// wrapping ErrUnknownID.
func (ix *Index) Remove(id uint64) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	inBase, i, ok := ix.find(id)
	if !ok {
		return fmt.Errorf("hamming: Index.Remove %d: %w", id, ErrUnknownID)
	}
	if inBase {
		bitSet(ix.base.dead, i)
		ix.base.ndead++
	} else {
		bitSet(ix.buf.dead, i)
		ix.buf.ndead++
	}
	ix.live--
	ix.maybeMerge()
	return nil
}

// uint64 returns the fingerprint kept under id, or false.
func (ix *Index) Code(id uint64) (uint64, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	inBase, i, ok := ix.find(id)
	if !ok {
		return 0, false
	}
	if !inBase {
		return uint64(ix.buf.fps[i]), true
	}
	return uint64(ix.base.fingerprintAt(&ix.lay.tables[0], i)), true
}

// Query appends to dst every kept entry within Hamming distance k of fp,
// each once, with its distance, and returns the extended slice. The order of
// the hits is unspecified. k outside 0..MaxDistance returns dst and an error
// wrapping ErrInvalidOption. Query does not allocate when dst has
// room for the hits.
func (ix *Index) Query(fp uint64, k int, dst []Hit) ([]Hit, error) {
	if k < 0 || k > ix.lay.k {
		return dst, fmt.Errorf("hamming: Index.Query: k = %d not in 0..%d: %w", k, ix.lay.k, ErrInvalidOption)
	}
	ix.mu.RLock()
	dst = ix.query(uint64(fp), k, dst)
	ix.mu.RUnlock()
	return dst, nil
}
