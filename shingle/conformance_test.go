package shingle

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
)

func TestConformance(t *testing.T) {
	// Short pages keep the snapshots small: the persist check reads hundreds
	// of truncated copies.
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 2, Sentences: func(g int) int { return 6 + 2*g }})
	noTokens := &neardup.Document{ID: "no-tokens", Page: &preprocess.Page{Text: "…"}}
	for _, f := range []Form{Normalized, Equation} {
		t.Run(f.String(), func(t *testing.T) {
			o := Options{Form: f}
			if f == Equation {
				o.Threshold = 8 // Eq. (1) grows with page length
			}
			s := detectortest.Suite{
				New:        func() (neardup.Detector, error) { return New(o) },
				Groups:     groups,
				NoFeatures: noTokens,
				Measure:    f.Measure(),
				Other:      func() (neardup.Detector, error) { return New(Options{Form: f, M: 3}) },
			}
			if f == Normalized { // the zero Detector's form
				s.Zero = new(Detector)
			}
			detectortest.Run(t, s)
		})
	}
}

// storeOf returns dt's store, for tests that look inside it while nothing
// else uses dt.
func storeOf(dt *Detector) *store {
	var st *store
	dt.c().Read(func(s detector.Store[*Vector]) { st = s.(*store) })
	return st
}

// The Detector implements every interface of a method.
var _ detectortest.Full = (*Detector)(nil)
