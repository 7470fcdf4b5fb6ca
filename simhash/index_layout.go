package simhash

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// Layout limits.
const (
	// MaxIndexDistance is the largest IndexOptions.MaxDistance NewIndex
	// accepts. Beyond it every layout within reach scans a large fraction of
	// the index per query, and a linear scan is as fast.
	MaxIndexDistance = 16

	defaultIndexDistance  = 3
	defaultExpectedSize   = 1 << 20
	defaultBytesPerEntry  = 48
	roomyBytesPerEntry    = 64 // what the default budget may bend to (see choosePlan)
	maxIndexTables        = 64
	minDirectoryBits      = 8
	maxDirectoryBits      = 24
	probeCostNanos        = 60 // one cache-missing bucket probe
	maxProbesPerQuery     = 1 << 13
	candidateCostNanos    = 1 // one scanned entry
	mergeFraction         = 8 // the buffer is merged when it reaches base/mergeFraction
	minMergeSize          = 256
	bufferBytesPerEntryFx = 16 // fingerprint + id of a buffered entry
)

// segment moves one run of adjacent blocks: out |= (x>>src & mask) << dst.
type segment struct {
	src, dst uint8
	mask     uint64
}

// tableLayout describes one permuted table: the blocks that must match
// exactly (its key) are moved to the top bits, the other blocks follow.
type tableLayout struct {
	combo  uint64    // bit b set: block b is in the key
	prefix int       // key bits p
	dbits  int       // directory bits d = min(p, directory bits of the layout)
	shift  uint      // 64 - d
	stride int       // bytes stored per entry: the low bits, rounded up
	low    uint64    // mask of the stored bits: the 64-d low bits, or fewer (drop)
	perm   []segment // original -> permuted
	inv    []segment // permuted -> original

	// drop is the mask (in the original bit order) of the block a table
	// other than 0 does not store, 0 when it stores every bit below its
	// directory (see trimTables); gap is the same bits in the table's order,
	// between the key and the stored bits.
	drop, gap uint64
}

// trimTables lets each table t > 0 of a rotation layout whose directory
// covers its key leave out the block just below the key, when that block is
// not block 0: at k = 3 and a million entries tables 1 and 2 store 32 bits
// (4 bytes) rather than 48 (6), 4 bytes and about a line per query less.
//
// A table's entries only name candidates; their ids are found through
// table 0, which stores every bit and keys on block 0, so that a candidate
// needs block 0 but not the left-out block: the lookup in table 0 compares
// the bits the table stores (bucket and stored bits, less the left-out
// block) and reads the rest there, and the distance is taken then (a table
// scan only bounds it from below). Whether table t is the one to report a
// pair does not depend on the left-out block either: it is block t+1, and
// canonical looks only at blocks up to t.
func (l *layout) trimTables() {
	if l.rot == nil {
		return
	}
	for t := 1; t+1 < len(l.tables); t++ {
		tl := &l.tables[t]
		b := t + 1 // the block below the key (tables key on block t)
		if tl.combo != 1<<uint(t) || tl.dbits != tl.prefix {
			continue
		}
		kept := 64 - tl.prefix - l.width[b]
		if (kept+7)/8 == tl.stride {
			continue // no byte saved
		}
		tl.drop = l.blockMask[b]
		tl.low = lowMask(kept)
		tl.gap = lowMask(64-tl.prefix) &^ tl.low
		tl.stride = (kept + 7) / 8
	}
}

// stored returns the permuted value v of table t as the table keeps it:
// the bits of its left-out block cleared, so that the bucket's entries
// sort by the bits they store.
func (tl *tableLayout) stored(v uint64) uint64 { return v &^ tl.gap }

func applySegments(segs []segment, x uint64) uint64 {
	var out uint64
	for _, s := range segs {
		out |= (x >> s.src & s.mask) << s.dst
	}
	return out
}

