package neardup_test

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/editdist"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/ssm"
)

// TestCascadeConformance runs the conformance suite on a sentence + simhash cascade in
// both stage orders: the matches carry the last stage's measure.
func TestCascadeConformance(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 4})
	for _, order := range []string{"sentence-simhash", "simhash-sentence"} {
		t.Run(order, func(t *testing.T) {
			measure := simhash.Bits
			if order == "simhash-sentence" {
				measure = sentence.CountDifference
			}
			detectortest.Run(t, detectortest.Suite{
				New: func() (neardup.Detector, error) {
					s, _ := sentence.New(sentence.Options{})
					h, _ := simhash.New(simhash.Options{})
					if order == "simhash-sentence" {
						return neardup.NewCascade(h, s)
					}
					return neardup.NewCascade(s, h)
				},
				Groups:  groups,
				Measure: measure,
				Other: func() (neardup.Detector, error) { // the stages in the other order
					s, _ := sentence.New(sentence.Options{})
					h, _ := simhash.New(simhash.Options{})
					if order == "simhash-sentence" {
						return neardup.NewCascade(s, h)
					}
					return neardup.NewCascade(h, s)
				},
				Zero:     new(neardup.Cascade),
				ZeroErrs: true,
			})
		})
	}
}

// twoParts keeps every document in part 0 and probes part 1 as well.
type twoParts struct{}

func (twoParts) Partition(*neardup.Document) ([]int, error) { return []int{0, 1}, nil }

func TestPartitionedConformance(t *testing.T) {
	detectortest.Run(t, detectortest.Suite{
		New: func() (neardup.Detector, error) {
			return partitioned(twoParts{}, func(int) (neardup.Detector, error) { return simhash.New(simhash.Options{}) })
		},
		Groups:   detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 5}),
		Measure:  simhash.Bits,
		Zero:     new(cluster.Detector),
		ZeroErrs: true,
	})
}

// complete is every optional ability of a detector; the package documentation
// says which detectors have them all.
type complete interface {
	neardup.Verifier
	neardup.Remover
	neardup.MatchAdder
	neardup.Replacer
	neardup.Persister
}

var (
	_ complete = (*minhash.Detector)(nil)
	_ complete = (*simhash.Detector)(nil)
	_ complete = (*sentence.Detector)(nil)
	_ complete = (*shingle.Detector)(nil)
	_ complete = (*editdist.Detector)(nil)
	_ complete = (*ssm.Detector)(nil)
	_ complete = (*cluster.Detector)(nil)
	_ complete = (*neardup.Cascade)(nil)
	_ complete = (*neardup.Window)(nil)
)
