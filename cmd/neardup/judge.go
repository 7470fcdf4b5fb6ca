package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strconv"
	"sync"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// deduper reads pages with workers goroutines and judges them in input
// order.
type deduper struct {
	det     detector
	pipe    *preprocess.Pipeline
	workers int
	verbose bool
	log     io.Writer
	groups  *groups

	start                                  time.Time
	pages, kept, known, dups, skip, failed int
	bytes                                  int64
}

// prepared is an item after preprocessing, numbered in input order.
type prepared struct {
	seq int
	it  item
	doc *neardup.Document
	err error
}

func (d *deduper) run(ctx context.Context, in iter.Seq[item], tick <-chan time.Time) error {
	d.start = time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan prepared, 2*d.workers)
	done := make(chan prepared, 2*d.workers)

	go func() { // reader: inputs in order
		defer close(jobs)
		seq := 0
		for it := range in {
			select {
			case jobs <- prepared{seq: seq, it: it}:
				seq++
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range d.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				d.prepare(&p)
				select {
				case done <- p:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()

	// Judge in input order: hold pages that arrive early.
	held := make(map[int]prepared)
	next := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick:
			fmt.Fprintln(d.log, d.progress())
		case p, ok := <-done:
			if !ok {
				return nil
			}
			held[p.seq] = p
			for {
				q, ok := held[next]
				if !ok {
					break
				}
				delete(held, next)
				next++
				d.judge(q)
			}
		}
	}
}

// prepare preprocesses a page and computes the detector's features of it,
// which the Document caches: the costly part of judging it, done in
// parallel.
func (d *deduper) prepare(p *prepared) {
	if p.it.Err != nil || p.it.Skip != "" {
		return
	}
	p.doc, p.err = neardup.NewDocumentContent(d.pipe, p.it.ID, p.it.URL, p.it.ContentType, p.it.Body)
	if p.err == nil {
		// Verify extracts (and caches) the features before it looks the
		// candidate up; its answer is asked again in order by judge.
		_, p.err = d.det.Verify(p.doc, []neardup.Match{{ID: p.it.ID}})
	}
}

// judge decides one page, in input order.
func (d *deduper) judge(p prepared) {
	it := p.it
	switch {
	case it.Skip != "":
		d.skip++
		d.say("skipped %s: %s", it.ID, it.Skip)
		return
	case it.Err != nil:
		d.failed++
		fmt.Fprintf(d.log, "error %s: %v\n", it.ID, it.Err)
		return
	}
	d.pages++
	d.bytes += int64(len(it.Body))
	if p.err != nil {
		d.failed++
		fmt.Fprintf(d.log, "error %s: %v\n", it.ID, p.err)
		return
	}
	// A page kept under this id (by an earlier run, or earlier in this
	// input) that has not changed is known; a changed one replaces it.
	if ms, err := d.det.Verify(p.doc, []neardup.Match{{ID: it.ID}}); err == nil && len(ms) == 1 {
		d.known++
		d.say("known %s", it.ID)
		return
	}
	ms, kept, err := d.det.Replace(p.doc)
	switch {
	case err != nil:
		d.failed++
		fmt.Fprintf(d.log, "error %s: %v\n", it.ID, err)
	case kept:
		d.kept++
		d.say("kept %s", it.ID)
	case len(ms) > 0:
		d.dups++
		d.groups.add(ms[0], it.ID)
		d.say("duplicate %s of %s (%.4g %s)", it.ID, ms[0].ID, ms[0].Score, ms[0].Measure)
	}
}

func (d *deduper) say(format string, a ...any) {
	if d.verbose {
		fmt.Fprintf(d.log, format+"\n", a...)
	}
}

func (d *deduper) progress() string {
	s := time.Since(d.start).Seconds()
	return fmt.Sprintf("%d pages (%.0f/s, %.1f MB/s): %d kept, %d known, %d near-duplicates, %d errors, %d skipped",
		d.pages, float64(d.pages)/s, float64(d.bytes)/s/1e6, d.kept, d.known, d.dups, d.failed, d.skip)
}

func (d *deduper) summary() string {
	return fmt.Sprintf("%s; %d groups with near-duplicates, in %.1fs",
		d.progress(), d.groups.count(), time.Since(d.start).Seconds())
}

// groups maps a kept page to its near-duplicates, in the order kept pages
// first got one.
type groups struct {
	order []string
	dups  map[string][]dupEntry
}

type dupEntry struct {
	ID       string  `json:"id"`
	Distance float64 `json:"distance"`
	Measure  string  `json:"measure"`
}

func newGroups() *groups { return &groups{dups: make(map[string][]dupEntry)} }

func (g *groups) add(of neardup.Match, id string) {
	if _, ok := g.dups[of.ID]; !ok {
		g.order = append(g.order, of.ID)
	}
	g.dups[of.ID] = append(g.dups[of.ID], dupEntry{ID: id, Distance: of.Score, Measure: of.Measure.String()})
}

func (g *groups) count() int { return len(g.order) }

func (g *groups) write(w io.Writer, format string) error {
	if format == "csv" {
		cw := csv.NewWriter(w)
		cw.Write([]string{"kept", "duplicate", "distance", "measure"})
		for _, k := range g.order {
			for _, e := range g.dups[k] {
				cw.Write([]string{k, e.ID, strconv.FormatFloat(e.Distance, 'g', 6, 64), e.Measure})
			}
		}
		cw.Flush()
		return cw.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, k := range g.order {
		if err := enc.Encode(struct {
			Kept       string     `json:"kept"`
			Duplicates []dupEntry `json:"duplicates"`
		}{k, g.dups[k]}); err != nil {
			return err
		}
	}
	return nil
}