// layout is the block structure shared by every table of an index.
//
// An exact layout (multi false) keys each table on a combination of m = B-k
// blocks and probes one bucket per table. A multi-probe layout (multi true)
// keys table t on block t alone and probes every bucket whose directory bits
// are within a radius of the query's.
type layout struct {
	k         int      // largest query distance
	blocks    int      // B
	exact     int      // blocks in a table's key: B - k, or 1 when multi
	blockMask []uint64 // original-space mask of each block; block 0 holds the top bits
	width     []int
	tables    []tableLayout
	nprobe    []int // nprobe[k'] tables are probed for a query at distance k'
	dirBits   int

	multi   bool
	radius  int   // the radius at distance k: floor(k/B) when multi, else 0
	qradius []int // qradius[k'] is the radius probed at distance k'

	// rot is set when the layout is exact and every table's permutation is
	// a rotation of the fingerprint (each key is one block, B = k+1):
	// rot[t] is the left rotation of table t, and query and Add take a
	// straight-line path that needs no segment loop.
	rot []int
	// skip[t], for a rotation layout's table t > 0, holds the stored-bit
	// masks of blocks 0, 1 and 2 below t (repeated when t < 3): an entry of
	// the table that agrees with the query in one of them is reported by an
	// earlier table (canonical), and scanBucket passes over it.
	skip [][3]uint64
}

// maxRotTables bounds the tables of a rotation layout (B = k+1 blocks, one
// per table), so that queryRot's per-table arrays stay small: zeroing arrays
// of maxIndexTables entries costs a tenth of a cached query.
const maxRotTables = MaxIndexDistance + 1

// permute returns x in the bit order of table t.
func (l *layout) permute(t int, x uint64) uint64 {
	if l.rot != nil {
		return bits.RotateLeft64(x, l.rot[t])
	}
	return applySegments(l.tables[t].perm, x)
}

// unpermute returns x, in the bit order of table t, in the original order.
func (l *layout) unpermute(t int, x uint64) uint64 {
	if l.rot != nil {
		return bits.RotateLeft64(x, -l.rot[t])
	}
	return applySegments(l.tables[t].inv, x)
}

// setRotations sets l.rot when every table's permutation is a rotation.
func (l *layout) setRotations() {
	if l.multi || len(l.tables) > maxRotTables {
		return
	}
	rot := make([]int, len(l.tables))
	for t := range l.tables {
		tl := &l.tables[t]
		// the rotation that moves bit 0 where perm moves it
		r := bits.TrailingZeros64(applySegments(tl.perm, 1))
		for i := range 64 {
			x := uint64(1) << uint(i)
			if applySegments(tl.perm, x) != bits.RotateLeft64(x, r) {
				return
			}
		}
		rot[t] = r
	}
	l.rot = rot
}

// newLayout splits 64 bits into blocks (wider blocks first, block 0 at the
// top) and makes one table for each combination of blocks-k blocks, in
// colexicographic order so that the tables needed at a smaller distance are a
// prefix and table 0 keys on the top blocks (its permutation is the identity).
func newLayout(k, blocks, dirBits int) layout {
	m := blocks - k
	l := layout{k: k, blocks: blocks, exact: m, dirBits: dirBits}
	lo := l.split()
	// Colex order of m-subsets of {0..B-1} is the numeric order of their
	// bit masks (Gosper's hack enumerates it).
	for c := uint64(1)<<uint(m) - 1; c < uint64(1)<<uint(blocks); {
		l.tables = append(l.tables, l.tableFor(c, lo))
		if c == 0 {
			break
		}
		// next mask with the same popcount
		u := c & -c
		v := c + u
		c = v + (v^c)/u>>2
	}
	l.nprobe = make([]int, k+1)
	l.qradius = make([]int, k+1)
	for kk := 0; kk <= k; kk++ {
		l.nprobe[kk] = binomial(m+kk, m)
	}
	l.setRotations()
	l.trimTables()
	l.setSkips()
	return l
}

