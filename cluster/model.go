package cluster

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/bits-and-blooms/bitset"
)

// item is one object to cluster: the dense ids of its keywords (distinct,
// ascending) and its size |A|, the number of keywords it has. For an item the
// vocabulary does not wholly know (a new page's new words), size counts the
// unknown keywords too: they share nothing with any mode but still lower the
// cosine.
type item struct {
	ids  []uint32
	size int
}

// score is what similarity is computed from: |A ∩ M| and |M| (|A| is the
// item's size, the same for every cluster).
type score struct{ inter, m int }

// better reports whether a is strictly more similar than b for an item of
// the given size. The comparison is exact: for the cosine
// inter/√(size·m), a beats b when inter_a²·m_b > inter_b²·m_a (no shared
// keyword is similarity 0, whatever m); for simple matching, when a has fewer
// keywords in one set and not the other.
func (s Similarity) better(size int, a, b score) bool {
	if s == Matching {
		return a.m-2*a.inter < b.m-2*b.inter
	}
	switch {
	case a.inter == 0:
		return false
	case b.inter == 0:
		return true
	}
	return int64(a.inter)*int64(a.inter)*int64(b.m) > int64(b.inter)*int64(b.inter)*int64(a.m)
}

// dissim is the dissimilarity of an item of the given size to a mode, the
// unit of the k-modes cost: 1 − cosine (in [0, 1]) or, for simple matching,
// the number of keywords in one set and not the other.
func (s Similarity) dissim(size int, sc score) float64 {
	if s == Matching {
		return float64(size + sc.m - 2*sc.inter)
	}
	if sc.inter == 0 {
		return 1
	}
	return max(0, 1-float64(sc.inter)/math.Sqrt(float64(size)*float64(sc.m)))
}

// centre is one cluster: its mode (representatives), and the counts the mode
// is the top of.
type centre struct {
	mode    []uint32      // the mode's keyword ids, at most m, in no order
	bits    bitset.BitSet // the mode as a set
	counts  map[uint32]int32
	members int
	// exact is set when mode is the top m of counts (count descending, id
	// ascending); a fit stopped by its iteration cap leaves modes that are
	// not, and the first incremental update recomputes them.
	exact bool
}

func (c *centre) setMode(ids []uint32) {
	c.mode = ids
	c.bits.ClearAll()
	for _, id := range ids {
		c.bits.Set(uint(id))
	}
}

func (c *centre) score(x item) score {
	n := 0
	for _, id := range x.ids {
		if c.bits.Test(uint(id)) {
			n++
		}
	}
	return score{n, len(c.mode)}
}

// model is a fitted clustering over dense keyword ids: k centres with their
// modes, and the report of the fit that made them.
type model struct {
	sim     Similarity
	m       int // mode size
	centres []centre

	labels    []int32 // cluster of each fitted item, in fit order
	cost      float64
	iters     int
	converged bool
}

// nearest returns the cluster most similar to x, ties to the lowest index.
func (md *model) nearest(x item) int {
	best, bs := 0, md.centres[0].score(x)
	for j := 1; j < len(md.centres); j++ {
		if s := md.centres[j].score(x); md.sim.better(x.size, s, bs) {
			best, bs = j, s
		}
	}
	return best
}

// nearestP returns the p clusters most similar to x, most similar first,
// ties to the lowest index (p is clamped to k).
func (md *model) nearestP(x item, p int) []int {
	if p <= 1 {
		return []int{md.nearest(x)}
	}
	k := len(md.centres)
	scores := make([]score, k)
	order := make([]int, k)
	for j := range md.centres {
		scores[j] = md.centres[j].score(x)
		order[j] = j
	}
	if p < 8 && p < k {
		// Selection: p scans of the rest, cheaper than sorting all k.
		for i := range p {
			b := i
			for j := i + 1; j < k; j++ {
				if md.sim.better(x.size, scores[order[j]], scores[order[b]]) ||
					!md.sim.better(x.size, scores[order[b]], scores[order[j]]) && order[j] < order[b] {
					b = j
				}
			}
			order[i], order[b] = order[b], order[i]
		}
		return order[:p]
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case md.sim.better(x.size, scores[a], scores[b]):
			return -1
		case md.sim.better(x.size, scores[b], scores[a]):
			return 1
		}
		return cmp.Compare(a, b)
	})
	return order[:min(p, k)]
}

