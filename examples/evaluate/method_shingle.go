package main

import (
	"flag"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/shingle"
)

// shingleMethods is the multiple k-shingle weighted dissimilarity of Khan et
// al.
func shingleMethods(fs *flag.FlagSet) []method {
	st := fs.Float64("st", 0, "shingle: dissimilarity threshold (0 = the form's default: shingle.DefaultThreshold for normalized, shingle.PaperThreshold for equation and table)")
	sm := fs.Int("sm", shingle.DefaultM, "shingle: largest shingle size m")
	sf := fs.String("sf", shingle.Normalized.String(), "shingle: dissimilarity form: normalized (Eq. (1) over S_a+S_b, in [0, 1]), equation (Eq. (1) as printed) or table (Table 4's form)")
	sp := fs.Int("sp", shingle.DefaultMaxPatterns, "shingle: most patterns kept per page (a consistent sample beyond it); -1 keeps all (the exact method)")
	spost := fs.Int("spost", shingle.DefaultMaxPostings, "shingle: a prefix pattern of more kept pages than this is not looked up; -1 looks up every one (the exact index)")
	at := func(t float64) (neardup.Detector, error) {
		forms := map[string]shingle.Form{"normalized": shingle.Normalized, "equation": shingle.Equation, "table": shingle.TableForm}
		f, ok := forms[*sf]
		if !ok {
			return nil, fmt.Errorf("-sf %q: want normalized, equation or table", *sf)
		}
		return shingle.New(shingle.Options{M: *sm, Threshold: t, Form: f, MaxPatterns: *sp, MaxPostings: *spost})
	}
	values := func() []float64 {
		if *sf != "normalized" {
			return []float64{0.2, 0.5, 1, 2, 4, 6, 8, 10, 12, 14, 16}
		}
		return []float64{0.1, 0.15, 0.2, 0.225, 0.25, 0.275, 0.3, 0.325, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7}
	}
	return []method{{
		name:  "shingle",
		doc:   "multiple k-shingle weighted dissimilarity (Khan et al.)",
		new:   func() (neardup.Detector, error) { return at(*st) },
		sweep: &sweep{param: "threshold", values: values, at: at},
	}}
}