// setSkips sets l.skip for a rotation layout (see layout.skip).
func (l *layout) setSkips() {
	if l.rot == nil {
		return
	}
	l.skip = make([][3]uint64, len(l.tables))
	for t := 1; t < len(l.tables); t++ {
		tl := &l.tables[t]
		for i := range 3 {
			m := bits.RotateLeft64(l.blockMask[min(i, t-1)], l.rot[t])
			if m&^tl.low != 0 {
				panic("simhash: internal error: a block below a table's key is not stored")
			}
			l.skip[t][i] = m
		}
	}
}

// skipMasks returns the masks scanBucket passes over table t's
// non-canonical entries with (nil: none).
func (l *layout) skipMasks(t int) *[3]uint64 {
	if t == 0 || l.skip == nil {
		return nil
	}
	return &l.skip[t]
}

// newMultiLayout splits 64 bits into blocks < k+1 blocks (multi-index
// hashing: Norouzi, Punjani and Fleet, CVPR 2012) with one table per block,
// table t keyed on block t. Two fingerprints within k' bits differ in at most
// floor(k'/j) bits of one of any j blocks, so a query at distance k' probes
// the first j tables at every directory bucket within radius r' of its own,
// for the j = floor(k'/(r'+1))+1 <= blocks and r' <= floor(k/blocks) of
// least estimated cost at n entries.
func newMultiLayout(k, blocks, dirBits, n int) layout {
	if blocks > k {
		return newLayout(k, blocks, dirBits)
	}
	l := layout{k: k, blocks: blocks, exact: 1, dirBits: dirBits, multi: true, radius: k / blocks}
	lo := l.split()
	for b := range blocks {
		l.tables = append(l.tables, l.tableFor(1<<uint(b), lo))
	}
	l.nprobe = make([]int, k+1)
	l.qradius = make([]int, k+1)
	for kk := 0; kk <= k; kk++ {
		best := math.Inf(1)
		for r := 0; r <= l.radius; r++ {
			j := kk/(r+1) + 1
			if j > blocks {
				continue
			}
			probes, cands := l.probeCost(j, r, n)
			if c := probes*probeCostNanos + cands*candidateCostNanos; c < best {
				best, l.nprobe[kk], l.qradius[kk] = c, j, r
			}
		}
	}
	return l
}

// neighbours is the number of d-bit keys within r bits of a key.
func neighbours(d, r int) int {
	s := 0
	for i := 0; i <= r; i++ {
		s += binomial(d, i)
	}
	return s
}

// probeCost estimates the buckets probed and the entries scanned by a query
// probing the first j tables within radius r at n entries.
func (l *layout) probeCost(j, r, n int) (probes, candidates float64) {
	for _, t := range l.tables[:j] {
		p := float64(neighbours(t.dbits, r))
		probes += p
		candidates += p * float64(max(n, 1)) / math.Exp2(float64(t.dbits))
	}
	return
}

// nextFlip returns the mask after f in the enumeration of the d-bit masks of
// at most r bits: 0, then the masks of one bit in increasing order, then of
// two bits (Gosper's hack), and so on; false after the last.
func nextFlip(f uint64, d, r int) (uint64, bool) {
	if f == 0 {
		return 1, r > 0 && d > 0
	}
	u := f & -f
	v := f + u
	if next := v + (v^f)/u>>2; next < uint64(1)<<uint(d) {
		return next, true
	}
	c := bits.OnesCount64(f) + 1
	return uint64(1)<<uint(c) - 1, c <= r && c <= d
}

// split sets the widths and masks of the blocks, wider blocks first and
// block 0 at the top, and returns the lowest bit of each.
func (l *layout) split() []int {
	blocks := l.blocks
	l.width = make([]int, blocks)
	l.blockMask = make([]uint64, blocks)
	lo := make([]int, blocks)
	top := 64
	for b := range blocks {
		w := 64 / blocks
		if b < 64%blocks {
			w++
		}
		l.width[b] = w
		top -= w
		lo[b] = top
		l.blockMask[b] = lowMask(w) << uint(top)
	}
	return lo
}

