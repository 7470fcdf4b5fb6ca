package main

import (
	"flag"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// seed000Methods are SimHash alone and the cascade of Kumar and
// Govindarajulu: the sentence-count filter, then SimHash.
func seed000Methods(fs *flag.FlagSet) []method {
	tb := fs.Int("tb", simhash.DefaultMaxDistance, "simhash: largest Hamming distance T_B of a near-duplicate, in bits")
	ts := fs.Int("ts", sentence.DefaultThreshold, "sentence: sentence-count difference T_s always accepted")
	tr := fs.Float64("tr", sentence.DefaultRelative, "sentence: relative tolerance, a fraction of the longer page's sentence count (0 = off: the paper's rule)")
	newSimhash := func() (*simhash.Detector, error) {
		return simhash.New(simhash.Options{MaxDistance: *tb, ExplicitZero: *tb == 0})
	}
	newSentence := func() (*sentence.Detector, error) {
		o := sentence.Options{Threshold: *ts, ExplicitZero: *ts == 0, Relative: *tr}
		if *tr == 0 {
			o.Relative = sentence.Absolute
		}
		return sentence.New(o)
	}
	return []method{
		{"simhash", "SimHash alone (Kumar & Govindarajulu §3.2b)", func() (neardup.Detector, error) { return newSimhash() }},
		{"cascade", "sentence count, then SimHash (Kumar & Govindarajulu §3)", func() (neardup.Detector, error) {
			s, err := newSentence()
			if err != nil {
				return nil, err
			}
			h, err := newSimhash()
			if err != nil {
				return nil, err
			}
			return neardup.NewCascade(s, h)
		}},
	}
}
