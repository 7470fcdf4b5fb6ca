package minhash

import "slices"

// hostModel counts, for one host, the kept pages whose content sketch holds
// each block (a block is template once MinPages kept pages hold it), and
// lists the host's kept pages. The counts are a function of the kept pages
// alone: a page offered again, or a near-duplicate that was not kept, counts
// nothing, so verdicts do not drift as pages are re-offered.
type hostModel struct {
	name   string
	keys   []uint32 // block keys, ascending
	counts []uint32 // counts[i]: kept pages holding keys[i]
	pages  []uint32 // handles of the host's kept pages
	// sigs[i] has a bit set for each block of pages[i] (blockBit): rekey
	// reads a page's blocks only when its bits hold a changed block's.
	sigs []uint64
	// tmpl lists, ascending, the blocks counted at least the template
	// threshold: a page's content is stripped by searching these few
	// rather than all the counted blocks.
	tmpl []uint32
}

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
	_, ok := slices.BinarySearch(m.tmpl, k)
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
	if i, ok := slices.BinarySearch(m.keys, k); ok {
		return m.counts[i]
	}
	return 0
}

// add counts the distinct blocks of a kept page (ascending) and appends to
// changed those whose count reached min.
func (m *hostModel) add(blocks []uint32, min uint32, changed []uint32) []uint32 {
	var keys, counts []uint32
	fresh := 0
	for _, b := range blocks {
		if _, ok := slices.BinarySearch(m.keys, b); !ok {
			fresh++
		}
	}
	if fresh > 0 {
		keys, counts = make([]uint32, 0, len(m.keys)+fresh), make([]uint32, 0, len(m.keys)+fresh)
	}
	i := 0
	for _, b := range blocks {
		for i < len(m.keys) && m.keys[i] < b {
			if fresh > 0 {
				keys, counts = append(keys, m.keys[i]), append(counts, m.counts[i])
			}
			i++
		}
		c := uint32(1)
		if i < len(m.keys) && m.keys[i] == b {
			c = m.counts[i] + 1
			if fresh == 0 {
				m.counts[i] = c
			}
			i++
		}
		if fresh > 0 {
			keys, counts = append(keys, b), append(counts, c)
		}
		if c == min {
			changed = append(changed, b)
		}
	}
	if fresh > 0 {
		keys, counts = append(keys, m.keys[i:]...), append(counts, m.counts[i:]...)
		m.keys, m.counts = keys, counts
	}
	return changed
}

// remove uncounts the blocks of a page no longer kept and appends to changed
// those whose count fell below min.
func (m *hostModel) remove(blocks []uint32, min uint32, changed []uint32) []uint32 {
	drop := false
	for _, b := range blocks {
		i, ok := slices.BinarySearch(m.keys, b)
		if !ok {
			continue
		}
		if m.counts[i] == min {
			changed = append(changed, b)
		}
		m.counts[i]--
		drop = drop || m.counts[i] == 0
	}
	if drop {
		j := 0
		for i, c := range m.counts {
			if c > 0 {
				m.keys[j], m.counts[j] = m.keys[i], c
				j++
			}
		}
		m.keys, m.counts = slices.Clip(m.keys[:j]), slices.Clip(m.counts[:j])
	}
	return changed
}

// maxHostBlocks bounds the block counts a host keeps: past it, the blocks
// held by one kept page only (content, not template) are forgotten.
const maxHostBlocks = 1 << 12

// prune drops the blocks counted once when the host counts more than max
// (unless one page makes a block template).
func (m *hostModel) prune(max int, min uint32) {
	if len(m.keys) <= max || min <= 1 {
		return
	}
	j := 0
	for i, c := range m.counts {
		if c > 1 {
			m.keys[j], m.counts[j] = m.keys[i], c
			j++
		}
	}
	m.keys, m.counts = m.keys[:j], m.counts[:j]
}
