package cluster

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/snapshot"
)

// Snapshots (docs/cluster.md, "Snapshot format") hold a model as plain data:
// the vocabulary (keyword texts, in id order), and per cluster its
// member count, its mode (ascending ids) and its keyword counts (ascending
// ids with their counts). A KModes adds its labels; a Detector writes a
// model per generation and, per cluster, its pages' IDs and keyword ids and
// the cluster detector's own snapshot.

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// writeModel writes md's centres and fit report.
func writeModel(sw *snapshot.Writer, md *model) {
	sw.Uvarint(uint64(len(md.centres)))
	for j := range md.centres {
		c := &md.centres[j]
		sw.Uvarint(uint64(c.members))
		sw.Uvarint(boolU(c.exact))
		writeIDs(sw, slices.Sorted(slices.Values(c.mode)))
		ids := make([]uint32, 0, len(c.counts))
		for id := range c.counts {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		writeIDs(sw, ids)
		for _, id := range ids {
			sw.Uvarint(uint64(c.counts[id]))
		}
	}
	sw.Uint64(math.Float64bits(md.cost))
	sw.Uvarint(uint64(md.iters))
	sw.Uvarint(boolU(md.converged))
}

// writeIDs writes ascending ids as a count and deltas.
func writeIDs(sw *snapshot.Writer, ids []uint32) {
	sw.Uvarint(uint64(len(ids)))
	prev := uint64(0)
	for i, id := range ids {
		if i == 0 {
			sw.Uvarint(uint64(id))
		} else {
			sw.Uvarint(uint64(id) - prev)
		}
		prev = uint64(id)
	}
}

// readIDs reads ids written by writeIDs: strictly ascending, each < nIDs,
// at most limit of them.
func readIDs(sr *snapshot.Reader, nIDs, limit int) []uint32 {
	n := sr.Count()
	if sr.Err() == nil && n > uint64(limit) {
		sr.Fail("%d keyword ids, at most %d", n, limit)
	}
	var ids []uint32
	prev := uint64(0)
	for i := uint64(0); sr.Err() == nil && i < n; i++ {
		d := sr.Uvarint()
		id := d
		if i > 0 {
			id = prev + d
			if d == 0 || id < prev {
				sr.Fail("keyword ids not ascending")
			}
		}
		if sr.Err() == nil && id >= uint64(nIDs) {
			sr.Fail("keyword id %d of a vocabulary of %d", id, nIDs)
		}
		prev = id
		ids = append(ids, uint32(id))
	}
	return ids
}

// readModel reads a model written by writeModel over a vocabulary of nIDs,
// with at most maxK centres of modes of at most m ids.
func readModel(sr *snapshot.Reader, sim Similarity, m, maxK, nIDs int) *model {
	k := sr.Count()
	if sr.Err() == nil && (k < 1 || k > uint64(maxK)) {
		sr.Fail("%d clusters, want 1..%d", k, maxK)
	}
	md := &model{sim: sim, m: m}
	for j := uint64(0); sr.Err() == nil && j < k; j++ {
		var c centre
		members := sr.Uvarint()
		if members > math.MaxInt32 {
			sr.Fail("cluster of %d members", members)
		}
		c.members = int(members)
		c.exact = sr.Uvarint() == 1
		c.setMode(readIDs(sr, nIDs, m))
		ids := readIDs(sr, nIDs, math.MaxInt32)
		c.counts = make(map[uint32]int32, len(ids))
		for _, id := range ids {
			n := sr.Uvarint()
			if sr.Err() == nil && (n == 0 || n > members) {
				sr.Fail("keyword count %d in a cluster of %d", n, members)
			}
			c.counts[id] = int32(n)
		}
		md.centres = append(md.centres, c)
	}
	md.cost = math.Float64frombits(sr.Uint64())
	if sr.Err() == nil && (math.IsNaN(md.cost) || md.cost < 0) {
		sr.Fail("cost %v", md.cost)
	}
	md.iters = int(min(sr.Uvarint(), math.MaxInt32))
	md.converged = sr.Uvarint() == 1
	return md
}

// params are the options that give a model its meaning.
func (o KModesOptions) params() []snapshot.Param {
	return []snapshot.Param{
		{Name: "K", Value: strconv.Itoa(o.K)},
		{Name: "Keywords", Value: strconv.Itoa(o.Keywords)},
		{Name: "ModeKeywords", Value: strconv.Itoa(o.ModeKeywords)},
		{Name: "Similarity", Value: o.Similarity.String()},
	}
}

// WriteTo writes a snapshot of the fitted model (vocabulary, modes, keyword
// counts, labels) to w, with the options that give it its meaning (K,
// Keywords, Similarity); an unfitted KModes writes an empty one.
func (km *KModes) WriteTo(w io.Writer) (int64, error) {
	o := km.options()
	km.mu.RLock()
	defer km.mu.RUnlock()
	sw := snapshot.NewWriter(w, "cluster.KModes", o.params())
	f := km.f
	sw.Uvarint(boolU(f != nil))
	if f != nil {
		sw.Uvarint(0) // fitted on keywords (1, integer codes, is no longer written)
		sw.Uvarint(uint64(len(f.words.keys)))
		for _, w := range f.words.keys {
			sw.Text(w)
		}
		writeModel(sw, f.md)
		sw.Uvarint(uint64(len(f.md.labels)))
		for _, j := range f.md.labels {
			sw.Uvarint(uint64(j))
		}
	}
	n, err := sw.Close()
	if err != nil {
		return n, fmt.Errorf("cluster: KModes.WriteTo: %w", err)
	}
	return n, nil
}

// ReadFrom replaces the model with the snapshot read from r. A truncated or
// corrupt snapshot, one of another version, or one written with other
// options returns an error (wrapping neardup.ErrCorrupt,
// neardup.ErrUnsupportedSnapshot or neardup.ErrSnapshotMismatch) and leaves
// the KModes as it was.
func (km *KModes) ReadFrom(r io.Reader) (int64, error) {
	install, n, err := km.Restore(r)
	if err == nil {
		install()
	}
	return n, err
}

// Restore reads a snapshot as ReadFrom does and returns the function that
// installs it (neardup.Persister): a Detector partitioned by the KModes
// restores its parts and its KModes before it installs any.
func (km *KModes) Restore(r io.Reader) (install func(), n int64, err error) {
	o := km.options()
	sr, err := snapshot.NewReader(r, "cluster.KModes", o.params())
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: %w", err)
	}
	var f *fitted
	if sr.Uvarint() == 1 {
		if byCodes := sr.Uvarint(); sr.Err() == nil && byCodes != 0 {
			return nil, 0, fmt.Errorf("cluster: a KModes fitted on integer codes, which this version does not read (fit it again on documents): %w", neardup.ErrUnsupportedSnapshot)
		}
		f = &fitted{words: newVocab[string]()}
		nv := sr.Count()
		for i := uint64(0); sr.Err() == nil && i < nv; i++ {
			w := sr.Text()
			if _, dup := f.words.ids[w]; dup && sr.Err() == nil {
				sr.Fail("keyword %q twice in the vocabulary", w)
			}
			f.words.intern(w)
		}
		f.md = readModel(sr, o.Similarity, o.ModeKeywords, o.K, f.words.len())
		nl := sr.Count()
		for i := uint64(0); sr.Err() == nil && i < nl; i++ {
			j := sr.Uvarint()
			if sr.Err() == nil && j >= uint64(len(f.md.centres)) {
				sr.Fail("label %d of %d clusters", j, len(f.md.centres))
			}
			f.md.labels = append(f.md.labels, int32(j))
		}
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, fmt.Errorf("cluster: %w", err)
	}
	return func() { km.install(f) }, n, nil
}