// outranks reports whether id a ranks above id b in cluster c's counts:
// a higher count, or the same count and a lower id.
func (c *centre) outranks(a, b uint32) bool {
	ca, cb := c.counts[a], c.counts[b]
	return ca > cb || ca == cb && a < b
}

// add folds an item with the given ids into cluster j (online k-modes): the
// counts grow, and the mode stays the top m of the counts. An increment can
// only move its own id into the mode, in place of the mode's weakest id, so
// each id costs O(m).
func (md *model) add(j int, ids []uint32) {
	c := &md.centres[j]
	c.members++
	if c.counts == nil { // counts dropped: the modes stay as fitted
		return
	}
	for _, id := range ids {
		c.counts[id]++
	}
	if !c.exact {
		md.recompute(j)
		return
	}
	for _, id := range ids {
		if c.bits.Test(uint(id)) {
			continue
		}
		if len(c.mode) < md.m {
			c.mode = append(c.mode, id)
			c.bits.Set(uint(id))
			continue
		}
		w := 0
		for i := 1; i < len(c.mode); i++ {
			if c.outranks(c.mode[w], c.mode[i]) {
				w = i
			}
		}
		if c.outranks(id, c.mode[w]) {
			c.bits.Clear(uint(c.mode[w]))
			c.mode[w] = id
			c.bits.Set(uint(id))
		}
	}
}

// remove takes an item with the given ids, folded in before, out of cluster
// j. A decrement of a mode's id may let an id outside the mode overtake it,
// so the mode is recomputed from the counts (O(distinct ids of the cluster)).
func (md *model) remove(j int, ids []uint32) {
	c := &md.centres[j]
	c.members--
	if c.counts == nil {
		return
	}
	inMode := false
	for _, id := range ids {
		if c.counts[id]--; c.counts[id] <= 0 {
			delete(c.counts, id)
		}
		inMode = inMode || c.bits.Test(uint(id))
	}
	if inMode || !c.exact {
		md.recompute(j)
	}
}

// recompute sets cluster j's mode to the top m ids of its counts.
func (md *model) recompute(j int) {
	c := &md.centres[j]
	ids := make([]uint32, 0, len(c.counts))
	for id := range c.counts {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint32) int {
		if c.outranks(a, b) {
			return -1
		}
		return 1 // ids are distinct
	})
	c.setMode(slices.Clip(ids[:min(md.m, len(ids))]))
	c.exact = true
}

// modeByRank returns cluster j's mode ids ranked by count (descending), then
// id (ascending).
func (md *model) modeByRank(j int) []uint32 {
	c := &md.centres[j]
	out := slices.Clone(c.mode)
	slices.SortFunc(out, func(a, b uint32) int {
		if c.outranks(a, b) {
			return -1
		}
		return 1
	})
	return out
}

// fitConfig is what a fit needs from the options.
type fitConfig struct {
	k, m, maxIter int
	sim           Similarity
	init          Init
	nInit         int
	seed          uint64
	workers       int
}

// fitData is the input of a fit, shared read-only by its runs.
type fitData struct {
	items []item
	nIDs  int     // ids are < nIDs
	df    []int32 // df[id]: the number of items holding id
	rep   []int32 // rep[i]: the first item with the same set as item i
}

func newFitData(items []item, nIDs int) *fitData {
	fd := &fitData{items: items, nIDs: nIDs, df: make([]int32, nIDs), rep: make([]int32, len(items))}
	first := make(map[uint64][]int32, len(items))
	for i, x := range items {
		for _, id := range x.ids {
			fd.df[id]++
		}
		h := hashIDs(x.ids)
		fd.rep[i] = int32(i)
		for _, j := range first[h] {
			if slices.Equal(items[j].ids, x.ids) {
				fd.rep[i] = j
				break
			}
		}
		if fd.rep[i] == int32(i) {
			first[h] = append(first[h], int32(i))
		}
	}
	return fd
}

// distinct returns the number of distinct sets among the items.
func (fd *fitData) distinct() int {
	n := 0
	for i, r := range fd.rep {
		if int(r) == i {
			n++
		}
	}
	return n
}

// hashIDs is FNV-1a over the ids.
func hashIDs(ids []uint32) uint64 {
	h := uint64(14695981039346656037)
	for _, id := range ids {
		h ^= uint64(id)
		h *= 1099511628211
	}
	return h
}

