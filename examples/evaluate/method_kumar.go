package main

import (
	"cmp"
	"flag"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// kumarMethods are SimHash alone and the cascade of Kumar and
// Govindarajulu: the sentence-count filter, then SimHash.
func kumarMethods(fs *flag.FlagSet) []method {
	tb := fs.Int("tb", simhash.DefaultMaxDistance, "simhash: largest Hamming distance T_B of a near-duplicate, in bits")
	ts := fs.Int("ts", sentence.DefaultThreshold, "sentence: sentence-count difference T_s always accepted")
	tr := fs.Float64("tr", sentence.DefaultRelative, "sentence: relative tolerance, a fraction of the longer page's sentence count (0 = off: the paper's rule)")
	newSimhash := func(t int) (*simhash.Detector, error) {
		return simhash.New(simhash.Options{MaxDistance: cmp.Or(t, simhash.Identical)})
	}
	cascade := func(t int) (neardup.Detector, error) {
		o := sentence.Options{Threshold: cmp.Or(*ts, sentence.SameCount), Relative: *tr}
		if *tr == 0 {
			o.Relative = sentence.Absolute
		}
		s, err := sentence.New(o)
		if err != nil {
			return nil, err
		}
		h, err := newSimhash(t)
		if err != nil {
			return nil, err
		}
		return neardup.NewCascade(s, h)
	}
	bits := fixed(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16)
	return append([]method{
		{
			name:  "simhash",
			doc:   "SimHash alone (Kumar & Govindarajulu §3.2b)",
			new:   func() (neardup.Detector, error) { return newSimhash(*tb) },
			sweep: &sweep{param: "T_B", values: bits, at: func(v float64) (neardup.Detector, error) { return newSimhash(int(v)) }},
		},
		{
			name:  "cascade",
			doc:   "sentence count, then SimHash (Kumar & Govindarajulu §3)",
			new:   func() (neardup.Detector, error) { return cascade(*tb) },
			sweep: &sweep{param: "T_B", values: bits, at: func(v float64) (neardup.Detector, error) { return cascade(int(v)) }},
		},
	}, simhashFleetMethods(fs, tb)...)
}
