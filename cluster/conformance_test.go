package cluster

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/simhash"
)

// TestConformance runs the conformance suite on the clustered cascade: at
// the defaults (the suite keeps too few pages for a fit: one cluster), and
// with small first-fit sizes, so that the suite's Adds, races, Replaces,
// Removes and snapshots run across fits that move kept pages between
// cluster detectors and fits that start generations ("generations" fits at
// 2, 3 and 5 kept pages, so the suite's six groups spread over three). The
// generated groups have disjoint vocabularies, so a page's keywords send it
// where its group's first page went; with fewer clusters than groups,
// probing every cluster keeps the suite's answers exact.
func TestConformance(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 16})
	noKeywords := kwDoc("stop-words-only")
	for name, o := range map[string]Options{
		"defaults":      {},
		"refits":        {KModes: KModesOptions{K: 6}, FitAt: 4},
		"refits-probes": {KModes: KModesOptions{K: 3, Probes: 3}, FitAt: 3, Growth: 1.5},
		"generations":   {KModes: KModesOptions{K: 6}, FitAt: 2, Growth: 1.5},
		"incremental":   {KModes: KModesOptions{K: 6, Init: Huang, Seed: 1, NInit: 2}, FitAt: 4, Incremental: true},
	} {
		o.NewDetector = cascades
		t.Run(name, func(t *testing.T) {
			other := o
			other.KModes.K = 5
			detectortest.Run(t, detectortest.Suite{
				New:        func() (neardup.Detector, error) { return New(o) },
				Groups:     groups,
				NoFeatures: noKeywords,
				Measure:    simhash.Bits,
				Other:      func() (neardup.Detector, error) { return New(other) },
				Zero:       new(Detector),
				ZeroErrs:   true,
			})
		})
	}
}
