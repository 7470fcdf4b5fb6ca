package simhash

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/prefetch"
)

// IndexOptions configures NewIndex. The zero value is an index for queries up
// to 3 bits (seed 000's T_B) sized for about a million fingerprints.
type IndexOptions struct {
	// MaxDistance is the largest k a Query may ask, 1..MaxIndexDistance;
	// 0 means 3. A Query may ask any k from 0 to MaxDistance, and a smaller
	// k probes fewer tables (k = 0 probes one).
	MaxDistance int
	// ExpectedSize is the number of fingerprints the layout is chosen for;
	// 0 means 1<<20. The index stays exact at any size; far beyond
	// ExpectedSize its buckets grow and queries slow down, far below it the
	// directories (about 1 MB at the default) dominate memory.
	ExpectedSize int
	// MaxBytesPerEntry bounds the memory per entry of the layout at
	// ExpectedSize; NewIndex picks the fastest layout within it and fails
	// with ErrInvalidOption when none fits. 0 means a default of 48 bytes
	// that bends: to up to 64 bytes when that buys a layout estimated at
	// least three times as fast (below about a million entries the directories
	// cost more per entry and the exact tables need wider entries: at
	// k = 3 and 16,384 entries, 4 exact tables at 50.6 B/entry query about
	// 5 times as fast as 2 multi-probe tables at 33 B/entry), and to the
	// smallest layout when none fits. Plan.OverBudget tells when it bent.
	MaxBytesPerEntry int
}

// Hit is one stored entry found by Index.Query.
type Hit struct {
	ID       uint64 // the id given to Add
	Distance int    // Hamming distance to the query
}

// Index finds every stored fingerprint within k bits of a query without
// scanning them all (Manku, Jain and Das Sarma, "Detecting Near-Duplicates
// for Web Crawling", WWW 2007, §3).
//
// The 64 bits are split into B blocks. In an exact layout (B > k), two
// fingerprints within k bits of each other differ in at most k blocks, so
// they agree exactly in at least m = B-k. For each of the C(B, m)
// combinations of m blocks the index keeps a table of all fingerprints with
// those blocks moved to the top bits, sorted, with a directory of bucket
// offsets on the top bits; a query looks up one bucket per table and checks
// the few entries in it. A pair matching in several combinations is reported
// only by the table of the first m blocks in which it agrees, so each entry
// is reported once.
//
// For larger k the exact layouts need many short keys, and a multi-probe
// layout (B <= k; multi-index hashing, Norouzi, Punjani and Fleet, CVPR 2012)
// is cheaper: one table per block, keyed on that block. Two fingerprints
// within k bits differ in at most r = floor(k/B) bits of some block, so a
// query looks up, in each table, every directory bucket within r bits of its
// own (Plan.ProbesPerQuery in all) and checks the entries in them; a pair is
// reported only by the first table whose block differs in at most r bits. A
// query at a smaller k probes fewer tables or a smaller radius, whichever is
// estimated cheaper. The layout (exact or multi-probe, B, directory size) is
// chosen from MaxDistance and ExpectedSize by an estimate of the probes and
// scanned entries of a query within the memory budget; Plan reports it.
//
// Each table stores only the bits below its directory (6 bytes per entry at
// the default size); ids are kept once, in the table sorted by fingerprint,
// and looked up there for the rare hits of the other tables. An id lookup for
// Add and Remove (4 bytes per entry: a position and a hash tag, bucketed by a
// hash of the id) and a tombstone bit complete the per-entry cost, about 44
// bytes at the defaults (see Plan and MemoryUsage).
//
// Add appends to a small buffer indexed by hash chains, one per table, that
// queries search too (a multi-probe query follows the chains of every key
// within its radius, or scans the buffer when it is small). A chain's head
// carries the number and tags of its first three entries, and a two-byte
// summary of the chain beside it (mostly cached) lets Query skip the heads
// of about three chains in four; it loads the others with its buckets.
// When the buffer reaches 1/8 of the sorted base (or removals make up that
// much) the buffer is merged into the base in one
// linear pass per table, bucket by bucket, which copies the unchanged runs
// and drops removed entries; the id lookup is updated through a map of old
// to new positions rather than rebuilt. Inserts are amortised O(1) in the
// base size; a merge holds the write lock for a time linear in the size
// (about 30 ms at a million entries on one core; with GOMAXPROCS > 1 the
// tables other than the first are merged on other goroutines, about 20 ms)
// and briefly needs the memory of a second base. On Linux the
// tables ask for transparent huge pages (madvise), which spares most TLB
// misses of random queries.
//
// A single Query waits for memory twice (directory entries, then buckets),
// and a near one a third time (for the ids of its hits); QueryBatch answers
// many queries as a pipeline in which those waits overlap. How much that
// gains depends on the machine: at a million entries on AMD Zen 4, whose
// misses cost about 170 ns, 1.5 times as many random queries per second
// and 1.4 times as many near ones; on an Intel Xeon, whose misses cost about
// 140 ns and whose work costs more, about as many as a single Query (3.6 M
// random queries/s against 3.3 M, 2.3 M near ones against 2.1 M).
//
// An Index is safe for concurrent use: Query, QueryBatch, Len, MemoryUsage
// and Plan take a read lock and may run in parallel; Add and Remove take the
// write lock. Query and QueryBatch do not allocate when their destination
// slices have room.
type Index struct {
	mu   sync.RWMutex
	lay  layout
	plan Plan
	base base
	buf  buffer
	live int
}

