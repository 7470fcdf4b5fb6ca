package main

import (
	"flag"
	"fmt"
	"slices"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/simhash"
)

// config holds the methods' thresholds; zero values mean each package's defaults.
type config struct {
	tb int     // simhash T_B
	ts int     // sentence T_s
	tr float64 // sentence relative tolerance
	st float64 // shingle threshold
	sm int     // shingle m
	sf string  // shingle form
}

func (c *config) register(fs *flag.FlagSet) {
	fs.IntVar(&c.tb, "tb", -1, "simhash: largest Hamming distance T_B of a near-duplicate (-1 = package default)")
	fs.IntVar(&c.ts, "ts", -1, "sentence: largest sentence-count difference T_s (-1 = package default)")
	fs.Float64Var(&c.st, "st", 0, "shingle: dissimilarity threshold (0 = package default)")
	fs.IntVar(&c.sm, "sm", 0, "shingle: largest shingle size m (0 = package default)")
	fs.StringVar(&c.sf, "sf", "equation", "shingle: dissimilarity form: equation (Eq. (1) as printed), table (Table 4's form) or normalized (Eq. (1) over S_a+S_b, in [0, 1])")
	fs.Float64Var(&c.tr, "tr", -1, "sentence: relative tolerance, a fraction of the new page's sentence count (-1 = package default)")
}

// method builds a fresh detector for one evaluation run.
type method struct {
	name string
	doc  string
	new  func(c config) (neardup.Detector, error)
}

func methods() []method {
	return []method{
		{"simhash", "SimHash alone (seed 000 §3.2b)", newSimhash},
		{"cascade", "sentence count, then SimHash (seed 000 §3)", func(c config) (neardup.Detector, error) {
			s, err := newSentence(c)
			if err != nil {
				return nil, err
			}
			h, err := newSimhash(c)
			if err != nil {
				return nil, err
			}
			return neardup.NewCascade(s, h)
		}},
		{"shingle", "multiple k-shingle weighted dissimilarity (seed 004)", func(c config) (neardup.Detector, error) {
			forms := map[string]shingle.Form{"equation": shingle.Equation, "table": shingle.TableForm, "normalized": shingle.Normalized}
			f, ok := forms[c.sf]
			if !ok {
				return nil, fmt.Errorf("-sf %q: want equation, table or normalized", c.sf)
			}
			return shingle.New(shingle.Options{M: c.sm, Threshold: c.st, Form: f})
		}},
	}
}

func newSimhash(c config) (neardup.Detector, error) {
	var o simhash.Options
	if c.tb >= 0 {
		o.MaxDistance = c.tb
		o.ExplicitZero = c.tb == 0
	}
	return simhash.New(o)
}

func newSentence(c config) (neardup.Detector, error) {
	var o sentence.Options
	if c.tr >= 0 {
		o.Relative = c.tr
	}
	if c.ts >= 0 {
		o.Threshold = c.ts
		o.ExplicitZero = c.ts == 0
	}
	return sentence.New(o)
}

func methodNames() []string {
	var names []string
	for _, m := range methods() {
		names = append(names, m.name)
	}
	return names
}

func lookup(name string) (method, bool) {
	ms := methods()
	i := slices.IndexFunc(ms, func(m method) bool { return m.name == name })
	if i < 0 {
		return method{}, false
	}
	return ms[i], true
}

// evaluate streams pages through a fresh detector of m, in order.
func evaluate(m method, c config, pages []page) (result, error) {
	det, err := m.new(c)
	if err != nil {
		return result{}, err
	}
	var pipe preprocess.Pipeline
	r := result{method: m.name}
	start := time.Now()
	for _, p := range pages {
		flagged, err := step(det, &pipe, p)
		if err != nil {
			r.errors++
			if r.firstErr == nil {
				r.firstErr = fmt.Errorf("page %s: %w", p.id, err)
			}
		}
		switch {
		case flagged && p.dup:
			r.tp++
		case flagged:
			r.fp++
		case p.dup:
			r.fn++
		default:
			r.tn++
		}
	}
	r.pagesPerSec = float64(len(pages)) / time.Since(start).Seconds()
	return r, nil
}

// step preprocesses p and offers it to det: it reports whether det flagged p
// as a near-duplicate of a kept page (a flagged page is not kept).
func step(det neardup.Detector, pipe *preprocess.Pipeline, p page) (bool, error) {
	d, err := neardup.NewDocument(pipe, p.id, p.url, p.raw)
	if err != nil {
		return false, err
	}
	if ma, ok := det.(neardup.MatchAdder); ok {
		ms, _, err := ma.MatchOrAdd(d)
		return len(ms) > 0, err
	}
	ms, err := det.Match(d)
	if err != nil || len(ms) > 0 {
		return len(ms) > 0, err
	}
	return false, det.Add(d)
}
