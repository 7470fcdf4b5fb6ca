//go:build plot

package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// canPlot reports that this build draws -plot files (the plot build tag).
const canPlot = true

// savePlot draws the series as lines with points into file (.svg or .png,
// by its extension).
func savePlot(file, title, xlabel, ylabel string, ss []series) error {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".svg", ".png":
	default:
		return fmt.Errorf("-plot %s: want a .svg or .png file", file)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = false
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	var args []any
	for _, s := range ss {
		pts := make(plotter.XYs, len(s.x))
		for i := range s.x {
			pts[i].X, pts[i].Y = s.x[i], s.y[i]
		}
		args = append(args, s.name, pts)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	return p.Save(6*vg.Inch, 4*vg.Inch, file)
}
