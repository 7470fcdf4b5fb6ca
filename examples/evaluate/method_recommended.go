package main

import (
	"flag"

	"github.com/neardup/neardup"
)

// recommendedMethods is the library's recommended detector: MinHash sketches
// of each page's content (less its site's template blocks) and of the whole
// page.
func recommendedMethods(fs *flag.FlagSet) []method {
	rc := fs.Float64("rc", neardup.DefaultContentDistance, "recommended: content distance below which pages are near-duplicates")
	rp := fs.Float64("rp", neardup.DefaultPageDistance, "recommended: whole-page distance below which pages are near-duplicates (with -rg)")
	rg := fs.Float64("rg", neardup.DefaultContentGuard, "recommended: content distance a whole-page match must also be below")
	rt := fs.Int("rt", 0, "recommended: pages of a host a block must be seen on to be template (0 = default, -1 = no template model)")
	at := func(c float64) (neardup.Detector, error) {
		return neardup.NewRecommended(neardup.RecommendedOptions{ContentDistance: c, PageDistance: *rp, ContentGuard: *rg, TemplatePages: *rt})
	}
	return []method{{
		name: "recommended",
		doc:  "MinHash sketches of content (site templates discounted) and whole page",
		new:  func() (neardup.Detector, error) { return at(*rc) },
		sweep: &sweep{param: "content distance", at: at,
			values: fixed(0.4, 0.45, 0.5, 0.55, 0.6, 0.62, 0.65, 0.7, 0.75, 0.8)},
	}}
}
