package minhash

// The verdict rules: what of a page is compared (its content less its
// host's and its theme's template, its whole page), how two pages'
// distances are taken, and which rule makes them near-duplicates. store
// keeps the pages; these decide about them.

// sample is a sketch with the largest hash it speaks for: it holds every
// hash of its set up to t.
type sample struct {
	s Sketch
	t uint32
}

// content returns f's content sketch less the blocks that are template on
// its host (m, possibly nil) now. A sketch left with no hash (a page that is
// all template: a search page, an empty index) is returned whole. A thin
// page keeps the few hashes of its own that are left: compared through the
// template's hashes, two generated pages of one template (the API pages of
// two methods) look alike however different their own words.
func (st *store) content(f *feature, m *hostModel) sample {
	if st.o.TemplatePages < 0 || (m == nil || len(m.tmpl) == 0) && len(st.themed) == 0 {
		return sample{f.content, threshold(f.content, st.o.SketchSize)}
	}
	return strip(f, st.o.SketchSize, func(b uint32) bool {
		if m != nil && m.template(b) {
			return true
		}
		_, ok := st.themed[b]
		return ok
	})
}

// strip returns f's content sketch (of k hashes) less the hashes of the
// blocks that are template. A sketch left with no hash is returned whole.
func strip(f *feature, k int, template func(block uint32) bool) sample {
	whole := sample{f.content, threshold(f.content, k)}
	tmpl, any := templateTags(f, template)
	if !any {
		return whole
	}
	c := appendKept(make(Sketch, 0, len(f.content)), f.content, f, &tmpl, len(f.content))
	if len(c) == 0 {
		return whole
	}
	return sample{c, whole.t}
}

// templateTags marks the blocks of f (by their index in f.blocks) that
// template holds, and reports whether it holds any.
func templateTags(f *feature, template func(block uint32) bool) (tmpl [256]bool, any bool) {
	for i, b := range f.blocks {
		if template(b) {
			tmpl[i], any = true, true
		}
	}
	return tmpl, any
}

// appendKept appends to dst, up to limit values in all, vals[i] (vals
// aligned with f.content) for each content hash whose block tmpl does not
// mark.
func appendKept(dst, vals []uint32, f *feature, tmpl *[256]bool, limit int) []uint32 {
	for i, tag := range f.tags {
		if len(dst) == limit {
			break
		}
		if !tmpl[tag] {
			dst = append(dst, vals[i])
		}
	}
	return dst
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
	c := thinDistance(c1, c2)
	if lo, hi := min(f1.share, f2.share), max(f1.share, f2.share); hi >= 2*lo {
		c = min(c, thinDistance(c1, p2), thinDistance(p1, c2))
	}
	return c
}

// thinShingles is the number of shingles thinDistance adds to the union of
// two small sets: one token's worth at DefaultShingleWidth (a token is in
// that many shingles).
const thinShingles = DefaultShingleWidth

// thinDistance is the Jaccard distance of the sets two samples come from,
// with a small set's similarity discounted: when both samples hold their
// whole sets, their similarity is taken as if their union held
// thinShingles more shingles, as if the two differed in one more token
// (two equal sets stay at distance 0).
// A paragraph hardly moves (|A ∪ B| of 100 shingles: 0.60 becomes 0.62);
// two thin contents that share a generator's phrase around different
// identifiers (12 shingles, half shared) move from 0.50 to 0.63.
func thinDistance(a, b sample) float64 {
	d := distance(a, b)
	if a.t != whole || b.t != whole || d <= 0 || d >= 1 {
		return d // the same set is the same however small
	}
	s := 1 - d
	u := float64(len(a.s)+len(b.s)) / (1 + s) // |A| + |B| = |A ∪ B| + |A ∩ B|
	return 1 - s*u/(u+thinShingles)
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
