package hamming

import (
	"encoding/binary"
)

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
func (t *table) prefetchBucket(pl *prefetchList, j uint64) {
	if t.cdir != nil {
		prefetchTo(pl, t.cdir, int(j))
	} else {
		prefetchTo(pl, t.dir, int(j))
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

func emptyBase(l *layout) base {
	b := base{tabs: make([]table, len(l.tables))}
	for t := range b.tabs {
		b.tabs[t] = table{data: make([]byte, 8), dir: make([]uint32, 1<<l.tables[t].dbits+1)}
		b.tabs[t].setCompact()
	}
	b.buildIDs()
	return b
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

func bitGet(s []uint64, i int) bool { return s[i>>6]>>(uint(i)&63)&1 != 0 }

func bitSet(s []uint64, i int) { s[i>>6] |= 1 << (uint(i) & 63) }
