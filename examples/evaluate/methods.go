package main

import (
	"flag"
	"fmt"
	"slices"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// method builds a fresh detector for one evaluation run.
type method struct {
	name string
	doc  string
	new  func() (neardup.Detector, error)
}

// A family registers the flags of one package's methods on fs and returns the
// methods, whose constructors read the flags when they are called. Each
// family lives in its own file (method_<package>.go); every flag's default is
// the package's own default constant, so that a run without flags measures
// the library as shipped.
type family func(fs *flag.FlagSet) []method

// families lists every family, in the order -methods lists their methods.
func families() []family {
	return []family{recommendedMethods, seed000Methods, shingleMethods}
}

// methodSet is the methods of every family, registered on one FlagSet.
type methodSet []method

func newMethodSet(fs *flag.FlagSet) methodSet {
	var ms methodSet
	for _, f := range families() {
		ms = append(ms, f(fs)...)
	}
	return ms
}

func (ms methodSet) names() []string {
	var names []string
	for _, m := range ms {
		names = append(names, m.name)
	}
	return names
}

func (ms methodSet) lookup(name string) (method, bool) {
	i := slices.IndexFunc(ms, func(m method) bool { return m.name == name })
	if i < 0 {
		return method{}, false
	}
	return ms[i], true
}

// evaluate streams pages through a fresh detector of m, in order.
func evaluate(m method, pages []page) (result, error) {
	det, err := m.new()
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