func lowMask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<uint(w) - 1
}

func (l *layout) tableFor(combo uint64, lo []int) tableLayout {
	// key blocks ascending, then the others cyclically after the last key
	// block, so that a single-block key is a plain rotation (two segments).
	var order []int
	last := 0
	for b := range l.blocks {
		if combo>>uint(b)&1 == 1 {
			order = append(order, b)
			last = b
		}
	}
	for i := 1; i <= l.blocks; i++ {
		b := (last + i) % l.blocks
		if combo>>uint(b)&1 == 0 {
			order = append(order, b)
		}
	}
	t := tableLayout{combo: combo}
	for _, b := range order {
		if combo>>uint(b)&1 == 1 {
			t.prefix += l.width[b]
		}
	}
	dst := 64
	for i := 0; i < len(order); {
		b := order[i]
		w := l.width[b]
		j := i + 1
		for j < len(order) && order[j] == order[j-1]+1 {
			w += l.width[order[j]]
			j++
		}
		last := order[j-1]
		dst -= w
		t.perm = append(t.perm, segment{src: uint8(lo[last]), dst: uint8(dst), mask: lowMask(w)})
		t.inv = append(t.inv, segment{src: uint8(dst), dst: uint8(lo[last]), mask: lowMask(w)})
		i = j
	}
	t.dbits = min(t.prefix, l.dirBits)
	t.shift = uint(64 - t.dbits)
	t.stride = (64 - t.dbits + 7) / 8
	t.low = lowMask(64 - t.dbits)
	return t
}

// matched returns the set of blocks in which two fingerprints differing by
// diff agree.
func (l *layout) matched(diff uint64) uint64 {
	var s uint64
	for b, m := range l.blockMask {
		if diff&m == 0 {
			s |= 1 << uint(b)
		}
	}
	return s
}

// canonical reports whether table t is the one that reports a pair differing
// by diff to a query at distance kk. In an exact layout it is the table keyed
// on the first m blocks in which they agree: every pair within k bits agrees
// in at least m blocks, so exactly one table claims it. In a multi-probe
// layout it is the first table whose block differs in at most qradius[kk]
// bits, which one of the nprobe[kk] probed tables does by pigeonhole.
func (l *layout) canonical(diff uint64, t, kk int) bool {
	if l.multi {
		r := l.qradius[kk]
		for u := range t {
			if bits.OnesCount64(diff&l.blockMask[u]) <= r {
				return false
			}
		}
		return bits.OnesCount64(diff&l.blockMask[t]) <= r
	}
	s := l.matched(diff)
	var first uint64
	for range l.exact {
		if s == 0 {
			return false
		}
		low := s & -s
		first |= low
		s &^= low
	}
	return first == l.tables[t].combo
}

func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
		if r > 1<<30 {
			return 1 << 30
		}
	}
	return r
}

// directoryBits is the size of a table's bucket directory for n entries: a
// bucket holds about 16 entries and the directory costs about 1/4 byte per
// entry.
func directoryBits(n int) int {
	d := bits.Len(uint(max(n, 1)-1)) - 4
	return min(max(d, minDirectoryBits), maxDirectoryBits)
}