// table is one sorted, permuted table: the stored low bits of each entry in
// stride bytes (tableLayout.low: the 64-d bits below the directory, or fewer,
// see trimTables; little endian; 8 bytes of padding at the end so every entry
// can be loaded as a uint64), and the start of each of the 2^d buckets.
//
// Queries read the bucket starts from a compact copy of dir, half its size:
// the start of every 64th bucket (cbase) and each bucket's offset from it
// (cdir). A directory line then covers twice the buckets, so that the four
// directories of a k = 3 index at a million entries (512 KB instead of 1 MB)
// mostly stay in cache between queries, where the full ones are mostly
// fetched from memory: one dependent miss less per query. cdir is nil when
// some group of 64 buckets holds 65,536 entries or more (heavily clustered
// fingerprints); queries then read dir. Merges build dir and derive the
// compact copy (setCompact).
type table struct {
	data  []byte
	dir   []uint32
	cdir  []uint16
	cbase []uint32
}

// compactGroup is the number of buckets per cbase entry.
const compactGroup = 64

// setCompact derives cdir and cbase from dir.
func (t *table) setCompact() {
	t.cdir, t.cbase = nil, nil
	cbase := make([]uint32, (len(t.dir)+compactGroup-1)/compactGroup)
	cdir := make([]uint16, len(t.dir))
	for j, v := range t.dir {
		g := j / compactGroup
		if j%compactGroup == 0 {
			cbase[g] = v
		}
		d := v - cbase[g]
		if d > 0xffff {
			return
		}
		cdir[j] = uint16(d)
	}
	t.cdir, t.cbase = cdir, cbase
}

// bucket returns the first entry of bucket j and the first after it.
func (t *table) bucket(j uint64) (lo, hi uint32) {
	if c := t.cdir; c != nil {
		return t.cbase[j/compactGroup] + uint32(c[j]), t.cbase[(j+1)/compactGroup] + uint32(c[j+1])
	}
	return t.dir[j], t.dir[j+1]
}

// prefetchBucket adds to pl the directory line that bucket j's start is read
// from.
func (t *table) prefetchBucket(pl *prefetch.List, j uint64) {
	if t.cdir != nil {
		prefetch.Add(pl, t.cdir, int(j))
	} else {
		prefetch.Add(pl, t.dir, int(j))
	}
}

// base is the merged, sorted part of the index.
type base struct {
	n     int
	tabs  []table
	ids   []uint64 // ids in table 0 (fingerprint) order
	dead  []uint64 // tombstones over table 0 positions
	ndead int

	// id lookup: positions bucketed by the top idBits of mix64(id), each
	// with a tag of the next hash bits above posBits.
	idDir    []uint32
	idPos    []uint32
	idBits   uint
	posBits  uint
	posMask  uint32
	tagShift uint
	tagMask  uint32
}

// buffer holds the entries added since the last merge, linked into one
// chain per table (keyed on the table's top bits) and one per id hash.
//
// A table's chain head is one word: the index of the chain's first entry, the
// number of entries (1, 2, 3, or 4 for four or more) and a tag of each of
// the first three entries: its low tagBits bits of permuted fingerprint
// (bits below any key). The index takes as many bits as the buffer's size
// needs and the tags share the rest (15 bits each at a million entries). A
// query whose own low bits differ from a tag in more than k places need not
// load that entry, so that a chain of up to three entries, which is nearly
// every chain (the buffer holds up to about two entries per chain), costs a
// random query the one load of its head, made together with the directory
// loads; only the entries whose tags match, and longer chains, are walked.
type buffer struct {
	fps     []uint64
	ids     []uint64
	dead    []uint64
	ndead   int
	next    []int32    // links per entry (links of them): entry index+1, 0 ends
	links   int        // len(tables)+1: a chain per table, then the id chain
	heads   [][]uint64 // per table: index+1 | (count-1)<<idxBits | tags<<(idxBits+2)
	sums    [][]uint16 // per table, beside heads: 0, sumOne|tag, or sumMany
	idxBits uint       // bits of a head's index: bits.Len(limit)
	tagBits uint       // bits of each of its three tags
	idHeads []int32    // id chain heads, keyed on mix64(id)
	shift   []uint     // per chain (tables, then ids): 64 - key bits
	limit   int
	probes  []int // probes[k']: chains a multi-probe query at k' looks up
}

// Beside each chain head a table keeps a two-byte summary of the chain, in
// an array a quarter the size of the heads (128 KB per table at a million
// entries) that mostly stays in cache: 0 for no entry, sumOne with the low
// 15 bits of permuted fingerprint of a lone entry, or sumMany. Query reads
// the summaries with the directory entries and loads only the heads they
// cannot rule out, together with the buckets: a random query then waits
// for memory twice (buckets, then in one query in seven a chain entry)
// rather than for the heads too. QueryBatch, whose misses overlap anyway,
// reads the heads.
const (
	sumOne  = 1 << 15
	sumMany = 1
)

