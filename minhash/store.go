package minhash

import (
	"slices"
	"sync/atomic"

	"github.com/neardup/neardup/internal/detector"
)

// store keeps the features of the kept pages by handle, the per-host
// template model, the exact-text map and the candidate index. Core calls
// Search and Score under its read lock, Insert and Delete under its write
// lock.
type store struct {
	o        Options
	entries  []kept // by handle; a free handle has a nil page
	exact    map[uint64]uint32
	exacts   map[uint64][]uint32 // further pages of one exact text (Add of copies)
	index    Index
	hosts    map[string]int32
	models   []hostModel
	compared *atomic.Int64 // kept pages compared by Search and Score, the detector's
}

// kept is a kept page in compact form: its page sketch, content sketch,
// block keys and index keys in one slab, the content hashes' block indexes,
// the hash of its text, its host's model and its content share.
type kept struct {
	data       []uint32 // page | content | blocks | keys
	tags       []uint8
	exact      uint64
	host       int32
	np, nc, nb uint16
	share      uint8
}

// feature returns the feature of e (sharing e's memory).
func (st *store) feature(e *kept) feature {
	np, nc, nb := int(e.np), int(e.nc), int(e.nb)
	return feature{
		host:    st.models[e.host].name,
		exact:   e.exact,
		page:    e.data[:np:np],
		content: e.data[np : np+nc : np+nc],
		tags:    e.tags,
		blocks:  e.data[np+nc : np+nc+nb : np+nc+nb],
		share:   e.share,
	}
}

// keys returns the index keys e is filed under.
func (e *kept) keys() []uint32 { return e.data[int(e.np)+int(e.nc)+int(e.nb):] }

// setKeys files e under keys from now on (the caller updates the index).
func (e *kept) setKeys(keys []uint32) {
	n := int(e.np) + int(e.nc) + int(e.nb)
	if len(keys) != len(e.data)-n {
		d := make([]uint32, n+len(keys))
		copy(d, e.data[:n])
		e.data = d
	}
	copy(e.data[n:], keys)
}

func newStore(o Options, compared *atomic.Int64) *store {
	st := &store{compared: compared, o: o, exact: make(map[uint64]uint32), exacts: make(map[uint64][]uint32), hosts: make(map[string]int32)}
	st.index.init(IndexOptions{Keys: o.Keys, MaxPostings: o.MaxPostings})
	return st
}

// model returns the template model of host, or nil.
func (st *store) model(host string) *hostModel {
	if i, ok := st.hosts[host]; ok {
		return &st.models[i]
	}
	return nil
}

// sample is a sketch with the largest hash it speaks for: it holds every
// hash of its set up to t.
type sample struct {
	s Sketch
	t uint32
}

// content returns f's content sketch less the blocks that are template on
// its host (m, possibly nil) now. A sketch left with fewer than
// minContentHashes hashes is returned whole.
func (st *store) content(f *feature, m *hostModel) sample {
	whole := sample{f.content, threshold(f.content, st.o.SketchSize)}
	if m == nil || st.o.TemplatePages < 0 || m.ntmpl == 0 {
		return whole
	}
	var tmpl [256]bool
	any := false
	for i, b := range f.blocks {
		if m.count(b) >= uint32(st.o.TemplatePages) {
			tmpl[i], any = true, true
		}
	}
	if !any {
		return whole
	}
	c := make(Sketch, 0, len(f.content))
	for i, h := range f.content {
		if !tmpl[f.tags[i]] {
			c = append(c, h)
		}
	}
	if len(c) < minContentHashes {
		return whole
	}
	return sample{c, whole.t}
}

// page returns f's page sketch as a sample.
func (st *store) page(f *feature) sample {
	return sample{f.page, threshold(f.page, st.o.PageSketchSize)}
}

