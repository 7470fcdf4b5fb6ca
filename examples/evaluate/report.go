package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// result is the confusion matrix and speed of one method on one corpus.
type result struct {
	method         string
	tp, fp, tn, fn int
	wrong          int // duplicates matched to a page of another group
	errors         int
	firstErr       error
	errs           []string // with -errors: one line per false positive, false negative and wrong match
	pagesPerSec    float64
	value          float64 // the swept threshold, or a trial's size
	keptIDs        map[string]bool
}

// own returns matched, or p's own ID when p was kept under its ID before
// and det answered it added: a page offered again under its own kept ID
// (the generated crawl's re-offers) is answered "kept" with no match, and
// counts as flagged, a copy of the page kept under its ID, as a crawler
// that checks its kept IDs first counts it.
func (r *result) own(p page, matched string, err error) string {
	if matched != "" || err != nil {
		return matched
	}
	if r.keptIDs[p.id] {
		return p.id
	}
	if r.keptIDs == nil {
		r.keptIDs = make(map[string]bool)
	}
	r.keptIDs[p.id] = true
	return ""
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// precision and recall count a wrong match against both: it is a flag that
// is not a true positive, and a duplicate whose original was not found.
func (r result) precision() float64   { return ratio(r.tp, r.tp+r.fp+r.wrong) }
func (r result) recall() float64      { return ratio(r.tp, r.tp+r.fn+r.wrong) }
func (r result) specificity() float64 { return ratio(r.tn, r.tn+r.fp) }
func (r result) accuracy() float64    { return ratio(r.tp+r.tn, r.tp+r.fp+r.tn+r.fn+r.wrong) }
func (r result) f1() float64 {
	p, q := r.precision(), r.recall()
	if p+q == 0 {
		return 0
	}
	return 2 * p * q / (p + q)
}

const header = "method\ttp\tfp\ttn\tfn\tprecision\trecall\tf1\tspecificity\taccuracy\tpages_per_s\twrong"

func (r result) fields() string {
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.1f\t%d",
		r.method, r.tp, r.fp, r.tn, r.fn, r.precision(), r.recall(), r.f1(), r.specificity(), r.accuracy(), r.pagesPerSec, r.wrong)
}

func writeTSV(w io.Writer, rows []result) {
	fmt.Fprintln(w, header)
	for _, r := range rows {
		fmt.Fprintln(w, r.fields())
	}
}

func writeTable(w io.Writer, rows []result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, r.fields()+"\t")
	}
	tw.Flush()
}
