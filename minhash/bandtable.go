package minhash

// bandTable is one band's multimap from a band value to the IDs filed
// under it, in 8 bytes a slot: each slot holds value<<32 | ID, or empty
// (all ones; a value of 0xFFFFFFFF is filed as 0xFFFFFFFE, so no entry is
// empty). A value's home slot is its share of the home slots (value × size
// / 2^32), so homes ascend with values, and the entries are kept in
// ascending order: each at its home or after it, past entries of smaller
// values (linear probing ordered as Robin Hood hashing orders it). A lookup
// reads from its home the few entries displaced there by smaller values,
// then its own, and stops at the first larger entry or empty slot: it
// never walks the rest of a cluster. Probes do not wrap: the slots run past
// the home slots into a tail as long as the last cluster needs, ending
// with an empty slot. The table grows by half when 13/16 full, so that it
// is 54–81 % full.
type bandTable struct {
	slots []uint64 // size home slots, then the tail; the last is empty
	size  int
	n     int
}

const emptySlot = ^uint64(0)

// maxBandValue is the largest value a bandTable files (a larger one is
// filed as this), so that an entry is never emptySlot and value+1 fits.
const maxBandValue = 0xFFFFFFFE

func (t *bandTable) home(v uint32) int { return int(uint64(v) * uint64(t.size) >> 32) }

func (t *bandTable) insert(v, id uint32) {
	if (t.n+1)*16 > t.size*13 {
		t.grow(max(16, t.size+t.size/2))
	}
	e := uint64(min(v, maxBandValue))<<32 | uint64(id)
	i := t.home(uint32(e >> 32))
	for t.slots[i] < e {
		i++
	}
	// Shift the run from i on one slot up, into its first empty slot.
	for e != emptySlot {
		t.slots[i], e = e, t.slots[i]
		i++
		if i == len(t.slots) {
			t.longerTail()
		}
	}
	t.n++
}

// grow re-files the entries in size home slots.
func (t *bandTable) grow(size int) {
	old := t.slots
	t.size = size
	t.slots = make([]uint64, size+minTail)
	for i := range t.slots {
		t.slots[i] = emptySlot
	}
	next := 0 // the first slot after the last entry placed
	for _, e := range old {
		if e == emptySlot {
			continue
		}
		i := max(t.home(uint32(e>>32)), next)
		for i+1 >= len(t.slots) {
			t.longerTail()
		}
		t.slots[i] = e
		next = i + 1
	}
}

// minTail is the number of slots after the home slots a table starts
// with: the last cluster rarely runs further (a table 81 % full displaces
// an entry by about two slots on average).
const minTail = 8

// longerTail makes the tail half as long again (at least minTail slots
// more), all of them empty. The slots are copied into an array of exactly
// that length, so that a table's bytes stay 8 a slot.
func (t *bandTable) longerTail() {
	s := make([]uint64, len(t.slots)+max(minTail, (len(t.slots)-t.size)/2))
	copy(s, t.slots)
	for i := len(t.slots); i < len(s); i++ {
		s[i] = emptySlot
	}
	t.slots = s
}

// appendIDs appends the IDs filed under v to dst.
func (t *bandTable) appendIDs(dst []uint32, v uint32) []uint32 {
	if t.n == 0 {
		return dst
	}
	lo := uint64(min(v, maxBandValue)) << 32
	hi := lo + 1<<32 // ≤ emptySlot, so a scan stops at an empty slot
	s := t.slots
	i := t.home(uint32(lo >> 32))
	for s[i] < lo {
		i++
	}
	for ; s[i] < hi; i++ {
		dst = append(dst, uint32(s[i]))
	}
	return dst
}

// remove takes one entry of id under v out, shifting the displaced entries
// after it one slot down so that every entry stays at or after its home
// with no empty slot between.
func (t *bandTable) remove(v, id uint32) {
	if t.n == 0 {
		return
	}
	e := uint64(min(v, maxBandValue))<<32 | uint64(id)
	s := t.slots
	i := t.home(uint32(e >> 32))
	for s[i] < e {
		i++
	}
	if s[i] != e {
		return
	}
	for ; s[i+1] != emptySlot && t.home(uint32(s[i+1]>>32)) <= i; i++ {
		s[i] = s[i+1]
	}
	s[i] = emptySlot
	t.n--
}
