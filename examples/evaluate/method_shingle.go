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
	return []method{
		{"shingle", "multiple k-shingle weighted dissimilarity (Khan et al.)", func() (neardup.Detector, error) {
			forms := map[string]shingle.Form{"normalized": shingle.Normalized, "equation": shingle.Equation, "table": shingle.TableForm}
			f, ok := forms[*sf]
			if !ok {
				return nil, fmt.Errorf("-sf %q: want normalized, equation or table", *sf)
			}
			return shingle.New(shingle.Options{M: *sm, Threshold: *st, Form: f})
		}},
	}
}
