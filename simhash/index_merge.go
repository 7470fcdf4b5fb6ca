package simhash

import (
	"encoding/binary"
	"slices"
)

// tableWriter appends entries in ascending order to a new table of n entries.
type tableWriter struct {
	tl  *tableLayout
	t   table
	pos int
}

func newTableWriter(tl *tableLayout, n int) tableWriter {
	data := make([]byte, n*tl.stride+8)
	adviseHuge(data)
	return tableWriter{tl: tl, t: table{data: data, dir: make([]uint32, 1<<tl.dbits+1)}}
}

func (w *tableWriter) put(v uint64) {
	binary.LittleEndian.PutUint64(w.t.data[w.pos*w.tl.stride:], v&w.tl.low)
	w.t.dir[v>>w.tl.shift+1]++
	w.pos++
}

func (w *tableWriter) finish() table {
	d := w.t.dir
	for j := 1; j < len(d); j++ {
		d[j] += d[j-1]
	}
	return w.t
}

// each calls fn for every entry of table t in order, with its position and
// full permuted value.
func (b *base) each(tl *tableLayout, t int, fn func(p int, v uint64)) {
	d, data := b.tabs[t].dir, b.tabs[t].data
	for j := 0; j+1 < len(d); j++ {
		hiBits := uint64(j) << tl.shift
		for p := int(d[j]); p < int(d[j+1]); p++ {
			fn(p, hiBits|binary.LittleEndian.Uint64(data[p*tl.stride:])&tl.low)
		}
	}
}

// merge folds the buffer into the base and drops removed entries: one
// sorted merge per table, linear in the size of the index.
func (ix *Index) merge() {
	l := &ix.lay
	b, bf := &ix.base, &ix.buf

	// live buffer entries, sorted by fingerprint
	type entry struct{ fp, id uint64 }
	adds := make([]entry, 0, len(bf.fps)-bf.ndead)
	for i, f := range bf.fps {
		if !bitGet(bf.dead, i) {
			adds = append(adds, entry{f, bf.ids[i]})
		}
	}
	slices.SortFunc(adds, func(x, y entry) int {
		switch {
		case x.fp < y.fp:
			return -1
		case x.fp > y.fp:
			return 1
		}
		return 0
	})

	n := b.n - b.ndead + len(adds)
	nb := base{n: n, tabs: make([]table, len(l.tables)), ids: make([]uint64, n)}

	// table 0 carries the ids and tells which fingerprints were removed
	var gone []uint64
	t0 := &l.tables[0]
	w := newTableWriter(t0, n)
	a := 0
	b.each(t0, 0, func(p int, v uint64) {
		if b.ndead > 0 && bitGet(b.dead, p) {
			gone = append(gone, v)
			return
		}
		for a < len(adds) && adds[a].fp < v {
			nb.ids[w.pos] = adds[a].id
			w.put(adds[a].fp)
			a++
		}
		nb.ids[w.pos] = b.ids[p]
		w.put(v)
	})
	for ; a < len(adds); a++ {
		nb.ids[w.pos] = adds[a].id
		w.put(adds[a].fp)
	}
	nb.tabs[0] = w.finish()

	keys := make([]uint64, len(adds))
	goneKeys := make([]uint64, len(gone))
	for t := 1; t < len(l.tables); t++ {
		tl := &l.tables[t]
		for i, e := range adds {
			keys[i] = applySegments(tl.perm, e.fp)
		}
		slices.Sort(keys)
		for i, f := range gone {
			goneKeys[i] = applySegments(tl.perm, f)
		}
		slices.Sort(goneKeys)
		w := newTableWriter(tl, n)
		a, g := 0, 0
		b.each(tl, t, func(_ int, v uint64) {
			if g < len(goneKeys) && goneKeys[g] == v {
				g++
				return
			}
			for a < len(keys) && keys[a] < v {
				w.put(keys[a])
				a++
			}
			w.put(v)
		})
		for ; a < len(keys); a++ {
			w.put(keys[a])
		}
		nb.tabs[t] = w.finish()
	}

	nb.dead = make([]uint64, (n+63)/64)
	nb.buildIDs()
	ix.base = nb
	bf.reset(l, mergeThreshold(n))
}
