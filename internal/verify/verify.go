// Package verify holds what the module's detectors share in implementing
// neardup.Verifier: scoring the candidates an earlier Cascade stage found.
package verify

import (
	"slices"

	"github.com/neardup/neardup"
)

// Candidates scores each candidate's ID with score and returns those it
// accepts, best first (neardup.SortMatches), each ID once. The candidates'
// own scores are not read. score runs under the caller's lock and reports
// false for IDs the detector does not keep or that are not near enough.
func Candidates(candidates []neardup.Match, score func(id string) (float64, bool)) []neardup.Match {
	var ms []neardup.Match
	for _, c := range candidates {
		if s, ok := score(c.ID); ok {
			ms = append(ms, neardup.Match{ID: c.ID, Score: s})
		}
	}
	neardup.SortMatches(ms)
	// a repeated candidate scores the same, so its copies are adjacent
	return slices.CompactFunc(ms, func(a, b neardup.Match) bool { return a.ID == b.ID })
}
