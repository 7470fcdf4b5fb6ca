package ssm

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
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
				Measure:    AbsSSM,
				Other:      func() (neardup.Detector, error) { return New(Options{Rule: r, N: 12}) },
			}
			if r == Magnitude {
				s.Zero = new(Detector)
			}
			detectortest.Run(t, s)
		})
	}
}

// TestConformancePartitioned runs the suite over neardup.Partitioned with a
// Partitioner of two domains (the top keywords of the first three groups'
// first pages, and of the last three's), two size buckets split at 800 bytes
// (the groups' pages are 0.4–1.3 KB) with a margin of 500 bytes, and an ssm
// Detector in each part.
func TestConformancePartitioned(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 5, Sentences: func(g int) int { return 6 + 2*g }})
	var doms [2]Domain
	for g, docs := range groups {
		dom := &doms[g*2/len(groups)]
		for _, term := range docs[0].Page.Top(DefaultN) {
			dom.Keywords = append(dom.Keywords, term.Text)
		}
	}
	newPartitioned := func(bound int) func() (neardup.Detector, error) {
		return func() (neardup.Detector, error) {
			p, err := NewPartitioner(PartitionOptions{Domains: doms[:], Margin: 500, Sizes: []SizeRange{{0, bound}, {bound + 1, 0}}})
			if err != nil {
				return nil, err
			}
			return cluster.New(cluster.Options{Partitioner: p, NewDetector: func(int, int) (neardup.Detector, error) { return New(Options{}) }})
		}
	}
	detectortest.Run(t, detectortest.Suite{
		New:        newPartitioned(800),
		Groups:     groups,
		NoFeatures: &neardup.Document{ID: "no-terms", Page: &preprocess.Page{Text: "…"}},
		Measure:    AbsSSM,
		Other:      newPartitioned(1500), // other size buckets: pages kept elsewhere
	})
}

// The Detector implements every interface of a method.
var _ detectortest.Full = (*Detector)(nil)