// fit clusters fd's items into cfg.k clusters; the caller has checked that
// there are at least k distinct sets. Cao's initialisation runs once; Huang's
// runs cfg.nInit times in parallel (run r draws from PCG(seed, r)) and the
// run of lowest cost wins (ties to the lowest r), so the result depends on
// the seed, never on scheduling.
func fit(fd *fitData, cfg fitConfig) *model {
	if cfg.init == Cao {
		return run(fd, cfg, caoInit(fd, cfg))
	}
	results := make([]*model, cfg.nInit)
	workers := min(cfg.workers, cfg.nInit)
	if workers < 1 {
		workers = min(runtime.GOMAXPROCS(0), cfg.nInit)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for r := range next {
				rng := rand.New(rand.NewPCG(cfg.seed, uint64(r)))
				results[r] = run(fd, cfg, huangInit(fd, cfg, rng))
			}
		})
	}
	for r := range cfg.nInit {
		next <- r
	}
	close(next)
	wg.Wait()
	best := results[0]
	for _, m := range results[1:] {
		if m.cost < best.cost {
			best = m
		}
	}
	return best
}

// caoInit is the initialisation of Cao, Liang and Bai (2009): the first
// centre is the item of highest density, each next one the item that
// maximises its density times its dissimilarity to the nearest centre chosen
// so far (ties to the lowest index). An item's density is the mean, over its
// keywords, of the share of items holding that keyword: Cao et al.'s
// Dens(x) = Σ_a |{y : y_a = x_a}| / (|U|·|A|) taken over the attributes a
// document has (its keywords). Over all presence attributes of the
// vocabulary the absent keywords, shared by nearly every pair, would add the
// same large term to every density and drown the signal.
func caoInit(fd *fitData, cfg fitConfig) [][]uint32 {
	n := len(fd.items)
	dens := make([]float64, n)
	first := 0
	for i, x := range fd.items {
		s := 0
		for _, id := range x.ids {
			s += int(fd.df[id])
		}
		dens[i] = float64(s) / (float64(n) * float64(len(x.ids)))
		if dens[i] > dens[first] {
			first = i
		}
	}
	modes := [][]uint32{fd.items[first].ids}
	var c centre
	c.setMode(fd.items[first].ids)
	mind := make([]float64, n)
	for i, x := range fd.items {
		mind[i] = cfg.sim.dissim(x.size, c.score(x))
	}
	chosen := map[int32]bool{fd.rep[first]: true}
	for len(modes) < cfg.k {
		best, bestv := -1, 0.0
		for i := range fd.items {
			if v := mind[i] * dens[i]; v > bestv && !chosen[fd.rep[i]] {
				best, bestv = i, v
			}
		}
		if best < 0 { // unreachable with k distinct sets; keep the centres distinct anyway
			for i := range fd.items {
				if !chosen[fd.rep[i]] {
					best = i
					break
				}
			}
		}
		chosen[fd.rep[best]] = true
		modes = append(modes, fd.items[best].ids)
		c.setMode(fd.items[best].ids)
		for i, x := range fd.items {
			mind[i] = min(mind[i], cfg.sim.dissim(x.size, c.score(x)))
		}
	}
	return modes
}

// huangInit is the frequency-based initialisation of Huang (1998), as
// nicodv/kmodes implements it: for each cluster, draw m keywords at random
// with probabilities proportional to their document frequencies, then take
// as the initial mode the item most similar to that draw (ties to the lowest
// index) whose set is not already a mode.
func huangInit(fd *fitData, cfg fitConfig, rng *rand.Rand) [][]uint32 {
	cum := make([]uint64, len(fd.df))
	var total uint64
	for id, f := range fd.df {
		total += uint64(f)
		cum[id] = total
	}
	chosen := map[int32]bool{}
	modes := make([][]uint32, 0, cfg.k)
	var c centre
	draw := make([]uint32, 0, cfg.m)
	for len(modes) < cfg.k {
		draw = draw[:0]
		c.bits.ClearAll()
		for try := 0; len(draw) < cfg.m && try < 64*cfg.m; try++ {
			id := uint32(sortSearch(cum, rng.Uint64N(total)))
			if !c.bits.Test(uint(id)) {
				c.bits.Set(uint(id))
				draw = append(draw, id)
			}
		}
		c.mode = draw
		best := -1
		var bs score
		for i, x := range fd.items {
			if chosen[fd.rep[i]] {
				continue
			}
			if s := c.score(x); best < 0 || cfg.sim.better(x.size, s, bs) {
				best, bs = i, s
			}
		}
		chosen[fd.rep[best]] = true
		modes = append(modes, fd.items[best].ids)
	}
	return modes
}