// Plan describes the layout an Index chose in NewIndex, with its expected cost
// at IndexOptions.ExpectedSize entries.
type Plan struct {
	MaxDistance  int // largest k a Query may ask
	ExpectedSize int // the size the layout was chosen for

	Blocks int // the 64 bits are split into this many blocks
	// ExactBlocks is the number of blocks in a table's key: Blocks -
	// MaxDistance in an exact layout (Radius 0), 1 in a multi-probe layout.
	ExactBlocks int
	// Tables is the number of sorted tables: C(Blocks, ExactBlocks), one
	// per combination of key blocks.
	Tables    int
	BlockBits []int // width of each block, block 0 holding the top bits

	// Radius is 0 in an exact layout: a query at MaxDistance looks up one
	// bucket per table, the one of its own key. In a multi-probe layout
	// (one table per block) it is floor(MaxDistance/Blocks): a query at
	// MaxDistance looks up every bucket whose directory bits differ from
	// its own in at most Radius bits, in the first
	// floor(MaxDistance/(Radius+1))+1 tables.
	Radius int
	// ProbesPerQuery is the number of buckets a query at MaxDistance looks
	// up in the sorted tables (the insert buffer is searched likewise).
	ProbesPerQuery int

	// PrefixBits is the smallest number of key bits of a table (the bits
	// that must match exactly, or within Radius); DirectoryBits is how many
	// of them index a table's bucket directory.
	PrefixBits    int
	DirectoryBits int

	// BytesPerEntry estimates the memory per entry at ExpectedSize:
	// tables, ids, directories and id lookup amortised, and the insert
	// buffer when full.
	BytesPerEntry float64
	// CandidatesPerProbe is the mean number of entries scanned in one
	// bucket at ExpectedSize.
	CandidatesPerProbe float64
	// CandidatesPerQuery is the number of entries scanned by a query at
	// MaxDistance: CandidatesPerProbe times ProbesPerQuery.
	CandidatesPerQuery float64
	// OverBudget is true when the layout takes more than the default
	// budget of 48 bytes per entry, which bends where that buys a much
	// faster layout or where nothing fits (see
	// IndexOptions.MaxBytesPerEntry).
	OverBudget bool
}

// String summarises the plan on one line.
func (p Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "k<=%d: %d blocks of %s bits, %d tables ", p.MaxDistance, p.Blocks, widths(p.BlockBits), p.Tables)
	if p.Radius > 0 {
		fmt.Fprintf(&b, "(one per block, probed within radius %d)", p.Radius)
	} else {
		fmt.Fprintf(&b, "(C(%d,%d), %d exact block", p.Blocks, p.ExactBlocks, p.ExactBlocks)
		if p.ExactBlocks != 1 {
			b.WriteString("s")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", %d probes/query, %d-bit prefix, %d-bit directory; %.1f B/entry, %.1f candidates/probe, %.1f/query at %d entries",
		p.ProbesPerQuery, p.PrefixBits, p.DirectoryBits, p.BytesPerEntry, p.CandidatesPerProbe, p.CandidatesPerQuery, p.ExpectedSize)
	if p.OverBudget {
		b.WriteString(" (over budget)")
	}
	return b.String()
}

