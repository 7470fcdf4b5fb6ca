package hamming

import (
	"math"
	"math/bits"
)

// Layout limits.
const (
	// MaxDistance is the largest Options.MaxDistance New
	// accepts. Beyond it every layout within reach scans a large fraction of
	// the index per query, and a linear scan is as fast.
	MaxDistance = 16

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
const maxRotTables = MaxDistance + 1

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
				panic("hamming: internal error: a block below a table's key is not stored")
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
