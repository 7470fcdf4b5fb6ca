package editdist

import "math/bits"

// wordBits is the number of pattern rows one block of the bit-parallel
// algorithm holds.
const wordBits = 64

// stackBlocks is the number of blocks whose state Within keeps on the stack;
// longer patterns (above 64·stackBlocks symbols) allocate it.
const stackBlocks = 32

// Pattern is a string compiled for bit-parallel edit distances against many
// others (as regexp.Compile is for matching): for each symbol of the pattern,
// the bit mask of the positions where it occurs, in blocks of 64.
//
// The distance is Myers' bit-vector algorithm (G. Myers, "A fast bit-vector
// algorithm for approximate string matching based on dynamic programming",
// J. ACM 46(3), 1999) in the form for the edit distance of whole strings
// (H. Hyyrö, "A bit-vector algorithm for computing Levenshtein and
// Damerau edit distances", Nordic J. Computing 10, 2003), with blocks for
// patterns longer than 64 symbols. Within adds Ukkonen's cut-off: rows that
// cannot lie on a path of cost at most k are not computed, and the
// computation stops once no cell of a column can still lead to a distance of
// at most k.
//
// A Pattern is immutable after Compile and safe for concurrent use.
type Pattern struct {
	n      int      // length of the pattern in symbols
	blocks int      // ⌈n/64⌉
	shift  uint     // 32 − log2(len(slots))
	slots  []entry  // open addressing over the pattern's symbols
	peq    []uint64 // peq[row*blocks+b]: where symbol row occurs in block b; the last row is zeros
	zero   int32    // the row of zeros, for symbols not in the pattern
}

// Compile returns the Pattern of s.
func Compile(s []rune) *Pattern {
	n := len(s)
	p := &Pattern{n: n, blocks: (n + wordBits - 1) / wordBits}
	p.resize(16)
	rows := int32(0)
	for _, r := range s {
		if j := p.find(r); p.slots[j].row == 0 {
			rows++
			p.slots[j] = entry{key: r, row: rows}
			if 2*int(rows) > len(p.slots) { // at most half full
				p.resize(2 * len(p.slots))
			}
		}
	}
	p.zero = rows
	p.peq = make([]uint64, int(rows+1)*p.blocks)
	for i, r := range s {
		row := p.slots[p.find(r)].row - 1
		p.peq[int(row)*p.blocks+i/wordBits] |= 1 << (i % wordBits)
	}
	return p
}

// resize makes the hash table size slots (a power of two) and puts the
// symbols back.
func (p *Pattern) resize(size int) {
	old := p.slots
	p.shift = uint(32 - bits.TrailingZeros(uint(size)))
	p.slots = make([]entry, size)
	for _, e := range old {
		if e.row != 0 {
			p.slots[p.find(e.key)] = e
		}
	}
}

// entry is one slot of a Pattern's hash table: a symbol and its Peq row + 1
// (0 marks an empty slot).
type entry struct {
	key rune
	row int32
}

// find returns the slot of r: where it is, or the empty slot where it
// belongs.
func (p *Pattern) find(r rune) int {
	mask := len(p.slots) - 1
	j := int((uint32(r) * 0x9E3779B1) >> p.shift)
	for p.slots[j].row != 0 && p.slots[j].key != r {
		j = (j + 1) & mask
	}
	return j
}

// row returns the Peq row of symbol r.
func (p *Pattern) row(r rune) []uint64 {
	i := p.zero
	if row := p.slots[p.find(r)].row; row != 0 {
		i = row - 1
	}
	return p.peq[int(i)*p.blocks : int(i+1)*p.blocks]
}

// Len returns the length of the pattern in symbols.
func (p *Pattern) Len() int { return p.n }

// Distance returns the Levenshtein distance between the pattern and t:
// the least number of single-symbol substitutions, insertions and deletions
// that turn one into the other.
func (p *Pattern) Distance(t []rune) int {
	d, _ := p.Within(t, max(p.n, len(t)))
	return d
}

