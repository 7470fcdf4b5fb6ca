package ssm

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
)

func TestConformance(t *testing.T) {
	// Short pages keep the snapshots small: the persist check reads hundreds
	// of truncated copies.
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 2, Sentences: func(g int) int { return 6 + 2*g }})
	noTerms := &neardup.Document{ID: "no-terms", Page: &preprocess.Page{Text: "…"}}
	for _, r := range []Rule{Magnitude, Signed} {
		t.Run(r.String(), func(t *testing.T) {
			s := detectortest.Suite{
				New:        func() (neardup.Detector, error) { return New(Options{Rule: r}) },
				Groups:     groups,
				NoFeatures: noTerms,
				Measure:    Score,
				Other:      func() (neardup.Detector, error) { return New(Options{Rule: r, N: 12}) },
			}
			if r == Magnitude {
				s.Zero = new(Detector)
			}
			detectortest.Run(t, s)
		})
	}
}
