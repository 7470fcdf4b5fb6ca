package detectortest

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/synth"
)

// Tally counts the verdicts of a detector on the pages of the generated
// crawl, offered in order through MatchOrAdd: a page is flagged when it
// matches a kept page; a flagged near-duplicate matched to a page of
// another group counts against both precision and recall; a page offered
// again under its own kept ID, answered kept, counts as flagged, a copy of
// itself. The zero Tally is ready to use.
type Tally struct {
	group             map[string]int // the group of each kept page, by ID
	tp, fp, fn, wrong int
}

// Count counts the verdict on p: ms and added as MatchOrAdd returned them.
func (t *Tally) Count(p synth.Page, ms []neardup.Match, added bool) {
	if t.group == nil {
		t.group = make(map[string]int)
	}
	if _, ok := t.group[p.ID]; ok && added && len(ms) == 0 {
		// p offered again under its own kept ID (a re-offer), answered
		// "kept": flagged as a copy of the page kept under its ID.
		added, ms = false, []neardup.Match{{ID: p.ID}}
	} else if added {
		t.group[p.ID] = p.Group
	}
	switch {
	case !added && p.Duplicate() && t.group[ms[0].ID] == p.Group:
		t.tp++
	case !added && p.Duplicate():
		t.wrong++
	case !added:
		t.fp++
	case p.Duplicate():
		t.fn++
	}
}

// Precision returns the share of flagged pages flagged rightly.
func (t *Tally) Precision() float64 { return float64(t.tp) / float64(t.tp+t.fp+t.wrong) }

// Recall returns the share of near-duplicates flagged rightly.
func (t *Tally) Recall() float64 { return float64(t.tp) / float64(t.tp+t.fn+t.wrong) }

// F1 returns the harmonic mean of Precision and Recall.
func (t *Tally) F1() float64 {
	p, r := t.Precision(), t.Recall()
	return 2 * p * r / (p + r)
}

// Report reports F1 on b, and precision and recall when all is set.
func (t *Tally) Report(b *testing.B, all bool) {
	b.ReportMetric(t.F1(), "F1")
	if all {
		b.ReportMetric(t.Precision(), "precision")
		b.ReportMetric(t.Recall(), "recall")
	}
}