// contentDistance returns the distance of two pages' contents c1 and c2,
// or — for two pages whose markup disagrees on what is content, so that one
// page's content is part of the other's furniture — the smallest distance of
// a content with the other's content or whole page.
func contentDistance(f1 *feature, c1, p1 sample, f2 *feature, c2, p2 sample) float64 {
	c := distance(c1, c2)
	if lo, hi := min(f1.share, f2.share), max(f1.share, f2.share); hi >= 2*lo {
		c = min(c, distance(c1, p2), distance(p1, c2))
	}
	return c
}

// distance estimates the Jaccard distance of the sets two samples come from.
func distance(a, b sample) float64 { return distanceT(a.s, b.s, a.t, b.t) }

// near returns the distance of two pages, given their content (as derived)
// and page sketches and whether they are of one host, and whether they are
// near-duplicates.
func (st *store) near(f1 *feature, c1 sample, f2 *feature, c2 sample) (float64, bool) {
	p1, p2 := st.page(f1), st.page(f2)
	c := contentDistance(f1, c1, p1, f2, c2, p2)
	if c >= st.o.ContentGuard && c >= st.o.ContentDistance {
		return c, false // no rule can make them near: skip the page distance
	}
	p := distance(p1, p2)
	r := st.rule(c, p, f1.host == f2.host)
	return min(c, p), r == "content" || r == "page"
}

// rule names the rule that makes pages at content distance c and page
// distance p near-duplicates, or returns "" (or "host", see Explanation).
func (st *store) rule(c, p float64, sameHost bool) string {
	r := ""
	switch {
	case c < st.o.ContentDistance:
		r = "content"
	case p < st.o.PageDistance && c < st.o.ContentGuard:
		r = "page"
	}
	if r != "" && sameHost && p >= st.o.HostPageDistance {
		return "host"
	}
	return r
}

func (st *store) Search(f feature, dst []detector.Found) []detector.Found {
	seen := make(map[uint32]struct{})
	if h, ok := st.exact[f.exact]; ok {
		seen[h] = struct{}{}
		dst = append(dst, detector.Found{H: detector.Handle(h), Dist: 0})
		for _, h := range st.exacts[f.exact] {
			seen[h] = struct{}{}
			dst = append(dst, detector.Found{H: detector.Handle(h), Dist: 0})
		}
	}
	fc := st.content(&f, st.model(f.host))
	var buf [DefaultKeys * 32]uint32
	cands := st.index.Candidates(st.index.Keys(fc.s), buf[:0])
	st.compared.Add(int64(len(cands)))
	for _, h := range cands {
		if _, dup := seen[h]; dup {
			continue
		}
		e := &st.entries[h]
		ef := st.feature(e)
		kc := st.content(&ef, &st.models[e.host])
		if d, ok := st.near(&f, fc, &ef, kc); ok {
			dst = append(dst, detector.Found{H: detector.Handle(h), Dist: d})
		}
	}
	return dst
}

func (st *store) Score(f feature, h detector.Handle) (float64, bool) {
	e := &st.entries[h]
	if e.exact == f.exact {
		return 0, true
	}
	ef := st.feature(e)
	st.compared.Add(1)
	fc := st.content(&f, st.model(f.host))
	kc := st.content(&ef, &st.models[e.host])
	return st.near(&f, fc, &ef, kc)
}

func (st *store) Feature(h detector.Handle) feature {
	f := st.feature(&st.entries[h])
	f.page, f.content, f.blocks = slices.Clone(f.page), slices.Clone(f.content), slices.Clone(f.blocks)
	return f
}

