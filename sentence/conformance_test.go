package sentence

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
)

func TestConformance(t *testing.T) {
	// T_s = 0 with the relative tolerance off: the groups' lengths differ
	// (30, 37, 44, ... sentences), so each group is its own count.
	opts := Options{Threshold: SameCount, Relative: Absolute}
	detectortest.Run(t, detectortest.Suite{
		New:        func() (neardup.Detector, error) { return New(opts) },
		Groups:     detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 1}),
		NoFeatures: doc("empty", 0),
		Measure:    CountDifference,
		Other:      func() (neardup.Detector, error) { return New(Options{Threshold: 5}) },
		Zero:       new(Detector),
	})
}

// The Detector implements every interface of a method.
var _ detectortest.Full = (*Detector)(nil)