// Within reports whether the Levenshtein distance between the pattern and t
// is at most k, and when it is, returns it exactly. When it is not, d is
// k + 1 (a lower bound of the distance) and ok is false. A negative k is
// never within.
//
// Its cost is that of the rows and columns within k of the diagonal, and it
// stops as soon as the distance is known to exceed k: a pair of unequal
// lengths differing by more than k costs nothing.
func (p *Pattern) Within(t []rune, k int) (d int, ok bool) {
	n, m := p.n, len(t)
	switch {
	case k < 0:
		return 0, false
	case abs(n-m) > k:
		return k + 1, false
	case n == 0:
		return m, true // m ≤ k
	case m == 0:
		return n, true
	}
	bounded := k < max(n, m)

	var buf [2 * stackBlocks]uint64
	var pv, mv []uint64
	if p.blocks <= stackBlocks {
		pv, mv = buf[:p.blocks], buf[stackBlocks:stackBlocks+p.blocks]
	} else {
		all := make([]uint64, 2*p.blocks)
		pv, mv = all[:p.blocks], all[p.blocks:]
	}
	last := p.blocks - 1
	lastHigh := uint64(1) << ((n - 1) % wordBits)

	// Column 0 is D[i][0] = i. Block b holds rows 64b+1 .. 64b+64 as
	// vertical deltas (pv: +1, mv: −1). Blocks below the band are added as
	// the band reaches them; active is the lowest block added and bottom
	// is D at its last row.
	active, bottom := -1, 0
	// top is the last row that can lie on a path of cost ≤ k through
	// column j: i − j ≤ k, and the rest of the path costs at least
	// |(n−i) − (m−j)|.
	slack := k + min(0, n-m)
	lastBlock := last
	for j := 1; j <= m; j++ {
		if bounded {
			lastBlock = (min(n, j+slack) - 1) / wordBits
		}
		for active < lastBlock {
			// A block entering the band starts from column j−1's value
			// at the row above plus one per row: an upper bound of the
			// true values, exact for every cell a path of cost ≤ k can
			// use (Ukkonen).
			active++
			pv[active], mv[active] = ^uint64(0), 0
			bottom += min(wordBits, n-active*wordBits)
		}
		eq := p.row(t[j-1])[:active+1]
		pv, mv := pv[:active+1], mv[:active+1]
		// hp, hm: the horizontal delta D[i][j] − D[i][j−1] entering a
		// block from above, +1 at row 0.
		hp, hm := uint64(1), uint64(0)
		above := pv[:active]
		mabove, eabove := mv[:len(above)], eq[:len(above)]
		for b := range above {
			Pv, Mv, e := above[b], mabove[b], eabove[b]
			Xv := e | Mv
			Eq := e | hm
			Xh := (((Eq & Pv) + Pv) ^ Pv) | Eq
			Ph := Mv | ^(Xh | Pv)
			Mh := Pv & Xh
			op, om := Ph>>(wordBits-1), Mh>>(wordBits-1)
			Ph = Ph<<1 | hp
			Mh = Mh<<1 | hm
			above[b] = Mh | ^(Xv | Ph)
			mabove[b] = Ph & Xv
			hp, hm = op, om
		}
		high := uint64(1) << (wordBits - 1)
		if active == last {
			high = lastHigh
		}
		Pv, Mv, e := pv[active], mv[active], eq[active]
		Xv := e | Mv
		Eq := e | hm
		Xh := (((Eq & Pv) + Pv) ^ Pv) | Eq
		Ph := Mv | ^(Xh | Pv)
		Mh := Pv & Xh
		if Ph&high != 0 {
			bottom++
		} else if Mh&high != 0 {
			bottom--
		}
		Ph = Ph<<1 | hp
		Mh = Mh<<1 | hm
		pv[active] = Mh | ^(Xv | Ph)
		mv[active] = Ph & Xv

		if bounded && j < m && j%32 == 0 && p.columnBound(pv, mv, j, m) > k {
			return k + 1, false
		}
	}
	if bottom > k {
		return k + 1, false
	}
	return bottom, true
}

// columnBound returns the least cost of a path through column j of the
// computed rows: min over rows i of D[i][j] + |(n−i) − (m−j)|, with D
// rebuilt from the vertical deltas. Every path of cost ≤ k passes column j
// through a computed cell whose value is exact, so a bound above k proves
// the distance is above k.
func (p *Pattern) columnBound(pv, mv []uint64, j, m int) int {
	n := p.n
	d := j // D[0][j]
	best := d + abs(n-(m-j))
	i := 0
	for b := range pv {
		rows := min(wordBits, n-b*wordBits)
		P, M := pv[b], mv[b]
		for r := 0; r < rows; r++ {
			i++
			d += int(P>>r&1) - int(M>>r&1)
			best = min(best, d+abs((n-i)-(m-j)))
		}
	}
	return best
}

// Distance returns the Levenshtein distance between a and b, counted in
// runes (symbols): the least number of single-rune substitutions,
// insertions and deletions that turn a into b. It equals
// github.com/agnivade/levenshtein's ComputeDistance on the strings of a and
// b, computed 64 cells at a time.
func Distance(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	return Compile(b).Distance(a)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
