package main

// series is one line of a plot: y over x.
type series struct {
	name string
	x, y []float64
}

// plotHint is how to build evaluate with -plot working: plotting pulls in
// gonum.org/v1/plot, which a table does not need, so it is built only with
// the plot build tag.
const plotHint = "-plot needs the plot build tag (go run -tags plot ./examples/evaluate)"
