package minhash

import (
	"runtime"
	"slices"
)

// hostModel counts, for one host, the kept pages whose content sketch holds
// each block (a block is template once MinPages kept pages hold it), and
// lists the host's kept pages. The counts are a function of the kept pages
// alone: a page offered again, or a near-duplicate that was not kept, counts
// nothing, so verdicts do not drift as pages are re-offered.
type hostModel struct {
	name string
	// counted holds the counted blocks, block<<32 | count, ascending;
	// fresh the blocks first counted since counted was last rebuilt, in
	// the same form and none of them in counted. A page that brings new
	// blocks inserts them in the short fresh, so that a large host's
	// counts are not copied whole on every page; fresh is merged into
	// counted once it holds more than a sixteenth as many.
	counted, fresh []uint64
	pages          []uint32 // handles of the host's kept pages
	// sigs[i] has a bit set for each block of pages[i] (blockBit): rekey
	// reads a page's blocks only when its bits hold a changed block's.
	sigs []uint64
	// tmpl lists, ascending, the blocks counted at least the template
	// threshold: a page's content is stripped by searching these few
	// rather than all the counted blocks.
	tmpl []uint32
}

// findBlock returns the index in s (block<<32 | count, ascending) of block
// k, or where it would be, and whether it is there.
func findBlock(s []uint64, k uint32) (int, bool) { return search(s, k, 32) }

// search returns the index in s (ascending and distinct in key(e) =
// uint32(e >> shift)) of key k, or where it would be, and whether it is
// there. Blocks are hashes, spread evenly over 32 bits, so interpolating k
// between the keys that bound the range narrows it to a few entries in a
// probe or two where a binary search of a large host's counts takes a
// dozen, most of them cache misses; a binary search finishes, and bounds
// the probes whatever the keys.
func search[E uint32 | uint64](s []E, k uint32, shift uint) (int, bool) {
	lo, hi := 0, len(s)
	lk, hk := uint64(0), uint64(1)<<32 // the keys of s[lo:hi] lie in [lk, hk)
	for step := 0; step < interpolations && hi-lo > 8; step++ {
		m := lo + int((uint64(k)-lk)*uint64(hi-lo)/(hk-lk))
		switch v := uint32(uint64(s[m]) >> shift); {
		case v < k:
			lo, lk = m+1, uint64(v)+1
		case v > k:
			hi, hk = m, uint64(v)
		default:
			return m, true
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if uint32(uint64(s[m])>>shift) < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s) && uint32(uint64(s[lo])>>shift) == k
}

// interpolations bounds the interpolation probes of search.
const interpolations = 4

// guess returns search's first probe of key k in n entries.
func guess(n int, k uint32) int { return int(uint64(k) * uint64(n) >> 32) }

// blockBit returns the bit of block k in a page's signature.
func blockBit(k uint32) uint64 { return 1 << (k * 0x9e3779b1 >> 26) }

// blockSig returns the signature of blocks: the union of their bits.
func blockSig(blocks []uint32) uint64 {
	var s uint64
	for _, b := range blocks {
		s |= blockBit(b)
	}
	return s
}

// template reports whether block k is counted at least the template
// threshold.
func (m *hostModel) template(k uint32) bool {
	_, ok := search(m.tmpl, k, 0)
	return ok
}

// setTemplate adds (on) or removes the blocks of changed (as add and remove
// return them) to or from the template blocks.
func (m *hostModel) setTemplate(changed []uint32, on bool) {
	for _, b := range changed {
		i, ok := slices.BinarySearch(m.tmpl, b)
		switch {
		case on && !ok:
			m.tmpl = slices.Insert(m.tmpl, i, b)
		case !on && ok:
			m.tmpl = slices.Delete(m.tmpl, i, i+1)
		}
	}
	if len(m.tmpl) == 0 {
		m.tmpl = nil
	}
}

// count returns the number of kept pages holding block k.
func (m *hostModel) count(k uint32) uint32 {
	if i, ok := findBlock(m.counted, k); ok {
		return uint32(m.counted[i])
	}
	if i, ok := findBlock(m.fresh, k); ok {
		return uint32(m.fresh[i])
	}
	return 0
}

// touchGuesses reads the entry of s (block<<32 | count, ascending) that
// search probes first for each of blocks, all before any is searched, so
// that in a model not in the caches their misses overlap rather than follow
// one another; it returns what it read.
func touchGuesses(s []uint64, blocks []uint32) uint64 {
	var sum uint64
	if len(s) > 8 {
		for _, b := range blocks {
			sum += s[guess(len(s), b)]
		}
	}
	return sum
}

// blocks returns the number of blocks counted.
func (m *hostModel) blocks() int { return len(m.counted) + len(m.fresh) }

// add counts the distinct blocks of a kept page (ascending) and appends to
// changed those whose count reached min.
func (m *hostModel) add(blocks []uint32, min uint32, changed []uint32) []uint32 {
	runtime.KeepAlive(touchGuesses(m.counted, blocks))
	for _, b := range blocks {
		var c uint32
		if i, ok := findBlock(m.counted, b); ok {
			m.counted[i]++
			c = uint32(m.counted[i])
		} else if i, ok := findBlock(m.fresh, b); ok {
			m.fresh[i]++
			c = uint32(m.fresh[i])
		} else {
			m.fresh = slices.Insert(m.fresh, i, uint64(b)<<32|1)
			c = 1
		}
		if c == min {
			changed = append(changed, b)
		}
	}
	if len(m.fresh) > len(m.counted)/16 { // a small host's are merged at once: no spare capacity
		m.merge()
	}
	return changed
}

// merge moves the fresh blocks into counted.
func (m *hostModel) merge() {
	if len(m.fresh) == 0 {
		return
	}
	s := make([]uint64, 0, len(m.counted)+len(m.fresh))
	i, j := 0, 0
	for i < len(m.counted) && j < len(m.fresh) {
		if m.counted[i] < m.fresh[j] { // no block is in both
			s = append(s, m.counted[i])
			i++
		} else {
			s = append(s, m.fresh[j])
			j++
		}
	}
	s = append(append(s, m.counted[i:]...), m.fresh[j:]...)
	m.counted, m.fresh = s, nil
}

// remove uncounts the blocks of a page no longer kept and appends to changed
// those whose count fell below min.
func (m *hostModel) remove(blocks []uint32, min uint32, changed []uint32) []uint32 {
	drop := false
	for _, b := range blocks {
		s := m.counted
		i, ok := findBlock(s, b)
		if !ok {
			s = m.fresh
			if i, ok = findBlock(s, b); !ok {
				continue
			}
		}
		if uint32(s[i]) == min {
			changed = append(changed, b)
		}
		s[i]--
		drop = drop || uint32(s[i]) == 0
	}
	if drop {
		m.counted = slices.Clip(dropCounts(m.counted, 0))
		m.fresh = slices.Clip(dropCounts(m.fresh, 0))
	}
	return changed
}

// dropCounts removes, in place, the blocks of s counted c times.
func dropCounts(s []uint64, c uint32) []uint64 {
	return slices.DeleteFunc(s, func(e uint64) bool { return uint32(e) == c })
}

// prune drops the blocks counted once when the host counts more than max
// (unless one page makes a block template).
func (m *hostModel) prune(max int, min uint32) {
	if m.blocks() <= max || min <= 1 {
		return
	}
	m.merge()
	m.counted = dropCounts(m.counted, 1)
}
