package main

import (
	"flag"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/editdist"
)

// editdistMethods is An and Cheng's edit-distance method (An and Cheng) on the
// page with its tags stripped only: the feature string of the Han character
// before each 。 (editdist), or of the word before each . ! ? for alphabetic
// scripts (editdist-latin). Pages without a feature (no 。) cannot be
// decided: they count as not flagged and not kept.
func editdistMethods(fs *flag.FlagSet) []method {
	alpha := fs.Float64("ea", editdist.DefaultAlpha, "editdist: α, least overlap factor LCC/n of the shorter feature string")
	beta := fs.Float64("eb", editdist.DefaultBeta, "editdist: β, least overlap factor LCC/m of the longer feature string")
	eps := fs.Float64("ee", editdist.DefaultEpsilon, "editdist: ε, added to α for two pages of one host (negative: no host rule)")
	terms := fs.String("eterm", editdist.DefaultTerminators, "editdist: the terminators of the Han feature string")
	build := func(ext editdist.Extractor, b float64) (neardup.Detector, error) {
		return editdist.New(editdist.Options{
			Thresholds: editdist.Thresholds{Alpha: *alpha, Beta: b, Epsilon: *eps},
			Extractor:  ext,
		})
	}
	han := func() editdist.Extractor { return editdist.Extractor{Terminators: *terms} }
	betas := fixed(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
	return []method{
		{
			name:  "editdist",
			doc:   "edit distance of the feature strings of Han characters before 。 (-ea, -eb, -ee; An & Cheng)",
			new:   func() (neardup.Detector, error) { return build(han(), *beta) },
			sweep: &sweep{param: "beta", values: betas, at: func(v float64) (neardup.Detector, error) { return build(han(), v) }},
		},
		{
			name:  "editdist-latin",
			doc:   "edit distance of the feature strings of words before . ! ? (-ea, -eb, -ee)",
			new:   func() (neardup.Detector, error) { return build(editdist.Latin(), *beta) },
			sweep: &sweep{param: "beta", values: betas, at: func(v float64) (neardup.Detector, error) { return build(editdist.Latin(), v) }},
		},
	}
}
