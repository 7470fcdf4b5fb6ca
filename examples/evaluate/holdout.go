package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// runHoldout sweeps m's main threshold on each corpus of dirs and chooses
// it by leaving one corpus out: for each corpus, the value of best mean F1
// over the others (the smaller value on a tie), and the F1 that value gives
// on the corpus left out, which it was not chosen on. It prints the F1 of
// every value on every corpus, then one line per corpus left out, then the
// value of best mean F1 over all of them, the one to ship.
func runHoldout(m method, dirs []string, limit int, w io.Writer) error {
	if m.sweep == nil {
		return fmt.Errorf("-holdout: %s has no threshold to sweep", m.name)
	}
	if len(dirs) < 2 {
		return fmt.Errorf("-holdout needs two corpora or more in -corpus, got %d", len(dirs))
	}
	values := m.sweep.values()
	names := make([]string, len(dirs))
	f1 := make([][]float64, len(values)) // f1[value][corpus]
	for i := range f1 {
		f1[i] = make([]float64, len(dirs))
	}
	for c, dir := range dirs {
		names[c] = filepath.Base(dir)
		p, err := readCorpus(dir, limit)
		if err != nil {
			return err
		}
		rows, err := runSweep(m, pagesSource(names[c], p))
		if err != nil {
			return fmt.Errorf("%s: %w", names[c], err)
		}
		for i, r := range rows {
			if r.errors > 0 {
				return fmt.Errorf("%s: %s: %d pages could not be decided (first: %v)", names[c], r.method, r.errors, r.firstErr)
			}
			f1[i][c] = r.f1()
		}
	}
	// best returns the value index of best mean F1 over the corpora for
	// which use is true, and that mean.
	best := func(use func(c int) bool) (int, float64) {
		bi, bm := 0, -1.0
		for i := range values {
			var sum float64
			n := 0
			for c := range dirs {
				if use(c) {
					sum += f1[i][c]
					n++
				}
			}
			if mean := sum / float64(n); mean > bm {
				bi, bm = i, mean
			}
		}
		return bi, bm
	}
	param := strings.ReplaceAll(m.sweep.param, " ", "_")

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s %s\t%s\tmean\t\n", m.name, param, strings.Join(names, "\t"))
	for i, v := range values {
		var sum float64
		fmt.Fprintf(tw, "%g\t", v)
		for c := range dirs {
			fmt.Fprintf(tw, "%.4f\t", f1[i][c])
			sum += f1[i][c]
		}
		fmt.Fprintf(tw, "%.4f\t\n", sum/float64(len(dirs)))
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "left out\tchosen on the others\tF1 left out\tbest for it\tits F1\t\n")
	var held float64
	for c := range dirs {
		i, _ := best(func(o int) bool { return o != c })
		j, _ := best(func(o int) bool { return o == c })
		held += f1[i][c]
		fmt.Fprintf(tw, "%s\t%g\t%.4f\t%g\t%.4f\t\n", names[c], values[i], f1[i][c], values[j], f1[j][c])
	}
	fmt.Fprintf(tw, "mean\t\t%.4f\t\t\t\n", held/float64(len(dirs)))
	tw.Flush()
	i, mean := best(func(int) bool { return true })
	fmt.Fprintf(w, "\nbest on all %d corpora: %s %s=%g, mean F1 %.4f\n", len(dirs), m.name, param, values[i], mean)
	return nil
}