// sortSearch returns the first index i with cum[i] > x.
func sortSearch(cum []uint64, x uint64) int {
	i, _ := slices.BinarySearch(cum, x+1)
	return i
}

// run iterates k-modes from the initial modes: assign every item to its most
// similar mode (ties to the lowest index); stop when no item moved, or after
// cfg.maxIter assignments; otherwise give every empty cluster the item least
// similar to its own mode (from a cluster of two or more), recompute the
// modes as each cluster's m most frequent keywords, and repeat. The labels
// returned are always the assignment under the modes returned, so that
// assigning a fitted item again gives its label.
func run(fd *fitData, cfg fitConfig, init [][]uint32) *model {
	md := &model{sim: cfg.sim, m: cfg.m, centres: make([]centre, cfg.k)}
	for j, ids := range init {
		md.centres[j].setMode(slices.Clip(slices.Clone(ids))) // a mode grows in place later
	}
	n := len(fd.items)
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = -1
	}
	sizes := make([]int, cfg.k)
	counts := make([]int32, fd.nIDs) // scratch, zero between uses
	for md.iters = 1; ; md.iters++ {
		moved := 0
		clear(sizes)
		for i, x := range fd.items {
			j := int32(md.nearest(x))
			if labels[i] != j {
				labels[i] = j
				moved++
			}
			sizes[j]++
		}
		if moved == 0 {
			md.converged = true
			break
		}
		if md.iters >= cfg.maxIter {
			break
		}
		reseed(fd, md, labels, sizes)
		updateModes(fd, md, labels, counts)
	}
	md.labels = labels
	for i, x := range fd.items {
		md.cost += cfg.sim.dissim(x.size, md.centres[labels[i]].score(x))
	}
	md.buildCounts(fd.items, labels)
	return md
}

// reseed gives each empty cluster, in index order, the item least similar to
// its own mode among clusters of two or more (ties to the lowest index).
// With at least k distinct sets such an item always differs from its mode.
func reseed(fd *fitData, md *model, labels []int32, sizes []int) {
	for j, sz := range sizes {
		if sz > 0 {
			continue
		}
		donor, worst := -1, 0.0
		for i, x := range fd.items {
			if sizes[labels[i]] < 2 {
				continue
			}
			if d := md.sim.dissim(x.size, md.centres[labels[i]].score(x)); d > worst {
				donor, worst = i, d
			}
		}
		if donor < 0 {
			continue // every item equals its mode: nothing to split
		}
		sizes[labels[donor]]--
		labels[donor] = int32(j)
		sizes[j]++
	}
}

// updateModes sets each cluster's mode to the m ids most frequent among its
// items (count descending, id ascending). counts is zero scratch of nIDs.
func updateModes(fd *fitData, md *model, labels []int32, counts []int32) {
	byCluster := make([][]int32, len(md.centres))
	for i, j := range labels {
		byCluster[j] = append(byCluster[j], int32(i))
	}
	var touched []uint32
	for j, members := range byCluster {
		touched = touched[:0]
		for _, i := range members {
			for _, id := range fd.items[i].ids {
				if counts[id] == 0 {
					touched = append(touched, id)
				}
				counts[id]++
			}
		}
		slices.SortFunc(touched, func(a, b uint32) int {
			if c := cmp.Compare(counts[b], counts[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		mode := slices.Clone(touched[:min(md.m, len(touched))])
		for _, id := range touched {
			counts[id] = 0
		}
		if len(members) > 0 {
			md.centres[j].setMode(mode)
		}
	}
}

// dropCounts forgets the keyword counts of every centre (a model whose modes
// stay as fitted does not need them); add and remove then only count members.
func (md *model) dropCounts() {
	for j := range md.centres {
		md.centres[j].counts = nil
		md.centres[j].exact = false
	}
}

// buildCounts fills every centre's counts and members from the labels, for
// incremental updates; a converged fit's modes are the top of these counts.
func (md *model) buildCounts(items []item, labels []int32) {
	for j := range md.centres {
		md.centres[j].counts = make(map[uint32]int32)
		md.centres[j].members = 0
		md.centres[j].exact = md.converged
	}
	for i, j := range labels {
		c := &md.centres[j]
		c.members++
		for _, id := range items[i].ids {
			c.counts[id]++
		}
	}
}