// sumAdd returns the summary of a chain whose summary was s once an entry
// with permuted value key is put in front of it.
func sumAdd(s uint16, key uint64) uint16 {
	if s == 0 {
		return sumOne | uint16(key)&(sumOne-1)
	}
	return sumMany
}

// sumSkips reports whether summary s rules out every entry of its chain for
// a query with permuted value qt at distance k.
func sumSkips(s uint16, qt uint64, k int) bool {
	return s == 0 || s&sumOne != 0 && bits.OnesCount16((s^uint16(qt))&(sumOne-1)) > k
}

// sizeHeads splits a head's word for a buffer of up to limit entries: the
// index takes bits.Len(limit) bits (below 1<<30: limit is at most
// maxIndexEntries/8), the count two, and the three tags share the rest.
func (bf *buffer) sizeHeads(limit int) {
	bf.idxBits = uint(bits.Len(uint(limit)))
	bf.tagBits = (62 - bf.idxBits) / 3
}

// headEntry returns the first entry (index+1, 0: none) of the chain whose
// head is h.
func (bf *buffer) headEntry(h uint64) int32 {
	return int32(h & (1<<bf.idxBits - 1))
}

// headAdd returns the head of a chain whose head was h once the entry with
// index i and permuted value key is put in front of it.
func (bf *buffer) headAdd(h uint64, i int, key uint64) uint64 {
	ib, w := bf.idxBits, bf.tagBits
	tags := h >> (ib + 2)
	n := uint64(0)
	if h != 0 {
		n = min(h>>ib&3+1, 3)
	}
	tags = (tags<<w | key&(1<<w-1)) & (1<<(3*w) - 1)
	return uint64(i+1) | n<<ib | tags<<(ib+2)
}

// first returns the entry at which a query with permuted value qt, at
// distance k, must start its walk of the chain whose head is h (0: none):
// the first entry, unless its tag rules it out; then the second, unless the
// tags rule out every entry of the chain after the first.
func (bf *buffer) first(h uint64, t int, qt uint64, k int) int32 {
	e, near, rest := bf.scope(h, qt, k)
	switch {
	case near:
		return e
	case rest:
		return bf.next[int(e-1)*bf.links+t]
	}
	return 0
}

// scope reads the head h of a chain for a query with permuted value qt at
// distance k: the chain's first entry e (0: none), whether its tag leaves
// it possibly within k (near), and whether the tags and count leave any
// entry after it possibly within k (rest).
func (bf *buffer) scope(h, qt uint64, k int) (e int32, near, rest bool) {
	ib, w := bf.idxBits, bf.tagBits
	e = bf.headEntry(h)
	if e == 0 {
		return 0, false, false
	}
	mask := uint64(1)<<w - 1
	q := qt & mask
	tags := h >> (ib + 2)
	near = bits.OnesCount64(tags&mask^q) <= k
	switch h >> ib & 3 { // entries - 1
	case 0:
		rest = false
	case 1:
		rest = bits.OnesCount64(tags>>w&mask^q) <= k
	case 2:
		rest = bits.OnesCount64(tags>>w&mask^q) <= k || bits.OnesCount64(tags>>(2*w)&mask^q) <= k
	default:
		rest = true
	}
	return e, near, rest
}

// NewIndex returns an empty Index for opts. Options out of range return an
// error wrapping neardup.ErrInvalidOption.
func NewIndex(opts IndexOptions) (*Index, error) {
	k := opts.MaxDistance
	if k == 0 {
		k = defaultIndexDistance
	}
	if k < 0 || k > MaxIndexDistance {
		return nil, fmt.Errorf("simhash: NewIndex: MaxDistance %d not in 0..%d: %w", opts.MaxDistance, MaxIndexDistance, neardup.ErrInvalidOption)
	}
	n := opts.ExpectedSize
	if n == 0 {
		n = defaultExpectedSize
	}
	if n < 0 || n > maxIndexEntries {
		return nil, fmt.Errorf("simhash: NewIndex: ExpectedSize %d not in 0..%d: %w", opts.ExpectedSize, maxIndexEntries, neardup.ErrInvalidOption)
	}
	if opts.MaxBytesPerEntry < 0 {
		return nil, fmt.Errorf("simhash: NewIndex: MaxBytesPerEntry %d < 0: %w", opts.MaxBytesPerEntry, neardup.ErrInvalidOption)
	}
	lay, plan, err := choosePlan(k, n, opts.MaxBytesPerEntry)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, neardup.ErrInvalidOption)
	}
	ix := &Index{lay: lay, plan: plan}
	ix.base = emptyBase(&ix.lay)
	ix.buf.reset(&ix.lay, mergeThreshold(0))
	return ix, nil
}

// maxIndexEntries keeps positions and bucket offsets within uint32.
const maxIndexEntries = min(1<<32-1<<20, math.MaxInt)

func emptyBase(l *layout) base {
	b := base{tabs: make([]table, len(l.tables))}
	for t := range b.tabs {
		b.tabs[t] = table{data: make([]byte, 8), dir: make([]uint32, 1<<l.tables[t].dbits+1)}
		b.tabs[t].setCompact()
	}
	b.buildIDs()
	return b
}

