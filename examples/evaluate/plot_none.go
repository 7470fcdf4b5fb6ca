//go:build !plot

package main

import "errors"

// canPlot reports that this build draws -plot files: it does not, without
// the plot build tag.
const canPlot = false

// savePlot fails: this build has no plotting (see plotHint).
func savePlot(file, title, xlabel, ylabel string, ss []series) error {
	return errors.New(plotHint)
}
