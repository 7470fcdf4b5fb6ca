package simhash

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/simhash/hamming"
)

func TestConformance(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 3})
	for _, tb := range []int{DefaultMaxDistance, hamming.MaxDistance + 4} { // the index, and the scan
		t.Run(fmt.Sprint("T_B=", tb), func(t *testing.T) {
			detectortest.Run(t, detectortest.Suite{
				New:        func() (neardup.Detector, error) { return New(Options{MaxDistance: tb}) },
				Groups:     groups,
				NoFeatures: doc("no-terms"),
				Measure:    Bits,
				Other:      func() (neardup.Detector, error) { return New(Options{MaxDistance: 3}) },
				Zero:       new(Detector),
			})
		})
	}
}

// The Detector implements every interface of a method.
var _ detectortest.Full = (*Detector)(nil)