// Plan returns the layout chosen by NewIndex.
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
// neardup.ErrDuplicateID and leaves the index unchanged. The entry is visible
// to every Query that starts after Add returns.
func (ix *Index) Add(id uint64, fp Fingerprint) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	// what the add writes loads while find looks for the id
	ix.buf.prefetchAdd(&ix.lay, uint64(fp))
	if _, _, ok := ix.find(id); ok {
		return fmt.Errorf("simhash: Index.Add %d: %w", id, neardup.ErrDuplicateID)
	}
	if ix.live >= maxIndexEntries {
		return fmt.Errorf("simhash: Index.Add %d: index holds the maximum of %d entries", id, maxIndexEntries)
	}
	ix.buf.add(&ix.lay, id, uint64(fp))
	ix.live++
	ix.maybeMerge()
	return nil
}

// Remove drops the entry kept under id. An id not kept returns an error
// wrapping neardup.ErrUnknownID.
func (ix *Index) Remove(id uint64) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	inBase, i, ok := ix.find(id)
	if !ok {
		return fmt.Errorf("simhash: Index.Remove %d: %w", id, neardup.ErrUnknownID)
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

// Fingerprint returns the fingerprint kept under id, or false.
func (ix *Index) Fingerprint(id uint64) (Fingerprint, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	inBase, i, ok := ix.find(id)
	if !ok {
		return 0, false
	}
	if !inBase {
		return Fingerprint(ix.buf.fps[i]), true
	}
	return Fingerprint(ix.base.fingerprintAt(&ix.lay.tables[0], i)), true
}

func (ix *Index) maybeMerge() {
	if len(ix.buf.fps)+ix.base.ndead >= ix.buf.limit {
		ix.merge()
	}
}

// find locates a live entry by id: in the base (position in table 0) or in
// the buffer (entry index).
func (ix *Index) find(id uint64) (inBase bool, i int, ok bool) {
	h := mix64(id)
	b, bf := &ix.base, &ix.buf
	T := len(bf.heads)
	// both first loads before either scan, so that their misses overlap
	j := h >> (64 - b.idBits)
	lo, hi := b.idDir[j], b.idDir[j+1]
	e := bf.idHeads[h>>bf.shift[T]]
	tag := uint32(h>>b.tagShift) & b.tagMask
	for _, x := range b.idPos[lo:hi] {
		if x>>b.posBits == tag {
			p := int(x & b.posMask)
			if b.ids[p] == id && !bitGet(b.dead, p) {
				return true, p, true
			}
		}
	}
	for ; e != 0; e = bf.next[int(e-1)*(T+1)+T] {
		p := int(e - 1)
		if bf.ids[p] == id && !bitGet(bf.dead, p) {
			return false, p, true
		}
	}
	return false, 0, false
}

// Query appends to dst every kept entry within Hamming distance k of fp,
// each once, with its distance, and returns the extended slice. The order of
// the hits is unspecified. k outside 0..MaxDistance returns dst and an error
// wrapping neardup.ErrInvalidOption. Query does not allocate when dst has
// room for the hits.
func (ix *Index) Query(fp Fingerprint, k int, dst []Hit) ([]Hit, error) {
	if k < 0 || k > ix.lay.k {
		return dst, fmt.Errorf("simhash: Index.Query: k = %d not in 0..%d: %w", k, ix.lay.k, neardup.ErrInvalidOption)
	}
	ix.mu.RLock()
	dst = ix.query(uint64(fp), k, dst)
	ix.mu.RUnlock()
	return dst, nil
}

func (ix *Index) query(q uint64, k int, dst []Hit) []Hit {
	l := &ix.lay
	if l.qradius[k] > 0 {
		return ix.queryMulti(q, k, dst)
	}
	if l.rot != nil {
		return ix.queryRot(q, k, dst)
	}
	np := l.nprobe[k]
	b, bf := &ix.base, &ix.buf
	buffered := len(bf.fps) > 0
	S := bf.links
	var qt [maxIndexTables]uint64
	var lo, hi [maxIndexTables]uint32
	var sum [maxIndexTables]uint16
	var headH [maxIndexTables]uint64
	var head [maxIndexTables]int32
	// Random queries are dominated by cache misses: find every table's
	// bucket and buffer chain summary first, then prefetch the buckets and
	// load the chain heads the summaries do not rule out, then the first
	// entries of the chains to walk, so that the loads of each round are in
	// flight together before anything needs them (queryRot explains the
	// prefetches).
	for t := range np {
		tl := &l.tables[t]
		v := applySegments(tl.perm, q)
		qt[t] = v
		lo[t], hi[t] = b.tabs[t].bucket(v >> tl.shift)
		if buffered {
			sum[t] = bf.sums[t][v>>bf.shift[t]]
		}
	}
	for t := range np {
		data := b.tabs[t].data
		stride := l.tables[t].stride
		prefetch.Span(data, int(lo[t])*stride, scanEnd(int(hi[t])*stride, stride))
		if buffered && !sumSkips(sum[t], qt[t], k) {
			headH[t] = bf.heads[t][qt[t]>>bf.shift[t]]
		}
	}
	var pl prefetch.List
	for t := range np {
		if headH[t] != 0 {
			head[t] = bf.first(headH[t], t, qt[t], k)
		}
		if e := head[t]; e != 0 {
			bf.prefetchEntry(&pl, e, t)
		}
	}
	pl.Flush()
	for t := range np {
		if lo[t] == hi[t] {
			continue
		}
		tl := &l.tables[t]
		data := b.tabs[t].data
		stride, low := tl.stride, tl.low
		ql := qt[t] & low
		end := int(hi[t])
		for i := int(lo[t]); ; i++ {
			if x := scanBucket(data, i*stride, end*stride, stride, low, ql, k, nil); x < end*stride {
				i = x / stride
			} else {
				break
			}
			v := binary.LittleEndian.Uint64(data[i*stride:]) & low
			dst = ix.baseHit(t, k, i, (qt[t]&^low)|v, qt[t], q, dst)
			if t > 0 {
				// equal entries are one fingerprint, resolved at once
				for i+1 < end && binary.LittleEndian.Uint64(data[(i+1)*stride:])&low == v {
					i++
				}
			}
		}
	}
	if !buffered {
		return dst
	}
	for t := range np {
		for e := head[t]; e != 0; e = bf.next[int(e-1)*S+t] {
			i := int(e - 1)
			diff := bf.fps[i] ^ q
			if d := bits.OnesCount64(diff); d <= k && l.canonical(diff, t, k) && !bitGet(bf.dead, i) {
				dst = append(dst, Hit{ID: bf.ids[i], Distance: d})
			}
		}
	}
	return dst
}

// queryRot is query for a layout whose tables are rotations (l.rot set): the
// same loads in the same order, but every table's key is one rotate, so that
// no loop over segments stands between the query and its loads.
func (ix *Index) queryRot(q uint64, k int, dst []Hit) []Hit {
	l := &ix.lay
	np := l.nprobe[k]
	b, bf := &ix.base, &ix.buf
	tabs, tls, rot := b.tabs[:np], l.tables[:np], l.rot[:np]
	var qtA [maxRotTables]uint64
	var loA, hiA [maxRotTables]uint32
	var sumA [maxRotTables]uint16
	var headA [maxRotTables]int32
	qt, lo, hi, sum, head := qtA[:np], loA[:np], hiA[:np], sumA[:np], headA[:np]
	for t := range qt {
		qt[t] = bits.RotateLeft64(q, rot[t])
	}
	for t := range tabs {
		lo[t], hi[t] = tabs[t].bucket(qt[t] >> tls[t].shift)
	}
	buffered := len(bf.fps) > 0
	if buffered {
		sums, shift := bf.sums[:np], bf.shift[:np]
		for t := range sums {
			sum[t] = sums[t][qt[t]>>shift[t]]
		}
	}
	// prefetch every line of the buckets and the chain heads the summaries
	// do not rule out, and read the heads once table 0's bucket is
	// scanned, prefetching the first entry of every chain to walk, so that
	// all these misses overlap the scans. (Loads in place of the
	// prefetches, as here before, made every query wait for its last line
	// before its first scan: 10 % slower. PREFETCHNTA for the buckets,
	// which are read once, was 2 % faster than PREFETCHT0 on AMD Zen 4 but
	// 22 % slower on an Intel Xeon.)
	for t := range tabs {
		data, stride := tabs[t].data, tls[t].stride
		prefetch.Span(data, int(lo[t])*stride, scanEnd(int(hi[t])*stride, stride))
	}
	var need uint32 // tables whose chain heads are read after table 0's scan
	if buffered {
		heads, shift := bf.heads[:np], bf.shift[:np]
		for t := range heads {
			if !sumSkips(sum[t], qt[t], k) {
				need |= 1 << t
				prefetch.Elem(heads[t], int(qt[t]>>shift[t]))
			}
		}
	}
	readHeads := func() {
		var pl prefetch.List
		for m := need; m != 0; m &= m - 1 {
			t := bits.TrailingZeros32(m)
			e := bf.first(bf.heads[t][qt[t]>>bf.shift[t]], t, qt[t], k)
			head[t] = e
			if e != 0 {
				bf.prefetchEntry(&pl, e, t)
			}
		}
		pl.Flush()
	}
	// The chains are followed in lockstep, one link of every table's chain
	// per step, and a step is taken after each bucket scan from table 1's
	// on, so that their dependent misses overlap each other and the scans.
	// Hits are turned into ids once every bucket is scanned, their loads
	// prefetched when they are found, so that these misses overlap too:
	// table 0's from their positions, the other tables' resolved through
	// table 0 (its bucket and the bucket's ids prefetched whole).
	type pending struct {
		f    uint64
		dist int // its distance, or a bound below it (drop)
		drop uint64
	}
	var pend [8]pending
	npend := 0
	// hits of table 0: positions whose ids are read (prefetched till
	// then) after the scans
	var pos0 [8]uint32 // table 0 positions fit in uint32 (maxIndexEntries)
	var dis0 [8]uint8
	npos0 := 0
	t0 := &tls[0]
	tab0, data0, ids := &tabs[0], tabs[0].data, b.ids
	for t := range tabs {
		stride, low := tls[t].stride, tls[t].low
		ql := qt[t] & low
		start, end := int(lo[t])*stride, int(hi[t])*stride
		data := tabs[t].data[:end+8]
		skip := l.skipMasks(t)
		for x := start; ; x += stride {
			if x = scanBucket(data, x, end, stride, low, ql, k, skip); x >= end {
				break
			}
			v := binary.LittleEndian.Uint64(data[x:]) & low
			diff := bits.RotateLeft64(((qt[t]&^low)|v)^qt[t], -rot[t])
			switch {
			case !l.canonical(diff, t, k):
			case t == 0 && npos0 < len(pos0):
				i := x / stride
				pos0[npos0], dis0[npos0] = uint32(i), uint8(bits.OnesCount64(diff))
				npos0++
				var pl prefetch.List
				prefetch.Add(&pl, ids, i)
				prefetch.Add(&pl, b.dead, i>>6)
				pl.Flush()
			case t > 0 && npend < len(pend):
				// resolved through table 0 after the scans; the
				// loads of its bucket and ids start now
				f := q ^ diff
				if lo, hi := tab0.bucket(f >> t0.shift); lo < hi {
					var pl prefetch.List
					pl.Span(data0, int(lo)*t0.stride, scanEnd(int(hi)*t0.stride, t0.stride))
					for p := int(lo); p < int(hi) && pl.Len() < prefetch.ListSize; p += 8 {
						prefetch.Add(&pl, ids, p)
					}
					prefetch.Add(&pl, ids, int(hi)-1)
					pl.Flush()
				}
				pend[npend] = pending{f, bits.OnesCount64(diff), tls[t].drop}
				npend++
			default:
				dst = ix.baseHit(t, k, x/stride, (qt[t]&^low)|v, qt[t], q, dst)
			}
			if t > 0 {
				// equal entries are one fingerprint, resolved at once
				for x+stride < end && binary.LittleEndian.Uint64(data[x+stride:])&low == v {
					x += stride
				}
			}
		}
		switch {
		case t == 0 && need != 0:
			readHeads()
		case t > 0 && buffered:
			dst = ix.chainStep(head, q, k, dst)
		}
	}
	for buffered {
		var more int32
		dst = ix.chainStep(head, q, k, dst)
		for _, e := range head {
			more |= e
		}
		if more == 0 {
			break
		}
	}
	for j, i := range pos0[:npos0] {
		if !bitGet(b.dead, int(i)) {
			dst = append(dst, Hit{ID: ids[i], Distance: int(dis0[j])})
		}
	}
	for _, p := range pend[:npend] {
		dst = ix.resolve(p.f, p.drop, q, k, p.dist, dst)
	}
	return dst
}

// chainStep checks the buffer entry at the head of each table's chain in
// head and advances it by one link.
func (ix *Index) chainStep(head []int32, q uint64, k int, dst []Hit) []Hit {
	bf := &ix.buf
	S := bf.links
	for t, e := range head {
		if e == 0 {
			continue
		}
		i := int(e - 1)
		head[t] = bf.next[i*S+t]
		diff := bf.fps[i] ^ q
		if d := bits.OnesCount64(diff); d <= k && ix.lay.canonical(diff, t, k) && !bitGet(bf.dead, i) {
			dst = append(dst, Hit{ID: bf.ids[i], Distance: d})
		}
	}
	return dst
}

// queryMulti is query for a multi-probe distance k (qradius[k] > 0): in each
// of the first nprobe[k] tables it looks up every bucket whose directory bits
// are within the radius of the query's, a batch of buckets at a time so that
// their directory loads overlap, and scans each bucket for entries within k
// (k less the bits flipped in the bucket number, for the stored bits). The
// buffer is searched through its hash chains the same way, or scanned when
// it holds few entries for the number of chains a query would follow.
func (ix *Index) queryMulti(q uint64, k int, dst []Hit) []Hit {
	const batch = 64
	l := &ix.lay
	r, np := l.qradius[k], l.nprobe[k]
	b, bf := &ix.base, &ix.buf
	var lo, hi [batch]uint32
	var flip [batch]uint64
	for t := range np {
		tl := &l.tables[t]
		qt := applySegments(tl.perm, q)
		dir, data := b.tabs[t].dir, b.tabs[t].data
		stride, low, shift := tl.stride, tl.low, tl.shift
		qj, ql := qt>>shift, qt&low
		for f, more := uint64(0), true; more; {
			nb := 0
			for ; more && nb < batch; f, more = nextFlip(f, tl.dbits, r) {
				j := qj ^ f
				lo[nb], hi[nb], flip[nb] = dir[j], dir[j+1], f
				nb++
			}
			// prefetch every line of the buckets before scanning any,
			// so that their misses overlap (a list at a time: a call
			// per bucket costs more than it saves when they are cached)
			var pl prefetch.List
			for p := range nb {
				pl.Span(data, int(lo[p])*stride, scanEnd(int(hi[p])*stride, stride))
				if pl.Len() > prefetch.ListSize-4 {
					pl.Flush()
				}
			}
			pl.Flush()
			for p := range nb {
				kp := k - bits.OnesCount64(flip[p])
				top := (qj ^ flip[p]) << shift
				end := int(hi[p])
				for i := int(lo[p]); ; i++ {
					if x := scanBucket(data, i*stride, end*stride, stride, low, ql, kp, nil); x < end*stride {
						i = x / stride
					} else {
						break
					}
					v := binary.LittleEndian.Uint64(data[i*stride:]) & low
					dst = ix.baseHit(t, k, i, top|v, qt, q, dst)
					if t > 0 {
						for i+1 < end && binary.LittleEndian.Uint64(data[(i+1)*stride:])&low == v {
							i++
						}
					}
				}
			}
		}
	}
	n := len(bf.fps)
	if n == 0 {
		return dst
	}
	if n <= bufferScanFactor*bf.probes[k] {
		for i, f := range bf.fps {
			if d := bits.OnesCount64(f ^ q); d <= k && !bitGet(bf.dead, i) {
				dst = append(dst, Hit{ID: bf.ids[i], Distance: d})
			}
		}
		return dst
	}
	S := bf.links
	var head [batch]int32
	var keys, flips [batch]uint64
	for t := range np {
		shift := bf.shift[t]
		qt := applySegments(l.tables[t].perm, q)
		qk := qt >> shift
		heads := bf.heads[t]
		for f, more := uint64(0), true; more; {
			// a batch of chain heads prefetched, then read, and their
			// first entries prefetched, before any chain is walked
			nb := 0
			var pl prefetch.List
			for ; more && nb < batch; f, more = nextFlip(f, 64-int(shift), r) {
				keys[nb], flips[nb] = qk^f, f
				prefetch.Add(&pl, heads, int(qk^f))
				if pl.Len() == prefetch.ListSize {
					pl.Flush()
				}
				nb++
			}
			pl.Flush()
			for x := range nb {
				e := bf.first(heads[keys[x]], t, qt, k-bits.OnesCount64(flips[x]))
				head[x] = e
				if e != 0 {
					bf.prefetchEntry(&pl, e, t)
				}
			}
			pl.Flush()
			for _, e := range head[:nb] {
				for ; e != 0; e = bf.next[int(e-1)*S+t] {
					i := int(e - 1)
					diff := bf.fps[i] ^ q
					if d := bits.OnesCount64(diff); d <= k && l.canonical(diff, t, k) && !bitGet(bf.dead, i) {
						dst = append(dst, Hit{ID: bf.ids[i], Distance: d})
					}
				}
			}
		}
	}
	return dst
}

// bufferScanFactor: a multi-probe query scans the buffer instead of
// following its chains when it holds at most this many entries per chain
// the query would look up. (A variable so that tests can force the chains.)
var bufferScanFactor = 4

// baseHit handles entry i of table t whose permuted fingerprint cand is
// within distance kk of the query's qt: it reports it if t is its canonical
// table, resolving the ids through table 0 for the other tables.
func (ix *Index) baseHit(t, kk, i int, cand, qt, q uint64, dst []Hit) []Hit {
	l := &ix.lay
	diff := l.unpermute(t, cand^qt)
	if !l.canonical(diff, t, kk) {
		return dst
	}
	b := &ix.base
	dist := bits.OnesCount64(diff)
	if t == 0 {
		if !bitGet(b.dead, i) {
			dst = append(dst, Hit{ID: b.ids[i], Distance: dist})
		}
		return dst
	}
	return ix.resolve(q^diff, l.tables[t].drop, q, kk, dist, dst)
}

// resolve appends the live entries of table 0 that a hit of a table other
// than 0 stands for: f is the hit's fingerprint, exact but for the bits
// that table leaves out (drop, taken from the query). With drop 0 they are
// the entries equal to f, at distance dist; otherwise the entries equal to
// f outside drop whose own distance from q is at most k.
func (ix *Index) resolve(f, drop, q uint64, k, dist int, dst []Hit) []Hit {
	b := &ix.base
	t0 := &ix.lay.tables[0]
	lo, hi := b.tabs[0].bucket(f >> t0.shift)
	data := b.tabs[0].data
	for p := int(lo); p < int(hi); p++ {
		v := binary.LittleEndian.Uint64(data[p*t0.stride:])
		if d, ok := t0.standsFor(v, f, drop, q, k, dist); ok && !bitGet(b.dead, p) {
			dst = append(dst, Hit{ID: b.ids[p], Distance: d})
		}
	}
	return dst
}

// standsFor reports whether the table 0 entry with stored bits v, in the
// bucket of fingerprint f, is an entry a hit f of a table that leaves out
// the bits drop stands for (equal to f outside drop; within k of q when
// drop is not 0), and its distance from q (dist when drop is 0). t0 is
// table 0's layout.
func (t0 *tableLayout) standsFor(v, f, drop, q uint64, k, dist int) (int, bool) {
	mask := t0.low &^ drop
	if (v^f)&mask != 0 {
		return 0, false
	}
	if drop == 0 {
		return dist, true
	}
	d := bits.OnesCount64((f&^t0.low | v&t0.low) ^ q)
	return d, d <= k
}

// fingerprintAt returns the fingerprint at position p of table 0.
func (b *base) fingerprintAt(t0 *tableLayout, p int) uint64 {
	d := b.tabs[0].dir
	// the bucket is the last one starting at or before p
	lo, hi := 0, len(d)-1
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if int(d[mid]) <= p {
			lo = mid
		} else {
			hi = mid
		}
	}
	for lo+1 < len(d)-1 && int(d[lo+1]) <= p {
		lo++
	}
	return uint64(lo)<<t0.shift | binary.LittleEndian.Uint64(b.tabs[0].data[p*t0.stride:])&t0.low
}

