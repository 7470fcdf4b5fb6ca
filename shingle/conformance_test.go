package shingle

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
)

func TestConformance(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 2})
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
			}
			if f == Normalized { // the zero Detector's form
				s.Zero = new(Detector)
			}
			detectortest.Run(t, s)
		})
	}
}
