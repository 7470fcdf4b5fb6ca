package main

import (
	"cmp"
	"flag"
	"fmt"
	"strconv"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// clusterMethods is the clustered cascade of Kumar and Govindarajulu (§4):
// KModes splits the kept pages into k clusters by their top keywords, and a
// new page runs the sentence-count → SimHash cascade only within its p most
// similar clusters. The cascade's thresholds are the -tb, -ts and -tr flags
// of the Kumar and Govindarajulu family (simhash, cascade) when it is registered, else the library defaults.
func clusterMethods(fs *flag.FlagSet) []method {
	k := fs.Int("kk", cluster.DefaultK, "kmodes: number of clusters k")
	p := fs.Int("kp", cluster.DefaultProbes, "kmodes: clusters p a page is compared within (multi-probe)")
	f := fs.Int("kf", cluster.DefaultKeywords, "kmodes: top keywords f per page and per mode")
	fitAt := fs.Int("kfit", cluster.DefaultFitAt, "kmodes: kept pages at the first fit, then a refit at each doubling (-1: never)")
	init := fs.String("kinit", cluster.Cao.String(), "kmodes: initialisation, cao or huang")
	inc := fs.Bool("kinc", false, "kmodes: fold each kept page into its cluster's mode between refits")
	modes := fs.Int("km", 0, "kmodes: keywords per mode (0: cluster.DefaultModeKeywords with cosine, -kf with matching; -1: -kf, the paper's modes)")
	sim := fs.String("ksim", cluster.Cosine.String(), "kmodes: similarity of a page to a mode, cosine or matching")
	build := func(k int) (neardup.Detector, error) {
		o := cluster.Options{
			KModes:      cluster.KModesOptions{K: k, Probes: min(*p, k), Keywords: *f, ModeKeywords: *modes},
			FitAt:       *fitAt,
			Incremental: *inc,
			NewDetector: func(_, expected int) (neardup.Detector, error) { return kumarCascade(fs, expected) },
		}
		if *modes < 0 {
			o.KModes.ModeKeywords = *f
		}
		switch *sim {
		case cluster.Cosine.String():
		case cluster.Matching.String():
			o.KModes.Similarity = cluster.Matching
		default:
			return nil, fmt.Errorf("-ksim %q: want cosine or matching", *sim)
		}
		switch *init {
		case cluster.Cao.String():
		case cluster.Huang.String():
			o.KModes.Init = cluster.Huang
		default:
			return nil, fmt.Errorf("-kinit %q: want cao or huang", *init)
		}
		return cluster.New(o)
	}
	return []method{
		{
			name:  "kmodes",
			doc:   "the sentence → SimHash cascade within the p most similar of k KModes clusters (-kk, -kp; Kumar & Govindarajulu §4)",
			new:   func() (neardup.Detector, error) { return build(*k) },
			sweep: &sweep{param: "k", values: fixed(1, 2, 4, 8, 16, 32, 64), at: func(v float64) (neardup.Detector, error) { return build(int(v)) }},
		},
	}
}

// kumarCascade returns the sentence → SimHash cascade with the thresholds
// of the -tb, -ts and -tr flags when fs has them, else the defaults, its
// SimHash index sized for expected pages.
func kumarCascade(fs *flag.FlagSet, expected int) (neardup.Detector, error) {
	tb, ts, tr := simhash.DefaultMaxDistance, sentence.DefaultThreshold, sentence.DefaultRelative
	lookup := func(name string, parse func(string) error) error {
		if fl := fs.Lookup(name); fl != nil {
			return parse(fl.Value.String())
		}
		return nil
	}
	err := lookup("tb", func(v string) (err error) { tb, err = strconv.Atoi(v); return })
	if err == nil {
		err = lookup("ts", func(v string) (err error) { ts, err = strconv.Atoi(v); return })
	}
	if err == nil {
		err = lookup("tr", func(v string) (err error) { tr, err = strconv.ParseFloat(v, 64); return })
	}
	if err != nil {
		return nil, err
	}
	so := sentence.Options{Threshold: cmp.Or(ts, sentence.SameCount), Relative: tr}
	if tr == 0 {
		so.Relative = sentence.Absolute
	}
	bySentences, err := sentence.New(so)
	if err != nil {
		return nil, err
	}
	byPrint, err := simhash.New(simhash.Options{MaxDistance: cmp.Or(tb, simhash.Identical), ExpectedSize: max(expected, 1024)})
	if err != nil {
		return nil, err
	}
	return neardup.NewCascade(bySentences, byPrint)
}