// reset empties the buffer and sizes it for limit entries.
func (bf *buffer) reset(l *layout, limit int) {
	T := len(l.tables)
	S := T + 1
	bb := bufferBits(limit)
	if bf.limit != limit || bf.heads == nil {
		bf.links = S
		bf.heads = make([][]uint64, T)
		bf.sums = make([][]uint16, T)
		bf.shift = make([]uint, S)
		for t := range T {
			kb := min(bb, l.tables[t].prefix)
			bf.heads[t] = make([]uint64, 1<<kb)
			bf.sums[t] = make([]uint16, 1<<kb)
			bf.shift[t] = uint(64 - kb)
		}
		bf.idHeads = make([]int32, 1<<bb)
		bf.shift[T] = uint(64 - bb)
		bf.fps = make([]uint64, 0, limit)
		bf.ids = make([]uint64, 0, limit)
		bf.next = make([]int32, 0, limit*S)
		bf.dead = make([]uint64, (limit+63)/64)
	} else {
		for t := range bf.heads {
			clear(bf.heads[t])
			clear(bf.sums[t])
		}
		clear(bf.idHeads)
		bf.fps, bf.ids, bf.next = bf.fps[:0], bf.ids[:0], bf.next[:0]
		clear(bf.dead)
	}
	bf.limit = limit
	bf.sizeHeads(limit)
	bf.ndead = 0
	bf.probes = make([]int, l.k+1)
	for kk := range bf.probes {
		for t := range l.nprobe[kk] {
			bf.probes[kk] += neighbours(64-int(bf.shift[t]), l.qradius[kk])
		}
	}
}