// params are the options that give a Detector's snapshot its meaning, and
// the type of its cluster detectors.
func (s *state) params(inner neardup.Detector) []snapshot.Param {
	ps := s.o.KModes.params()
	if s.o.Partitioner != nil {
		ps = []snapshot.Param{{Name: "partitioner", Value: fmt.Sprintf("%T", s.o.Partitioner)}}
	}
	return append(ps, snapshot.Param{Name: "detector", Value: fmt.Sprintf("%T", inner)})
}

func persister(d neardup.Detector) (neardup.Persister, error) {
	p, ok := d.(neardup.Persister)
	if !ok {
		return nil, fmt.Errorf("cluster: cluster detector %T cannot be saved: %w", d, errors.ErrUnsupported)
	}
	return p, nil
}

// WriteTo writes a snapshot of the Detector to w: its Partitioner's when
// that is a neardup.Persister, its vocabulary, and for
// each generation its model and, per cluster, its pages' IDs and keyword ids
// and its detector's snapshot (the cluster detectors must be
// neardup.Persisters). Pages held for the first fit are not written: a
// snapshot holds features, not pages.
func (det *Detector) WriteTo(w io.Writer) (int64, error) {
	s := det.get()
	s.mu.RLock() // no Add between the clusters' snapshots
	defer s.mu.RUnlock()
	byPlace := make(map[place][]string)
	for id, k := range s.kept {
		byPlace[k.at] = append(byPlace[k.at], id)
	}
	sw := snapshot.NewWriter(w, "cluster.Detector", s.params(s.gens[0].parts[0]))
	if pp, ok := s.o.Partitioner.(neardup.Persister); ok {
		if _, err := pp.WriteTo(sw.Nested()); err != nil {
			return 0, fmt.Errorf("cluster: Detector.WriteTo: Partitioner: %w", err)
		}
	}
	sw.Uvarint(uint64(len(s.words.keys)))
	for _, w := range s.words.keys {
		sw.Text(w)
	}
	sw.Uvarint(uint64(s.fits))
	sw.Uvarint(uint64(s.nextFit))
	sw.Uvarint(uint64(len(s.gens)))
	for g, gen := range s.gens {
		sw.Uvarint(boolU(gen.md != nil))
		if gen.md != nil {
			writeModel(sw, gen.md)
		}
		sw.Uvarint(uint64(len(gen.parts)))
		for j, part := range gen.parts {
			p, err := persister(part)
			if err != nil {
				return 0, err
			}
			ids := byPlace[place{g, j}]
			slices.Sort(ids)
			sw.Uvarint(uint64(len(ids)))
			for _, id := range ids {
				sw.Text(id)
				writeIDs(sw, s.kept[id].ids)
			}
			if _, err := p.WriteTo(sw.Nested()); err != nil {
				return 0, err
			}
		}
	}
	n, err := sw.Close()
	if err != nil {
		return n, fmt.Errorf("cluster: Detector.WriteTo: %w", err)
	}
	return n, nil
}