func (st *store) Insert(h detector.Handle, f feature) error {
	if int(h) >= len(st.entries) {
		st.entries = append(st.entries, make([]kept, int(h)+1-len(st.entries))...)
	}
	hi, ok := st.hosts[f.host]
	if !ok {
		hi = int32(len(st.models))
		st.hosts[f.host] = hi
		st.models = append(st.models, hostModel{name: f.host})
	}
	m := &st.models[hi]
	var changed []uint32
	if st.o.TemplatePages >= 0 {
		changed = m.add(f.blocks, uint32(st.o.TemplatePages), nil)
		m.ntmpl += len(changed)
		m.prune(maxHostBlocks, uint32(st.o.TemplatePages))
	}
	m.pages = append(m.pages, uint32(h))
	e := &st.entries[h]
	keys := st.index.Keys(st.content(&f, m).s)
	np, nc, nb := len(f.page), len(f.content), len(f.blocks)
	*e = kept{data: make([]uint32, np+nc+nb+len(keys)), tags: f.tags, exact: f.exact, host: hi,
		np: uint16(np), nc: uint16(nc), nb: uint16(nb), share: f.share}
	copy(e.data, f.page)
	copy(e.data[np:], f.content)
	copy(e.data[np+nc:], f.blocks)
	copy(e.data[np+nc+nb:], keys)
	st.index.Insert(uint32(h), e.keys())
	if x, ok := st.exact[f.exact]; ok {
		st.exacts[f.exact] = append(st.exacts[f.exact], x)
	}
	st.exact[f.exact] = uint32(h)
	st.rekey(m, changed, uint32(h))
	return nil
}

func (st *store) Delete(h detector.Handle) error {
	e := &st.entries[h]
	m := &st.models[e.host]
	var changed []uint32
	if st.o.TemplatePages >= 0 {
		changed = m.remove(st.feature(e).blocks, uint32(st.o.TemplatePages), nil)
		m.ntmpl -= len(changed)
	}
	if i := slices.Index(m.pages, uint32(h)); i >= 0 {
		m.pages[i] = m.pages[len(m.pages)-1]
		m.pages = m.pages[:len(m.pages)-1]
	}
	st.index.Remove(uint32(h), e.keys())
	st.dropExact(e.exact, uint32(h))
	*e = kept{}
	st.rekey(m, changed, uint32(h))
	return nil
}

func (st *store) dropExact(x uint64, h uint32) {
	more := st.exacts[x]
	if st.exact[x] == h {
		if len(more) == 0 {
			delete(st.exact, x)
			return
		}
		st.exact[x] = more[len(more)-1]
		more = more[:len(more)-1]
	} else if i := slices.Index(more, h); i >= 0 {
		more = slices.Delete(more, i, i+1)
	}
	if len(more) == 0 {
		delete(st.exacts, x)
	} else {
		st.exacts[x] = more
	}
}

// rekey files again, under the keys of their content as derived now, the
// kept pages of m's host (other than skip) that hold a block in changed:
// blocks that have just become template, or stopped being template, on the
// host. So the index follows a kept page whose content is derived anew.
func (st *store) rekey(m *hostModel, changed []uint32, skip uint32) {
	if len(changed) == 0 {
		return
	}
	for _, h := range m.pages {
		if h == skip {
			continue
		}
		e := &st.entries[h]
		ef := st.feature(e)
		hit := false
		for _, b := range changed {
			if _, ok := slices.BinarySearch(ef.blocks, b); ok {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		keys := st.index.Keys(st.content(&ef, m).s)
		if slices.Equal(keys, e.keys()) {
			continue
		}
		st.index.Remove(h, e.keys())
		e.setKeys(keys)
		st.index.Insert(h, e.keys())
	}
}

// explain compares f with the page kept under h.
func (st *store) explain(f *feature, h detector.Handle) Explanation {
	e := &st.entries[h]
	ef := st.feature(e)
	fc := st.content(f, st.model(f.host))
	kc := st.content(&ef, &st.models[e.host])
	x := Explanation{Content: contentDistance(f, fc, st.page(f), &ef, kc, st.page(&ef)), Page: distance(st.page(f), st.page(&ef)), ContentHashes: len(fc.s), KeptContentHashes: len(kc.s),
		ContentShare: float64(f.share) / 255, KeptContentShare: float64(ef.share) / 255}
	x.Rule = st.rule(x.Content, x.Page, f.host == ef.host)
	if f.exact == ef.exact {
		x.Rule = "exact"
	}
	return x
}