// prefetchAdd prefetches what adding an entry of fingerprint fp writes to:
// the table chain heads it joins, and the lines that the entries appended a
// few adds later will be stored to.
func (bf *buffer) prefetchAdd(l *layout, fp uint64) {
	var pl prefetch.List
	bf.prefetchHeadsTo(&pl, l, fp)
	bf.prefetchAppends(&pl)
	pl.Flush()
}

// appendAhead is how many entries ahead of the next one prefetchAppends
// fetches the lines of.
const appendAhead = 8

// prefetchAppends adds to pl the lines that the entry appendAhead entries
// after the next will be stored to: its fingerprint, id and links. The
// arrays are written in order, a new line every few entries, and a store to
// a line not in cache holds up the next lock release until it arrives.
func (bf *buffer) prefetchAppends(pl *prefetch.List) {
	i := len(bf.fps) + appendAhead
	prefetch.Add(pl, bf.fps[:cap(bf.fps)], i)
	prefetch.Add(pl, bf.ids[:cap(bf.ids)], i)
	prefetch.Add(pl, bf.next[:cap(bf.next)], i*bf.links)
}

// prefetchEntry adds to pl the fingerprint and table t's link of entry e
// (index+1): what a walk of t's chain reads there.
func (bf *buffer) prefetchEntry(pl *prefetch.List, e int32, t int) {
	prefetch.Add(pl, bf.fps, int(e-1))
	prefetch.Add(pl, bf.next, int(e-1)*bf.links+t)
}

