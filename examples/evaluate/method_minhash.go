package main

import (
	"flag"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
)

// minhashMethods is the library's recommended detector (package minhash):
// MinHash sketches of each page's content (less its site's template blocks)
// and of the whole page. "recommended" is the same method under its earlier
// name.
func minhashMethods(fs *flag.FlagSet) []method {
	rc := fs.Float64("rc", minhash.DefaultContentDistance, "minhash: content distance below which pages are near-duplicates")
	rp := fs.Float64("rp", minhash.DefaultPageDistance, "minhash: whole-page distance below which pages are near-duplicates (with -rg)")
	rg := fs.Float64("rg", minhash.DefaultContentGuard, "minhash: content distance a whole-page match must also be below")
	rt := fs.Int("rt", 0, "minhash: kept pages of a host a block must be in to be template (0 = default, -1 = no template model)")
	rk := fs.Int("rk", 0, "minhash: hashes kept of a page's content (0 = default)")
	rpk := fs.Int("rpk", 0, "minhash: hashes kept of the whole page (0 = default)")
	rkeys := fs.Int("rkeys", 0, "minhash: index keys per page (0 = default)")
	rw := fs.Int("rw", 0, "minhash: tokens per shingle (0 = default)")
	rh := fs.Float64("rh", minhash.DefaultHostPageDistance, "minhash: whole-page distance two pages of one host must also be below (1 = no such rule)")
	rmax := fs.Int("rmax", 0, "minhash: pages an index key may be filed under before it stops being a key (0 = default, -1 = no bound)")
	opts := func(c float64) minhash.Options {
		return minhash.Options{ContentDistance: c, PageDistance: *rp, ContentGuard: *rg, TemplatePages: *rt,
			SketchSize: *rk, PageSketchSize: *rpk, Keys: *rkeys, ShingleWidth: *rw, MaxPostings: *rmax, HostPageDistance: *rh}
	}
	at := func(c float64) (neardup.Detector, error) { return minhash.New(opts(c)) }
	m := method{
		name: "minhash",
		doc:  "MinHash sketches of content (site templates discounted) and whole page",
		new:  func() (neardup.Detector, error) { return at(*rc) },
		sweep: &sweep{param: "content distance", at: at,
			values: fixed(0.4, 0.45, 0.5, 0.55, 0.6, 0.62, 0.65, 0.7, 0.75, 0.8)},
	}
	alias := m
	alias.name, alias.doc = "recommended", "the minhash method under its earlier name"
	// The methods with the repository in Redis: built only with the redis
	// build tag (method_redis.go).
	return append([]method{m, alias}, minhashFleetMethods(fs, opts, rc)...)
}