// ReadFrom replaces everything the Detector keeps with the snapshot read
// from r, or changes nothing and returns an error (see neardup.Persister).
func (det *Detector) ReadFrom(r io.Reader) (int64, error) {
	install, n, err := det.Restore(r)
	if err == nil {
		install()
	}
	return n, err
}

// Restore reads a snapshot as ReadFrom does and returns the function that
// installs it; until then nothing changes.
func (det *Detector) Restore(r io.Reader) (install func(), n int64, err error) {
	s := det.get()
	probe, err := s.newPart(0, 0)
	if err != nil {
		return nil, 0, err
	}
	sr, err := snapshot.NewReader(r, "cluster.Detector", s.params(probe))
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: %w", err)
	}
	var installs []func()
	if pp, ok := s.o.Partitioner.(neardup.Persister); ok {
		in, _, err := pp.Restore(sr)
		if err != nil {
			return nil, 0, fmt.Errorf("cluster: Partitioner: %w", err)
		}
		installs = append(installs, in)
	}
	words := newVocab[string]()
	nv := sr.Count()
	for i := uint64(0); sr.Err() == nil && i < nv; i++ {
		w := sr.Text()
		if _, dup := words.ids[w]; dup && sr.Err() == nil {
			sr.Fail("keyword %q twice in the vocabulary", w)
		}
		words.intern(w)
	}
	fits := int(min(sr.Uvarint(), math.MaxInt32))
	nextFit := int(min(sr.Uvarint(), math.MaxInt32))
	ngens := sr.Count()
	if sr.Err() == nil && ngens == 0 {
		sr.Fail("no generation")
	}
	keptBy := make(map[string]*kept)
	var gens []*generation
	for g := 0; sr.Err() == nil && uint64(g) < ngens; g++ {
		gen := new(generation)
		want := uint64(1)
		hasModel := sr.Uvarint() == 1
		switch {
		case hasModel && s.o.Partitioner == nil:
			gen.md = readModel(sr, s.o.KModes.Similarity, s.o.KModes.ModeKeywords, s.o.KModes.K, words.len())
			want = uint64(len(gen.md.centres))
		case hasModel:
			sr.Fail("a model in a fixed partition")
		}
		nparts := sr.Count()
		if s.o.Partitioner != nil {
			want = nparts // the parts some page was kept in, and those below
			if sr.Err() == nil && (nparts == 0 || nparts > maxParts || ngens != 1) {
				sr.Fail("fixed partition of %d generations, %d parts", ngens, nparts)
			}
		}
		if sr.Err() == nil && nparts != want {
			sr.Fail("generation %d: %d cluster detectors for %d clusters", g, nparts, want)
		}
		for j := 0; sr.Err() == nil && uint64(j) < want; j++ {
			nids := sr.Count()
			for i := uint64(0); sr.Err() == nil && i < nids; i++ {
				id := sr.Text()
				ids := readIDs(sr, words.len(), s.o.KModes.Keywords)
				if sr.Err() == nil && len(ids) == 0 && s.o.Partitioner == nil {
					sr.Fail("page %q without keywords", id)
				}
				if _, dup := keptBy[id]; dup && sr.Err() == nil {
					sr.Fail("page %q kept twice", id)
				}
				keptBy[id] = &kept{at: place{g, j}, ids: ids}
			}
			if sr.Err() != nil {
				break
			}
			part, err := s.newPart(j, int(float64(nids)*max(s.o.Growth, 1)))
			if err != nil {
				return nil, 0, err
			}
			p, err := persister(part)
			if err != nil {
				return nil, 0, err
			}
			in, _, err := p.Restore(sr)
			if err != nil {
				return nil, 0, fmt.Errorf("cluster: generation %d cluster %d: %w", g, j, err)
			}
			installs = append(installs, in)
			gen.parts = append(gen.parts, part)
		}
		gens = append(gens, gen)
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, fmt.Errorf("cluster: %w", err)
	}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, in := range installs {
			in()
		}
		s.words, s.gens, s.kept = words, gens, keptBy
		s.fits, s.nextFit, s.lastErr = fits, nextFit, nil
		s.retain = false // the loaded pages are not at hand: the next fit starts a generation
	}, n, nil
}

var _ neardup.Persister = (*Detector)(nil)
var _ neardup.Persister = (*KModes)(nil)