func widths(w []int) string {
	lo, hi := math.MaxInt, 0
	for _, x := range w {
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// mergeThreshold is the buffer size that triggers a merge into a base of n
// entries.
func mergeThreshold(n int) int {
	return max(minMergeSize, n/mergeFraction)
}

// bufferBits sizes the buffer's chain heads for a buffer of up to size
// entries: one entry per chain when full.
func bufferBits(size int) int {
	return max(bits.Len(uint(size-1)), 4)
}

// bytesPerEntry estimates the memory per entry of layout l at n entries.
func (l *layout) bytesPerEntry(n int) float64 {
	nf := float64(max(n, 1))
	T := len(l.tables)
	m := mergeThreshold(n)
	bb := bufferBits(m)
	var bpe, dirs, heads float64
	for _, t := range l.tables {
		bpe += float64(t.stride)
		nb := float64(uint64(1)<<uint(t.dbits) + 1)
		dirs += 4*nb + 2*nb + 4*nb/compactGroup                  // dir and its compact copy
		heads += (8 + 2) * math.Exp2(float64(min(bb, t.prefix))) // heads, summaries
	}
	// ids, id lookup (position + tag) and its directory, tombstones
	idDir := 4 * math.Exp2(float64(max(bits.Len(uint(n))-4, 1)))
	bpe += 8 + 4 + 1.0/8 + (dirs+idDir)/nf
	// the insert buffer at its largest: entries, chain links, heads
	heads += 4 * math.Exp2(float64(bb))
	buf := float64(m)*(bufferBytesPerEntryFx+4*float64(T+1)+1.0/8) + heads
	return bpe + buf/nf
}

// choosePlan picks the layout for distance k at n entries: among the exact
// layouts (any number of blocks above k) and the multi-probe ones (1 to k
// blocks), the one with the lowest estimated query cost at distance k —
// probes times probeCostNanos plus scanned entries times
// candidateCostNanos — whose memory fits the budget (budget 0: the default
// budget, falling back to the smallest layout).
func choosePlan(k, n, budget int) (layout, Plan, error) {
	strict := budget > 0
	if !strict {
		budget = defaultBytesPerEntry
	}
	dirBits := directoryBits(n)
	var best, smallest, roomy layout
	bestCost, smallestBytes, roomyCost := math.Inf(1), math.Inf(1), math.Inf(1)
	var bestBytes, roomyBytes float64
	consider := func(l layout) {
		bpe := l.bytesPerEntry(n)
		probes, cands := l.probeCost(l.nprobe[k], l.qradius[k], n)
		if probes > maxProbesPerQuery {
			return
		}
		cost := probes*probeCostNanos + cands*candidateCostNanos
		if bpe < smallestBytes {
			smallest, smallestBytes = l, bpe
		}
		if bpe <= float64(budget) && cost < bestCost {
			best, bestCost, bestBytes = l, cost, bpe
		}
		if !strict && bpe <= roomyBytesPerEntry && cost < roomyCost {
			roomy, roomyCost, roomyBytes = l, cost, bpe
		}
	}
	maxBlocks := 32
	if k == 0 {
		maxBlocks = 1 // every split gives the same single table
	}
	for B := k + 1; B <= maxBlocks; B++ {
		if binomial(B, k) > maxIndexTables {
			break
		}
		consider(newLayout(k, B, dirBits))
	}
	for B := 1; B <= k; B++ {
		consider(newMultiLayout(k, B, dirBits, n))
	}
	if !strict && roomyCost*3 <= bestCost {
		// The default budget bends where a little more memory buys a
		// much faster layout: below a million entries the directories
		// cost more per entry and the exact tables need wider entries.
		// (At k = 3 and 16K entries the estimate says 5.5 times faster,
		// measured 5 times; at k = 8 and 1M, 2.1 times for 53.6 instead of
		// 38.9 B/entry, measured only 1.16 times: not worth it.)
		best, bestCost, bestBytes = roomy, roomyCost, roomyBytes
	}
	if math.IsInf(bestCost, 1) {
		if strict {
			return layout{}, Plan{}, fmt.Errorf("simhash: NewIndex: no layout for MaxDistance %d fits %d bytes per entry (smallest needs %.1f)", k, budget, smallestBytes)
		}
		best, bestBytes = smallest, smallestBytes
	}
	over := bestBytes > float64(budget)
	return best, best.plan(n, bestBytes, over), nil
}

// plan describes layout l at n entries.
func (l *layout) plan(n int, bytes float64, over bool) Plan {
	probes, cands := l.probeCost(l.nprobe[l.k], l.qradius[l.k], n)
	p := Plan{
		MaxDistance:        l.k,
		ExpectedSize:       n,
		Blocks:             l.blocks,
		ExactBlocks:        l.exact,
		Tables:             len(l.tables),
		BlockBits:          append([]int(nil), l.width...),
		Radius:             l.radius,
		ProbesPerQuery:     int(probes),
		PrefixBits:         64,
		BytesPerEntry:      bytes,
		CandidatesPerProbe: cands / probes,
		CandidatesPerQuery: cands,
		OverBudget:         over,
	}
	for _, t := range l.tables {
		p.PrefixBits = min(p.PrefixBits, t.prefix)
		p.DirectoryBits = max(p.DirectoryBits, t.dbits)
	}
	return p
}