// prefetchHeadsTo adds to pl the table chain heads an entry of fingerprint
// fp joins.
func (bf *buffer) prefetchHeadsTo(pl *prefetch.List, l *layout, fp uint64) {
	for t, h := range bf.heads {
		j := int(l.permute(t, fp) >> bf.shift[t])
		prefetch.Add(pl, h, j)
		prefetch.Add(pl, bf.sums[t], j)
	}
}

func (bf *buffer) add(l *layout, id, fp uint64) {
	i := len(bf.fps)
	if i == len(bf.dead)*64 {
		bf.dead = append(bf.dead, 0)
	}
	bf.fps = append(bf.fps, fp)
	bf.ids = append(bf.ids, id)
	T := len(bf.heads)
	for t := range T {
		key := l.permute(t, fp)
		j := key >> bf.shift[t]
		h := &bf.heads[t][j]
		bf.next = append(bf.next, bf.headEntry(*h))
		*h = bf.headAdd(*h, i, key)
		bf.sums[t][j] = sumAdd(bf.sums[t][j], key)
	}
	h := &bf.idHeads[mix64(id)>>bf.shift[T]]
	bf.next = append(bf.next, *h)
	*h = int32(i + 1)
}

func bitGet(s []uint64, i int) bool { return s[i>>6]>>(uint(i)&63)&1 != 0 }
func bitSet(s []uint64, i int)      { s[i>>6] |= 1 << (uint(i) & 63) }

// mix64 is the SplitMix64 finaliser: a bijection that spreads ids over the
// id lookup's buckets.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
