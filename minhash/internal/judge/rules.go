package judge

import "github.com/neardup/neardup/minhash/internal/sketch"

// The verdict rules: what of a page is compared (its content less its
// host's and its theme's template, its whole page), how two pages'
// distances are taken, and which rule makes them near-duplicates. A
// Detector's store and a Judge keep the pages; these decide about them.
// Every function of this file takes resolved Options.

// Sample is a sketch with the largest hash it speaks for: it holds every
// hash of its set up to T.
type Sample struct {
	S sketch.Sketch
	T uint32
}

// Content returns f's content sketch as a Sample, with no block taken out
// as template.
func (o *Options) Content(f *Feature) Sample {
	return Sample{f.Content, sketch.Threshold(f.Content, o.SketchSize)}
}

// Strip returns f's content sketch less the hashes of the blocks that are
// template. A sketch left with no hash (a page that is all template: a
// search page, an empty index) is returned whole. A thin page keeps the
// few hashes of its own that are left: compared through the template's
// hashes, two generated pages of one template (the API pages of two
// methods) look alike however different their own words.
func (o *Options) Strip(f *Feature, template func(block uint32) bool) Sample {
	return o.StripTo(nil, f, template)
}

// StripTo is Strip, keeping the hashes left in dst's memory when it has room
// for them all.
func (o *Options) StripTo(dst sketch.Sketch, f *Feature, template func(block uint32) bool) Sample {
	whole := o.Content(f)
	tmpl, any := templateTags(f, template)
	if !any {
		return whole
	}
	if cap(dst) < len(f.Content) {
		dst = make(sketch.Sketch, 0, len(f.Content))
	}
	c := appendKept(dst[:0], f.Content, f, &tmpl, len(f.Content))
	if len(c) == 0 {
		return whole
	}
	return Sample{c, whole.T}
}

// templateTags marks the blocks of f (by their index in f.Blocks) that
// template holds, and reports whether it holds any.
func templateTags(f *Feature, template func(block uint32) bool) (tmpl [256]bool, any bool) {
	for i, b := range f.Blocks {
		if template(b) {
			tmpl[i], any = true, true
		}
	}
	return tmpl, any
}

// appendKept appends to dst, up to limit values in all, vals[i] (vals
// aligned with f.Content) for each content hash whose block tmpl does not
// mark.
func appendKept(dst, vals []uint32, f *Feature, tmpl *[256]bool, limit int) []uint32 {
	for i, tag := range f.Tags {
		if len(dst) == limit {
			break
		}
		if !tmpl[tag] {
			dst = append(dst, vals[i])
		}
	}
	return dst
}

// Page returns f's page sketch as a Sample.
func (o *Options) Page(f *Feature) Sample {
	return Sample{f.Page, sketch.Threshold(f.Page, o.PageSketchSize)}
}

// ContentDistance returns the distance of two pages' contents c1 and c2,
// or — for two pages whose markup disagrees on what is content, so that one
// page's content is part of the other's furniture — the smallest distance of
// a content with the other's content or whole page (p1, p2).
func ContentDistance(f1 *Feature, c1, p1 Sample, f2 *Feature, c2, p2 Sample) float64 {
	c := thinDistance(c1, c2)
	if lo, hi := min(f1.Share, f2.Share), max(f1.Share, f2.Share); hi >= 2*lo {
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
func thinDistance(a, b Sample) float64 {
	d := Distance(a, b)
	if a.T != sketch.Whole || b.T != sketch.Whole || d <= 0 || d >= 1 {
		return d // the same set is the same however small
	}
	s := 1 - d
	u := float64(len(a.S)+len(b.S)) / (1 + s) // |A| + |B| = |A ∪ B| + |A ∩ B|
	return 1 - s*u/(u+thinShingles)
}

// Distance estimates the Jaccard distance of the sets two samples come from.
func Distance(a, b Sample) float64 { return sketch.DistanceT(a.S, b.S, a.T, b.T) }

// Near returns the distance of two pages, given their content (as derived)
// and page sketches and whether they are of one host, and whether they are
// near-duplicates.
func (o *Options) Near(f1 *Feature, c1 Sample, f2 *Feature, c2 Sample) (float64, bool) {
	p1, p2 := o.Page(f1), o.Page(f2)
	c := ContentDistance(f1, c1, p1, f2, c2, p2)
	if c >= o.ContentGuard && c >= o.ContentDistance {
		return c, false // no rule can make them near: skip the page distance
	}
	p := Distance(p1, p2)
	r := o.Rule(c, p, f1.Host == f2.Host)
	return min(c, p), r == "content" || r == "page"
}

// Rule names the rule that makes pages at content distance c and page
// distance p near-duplicates, or returns "" (or "host", see
// minhash.Explanation).
func (o *Options) Rule(c, p float64, sameHost bool) string {
	r := ""
	switch {
	case c < o.ContentDistance:
		r = "content"
	case p < o.PageDistance && c < o.ContentGuard:
		r = "page"
	}
	if r != "" && sameHost && p >= o.HostPageDistance {
		return "host"
	}
	return r
}
