package hamming

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

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

// Plan describes the layout an Index chose in New, with its expected cost
// at Options.ExpectedSize entries.
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
	// Options.MaxBytesPerEntry).
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
			return layout{}, Plan{}, fmt.Errorf("hamming: New: no layout for MaxDistance %d fits %d bytes per entry (smallest needs %.1f)", k, budget, smallestBytes)
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
