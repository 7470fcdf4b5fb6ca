package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// progress shows how far the run is on standard error: a bar redrawn in
// place (mode "bar"), a line every few seconds ("lines") or nothing
// ("none"). With the inputs' total size known (regular files only) it
// shows the percent read and an estimate of the time left.
type progress struct {
	mode  string
	w     io.Writer
	total int64 // bytes as stored; -1 when an input's size is unknown
	read  *atomic.Int64
	start time.Time
	width int // of the last bar drawn, to clear it
}

func newProgress(mode string, w io.Writer, srcs []source, read *atomic.Int64) *progress {
	p := &progress{mode: mode, w: w, read: read, start: time.Now()}
	for _, s := range srcs {
		if s.Size < 0 {
			p.total = -1
			break
		}
		p.total += s.Size
	}
	return p
}

// ticker returns the channel that paces the display (nil: never) and its
// stop function.
func (p *progress) ticker() (<-chan time.Time, func()) {
	var every time.Duration
	switch p.mode {
	case "bar":
		every = 250 * time.Millisecond
	case "lines":
		every = 2 * time.Second
	default:
		return nil, func() {}
	}
	t := time.NewTicker(every)
	return t.C, t.Stop
}

// line is the progress text: percent, pages and rate, time left.
func (p *progress) line(d *deduper, bar bool) string {
	read := p.read.Load()
	el := time.Since(p.start)
	var b strings.Builder
	if p.total > 0 {
		frac := min(float64(read)/float64(p.total), 1)
		if bar {
			n := int(frac * 20)
			b.WriteString("[" + strings.Repeat("=", n) + strings.Repeat(" ", 20-n) + "] ")
		}
		fmt.Fprintf(&b, "%3.0f%% ", 100*frac)
		if frac > 0 && frac < 1 {
			fmt.Fprintf(&b, "ETA %s, ", (time.Duration(float64(el) * (1 - frac) / frac)).Round(time.Second))
		}
	}
	fmt.Fprintf(&b, "%.1f MB read, %s", float64(read)/1e6, d.counts())
	if s := el.Seconds(); s > 0 {
		fmt.Fprintf(&b, " (%.0f pages/s)", float64(d.pages)/s)
	}
	return b.String()
}

func (p *progress) show(d *deduper) {
	switch p.mode {
	case "bar":
		s := p.line(d, true)
		pad := max(p.width-len(s), 0)
		fmt.Fprintf(p.w, "\r%s%s", s, strings.Repeat(" ", pad))
		p.width = len(s)
	case "lines":
		fmt.Fprintln(p.w, p.line(d, false))
	}
}

// Write writes b, whole lines of a message, to standard error below the
// bar: it clears the bar first (the next tick draws it again), so that a
// message never runs on from the bar's line. Messages and the bar are
// written by the goroutine that judges the pages.
func (p *progress) Write(b []byte) (int, error) {
	if p.mode == "bar" && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
	return p.w.Write(b)
}

// finish clears the bar, so that the summary starts a clean line.
func (p *progress) finish(*deduper) {
	if p.mode == "bar" && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	}
}
