package main

import (
	"flag"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/ssm"
)

// ssmMethods is the similarity score measure of Zaheer, Narayana and
// Sreevani: top-N keyword tables compared by SSM (§3.7), alone (ssm) and
// within the domain × size partitions of §4 (ssm-partitioned).
func ssmMethods(fs *flag.FlagSet) []method {
	n := fs.Int("ssmn", ssm.DefaultN, "ssm: top keywords N per page")
	cut := fs.Float64("ssmcut", ssm.DefaultCutoff, "ssm: cut-off; a near-duplicate iff SSM (by -ssmrule) is below it")
	rule := fs.String("ssmrule", ssm.Magnitude.String(), "ssm: magnitude (|SSM| < cut-off) or signed (SSM < cut-off, the paper's text)")
	at := func(c float64) (neardup.Detector, error) {
		o := ssm.Options{N: *n, Cutoff: c}
		switch *rule {
		case ssm.Magnitude.String():
		case ssm.Signed.String():
			o.Rule = ssm.Signed
		default:
			return nil, fmt.Errorf("-ssmrule %q: want magnitude or signed", *rule)
		}
		return ssm.New(o)
	}
	return []method{{
		name:  "ssm",
		doc:   "similarity score measure of top-N keyword tables (Zaheer, Narayana & Sreevani §3.7)",
		new:   func() (neardup.Detector, error) { return at(*cut) },
		sweep: &sweep{param: "cut-off", values: fixed(1, 2, 3, 4, 5, 5.5, 6, 6.5, 7, 7.5, 8, 9, 10, 12, 15, 20, 30, 40, 52.64), at: at},
	}}
}
