package editdist

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
)

// rehost gives every generated document a host of its own: the generator
// puts all of them on one host, where Definition 4 asks α + ε = 1 of the
// default thresholds (TestSameHost checks that rule).
func rehost(groups [][]*neardup.Document) [][]*neardup.Document {
	for _, g := range groups {
		for i, d := range g {
			g[i] = &neardup.Document{ID: d.ID, Host: fmt.Sprintf("%s.example", d.ID), Raw: d.Raw, Page: d.Page}
		}
	}
	return groups
}

func TestConformance(t *testing.T) {
	noFeatures := &neardup.Document{ID: "no-stops", Page: &preprocess.Page{Text: "没有句号的页面，只有逗号"}}
	t.Run("han", func(t *testing.T) {
		detectortest.Run(t, detectortest.Suite{
			New:        func() (neardup.Detector, error) { return New(Options{}) },
			Groups:     rehost(detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 3, Script: detectortest.Han, Sentences: func(g int) int { return 12 + 4*g }})),
			NoFeatures: noFeatures,
			Measure:    NonOverlap,
			Other:      func() (neardup.Detector, error) { return New(Options{Thresholds: Thresholds{Alpha: 0.9}}) },
			Zero:       new(Detector),
		})
	})
	t.Run("latin", func(t *testing.T) {
		// The generator puts every document on one host: the host rule off.
		o := Options{Extractor: Latin(), Thresholds: Thresholds{Epsilon: NoHostRule}}
		detectortest.Run(t, detectortest.Suite{
			New:        func() (neardup.Detector, error) { return New(o) },
			Groups:     detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 4, Sentences: func(g int) int { return 12 + 4*g }}),
			NoFeatures: noFeatures,
			Measure:    NonOverlap,
			Other:      func() (neardup.Detector, error) { return New(Options{}) }, // another Extractor
		})
	})
}

// The Detector implements every interface of a method.
var _ detectortest.Full = (*Detector)(nil)
