package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"math"
	"sync"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// inputs yields the pages of every source in order.
func inputs(srcs []source, o readOptions) iter.Seq[item] {
	return func(yield func(item) bool) {
		for _, s := range srcs {
			if s.Skip != "" {
				if !yield(item{ID: s.ID, Where: s.Path, Skip: s.Skip}) {
					return
				}
				continue
			}
			if !readSource(s, o, yield) {
				return
			}
		}
	}
}

// deduper reads pages with workers goroutines and judges them in input
// order.
type deduper struct {
	det     detector
	pipe    *preprocess.Pipeline
	workers int
	verbose bool
	log     io.Writer
	emit    *emitter
	out     *pageWriter       // nil without -out
	ids     map[string]string // id → where the run first met it

	start                                           time.Time
	pages, kept, known, dups, refused, skip, failed int
	bytes                                           int64
}

// prepared is an item after preprocessing, numbered in input order.
type prepared struct {
	seq int
	it  item
	doc *neardup.Document
	err error
}

func (d *deduper) run(ctx context.Context, in iter.Seq[item], prog *progress) error {
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
				d.prepare(ctx, &p)
				select {
				case done <- p:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()

	tick, stop := prog.ticker()
	defer stop()
	defer prog.finish(d)
	// Judge in input order: hold pages that arrive early.
	held := make(map[int]prepared)
	next := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick:
			prog.show(d)
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
				if err := d.judge(ctx, q); err != nil {
					return err
				}
			}
		}
	}
}

// prepare preprocesses a page and computes the detector's features of it,
// which the Document caches: the costly part of judging it, done in
// parallel.
func (d *deduper) prepare(ctx context.Context, p *prepared) {
	if p.it.Err != nil || p.it.Skip != "" {
		return
	}
	p.doc, p.err = neardup.NewDocument(d.pipe, p.it.ID, p.it.URL, p.it.ContentType, p.it.Body)
	if p.err == nil {
		// Verify extracts (and caches) the features before it looks the
		// candidate up; its answer is asked again in order by judge.
		_, p.err = d.det.Verify(ctx, p.doc, []neardup.Match{{ID: p.it.ID}})
	}
}

// judge decides one page, in input order. Its verdict is final: it is
// written at once and never revised. It returns an error only when an
// output cannot be written.
func (d *deduper) judge(ctx context.Context, p prepared) error {
	it := p.it
	switch {
	case it.Skip != "":
		d.skip++
		d.say("skipped %s: %s", it.ID, it.Skip)
		return nil
	case it.Err != nil && failed(it.Err):
		d.failed++
		fmt.Fprintf(d.log, "error: %s\n", plain(it.Err))
		return nil
	}
	if first, ok := d.ids[it.ID]; ok {
		d.failed++
		fmt.Fprintf(d.log, "error: %v\n", reusedID(it, first))
		return nil
	}
	d.ids[it.ID] = it.Where
	if it.Err == nil {
		it.Err = p.err
	}
	if it.Err != nil {
		d.refused++
		fmt.Fprintf(d.log, "refused %s (%s): %s\n", it.ID, it.Where, plain(it.Err))
		return nil
	}
	d.pages++
	d.bytes += int64(len(it.Body))
	// A page kept under this id by an earlier run that has not changed is
	// known (the known-page idiom); a changed one replaces it.
	if ms, err := d.det.Verify(ctx, p.doc, []neardup.Match{{ID: it.ID}}); err == nil && len(ms) == 1 {
		d.known++
		d.say("known %s", it.ID)
		return d.keep(it, p.doc)
	}
	// Replace keeps the page (in place of an older version kept under its
	// id) unless it nearly duplicates another kept page, in one step. The
	// minhash detector's template model learns only from the pages it keeps,
	// and it remembers the verdict of a page it does not keep, so offering
	// the page again, in this run or the next (-state), gives the same
	// verdict.
	ms, kept, err := d.det.Replace(ctx, p.doc)
	switch {
	case err != nil:
		d.refused++
		fmt.Fprintf(d.log, "refused %s (%s): %s\n", it.ID, it.Where, plain(err))
	case kept:
		d.kept++
		d.say("kept %s", it.ID)
		return d.keep(it, p.doc)
	case len(ms) > 0:
		d.dups++
		m := ms[0]
		d.say("near-duplicate %s of %s (%v %s)", it.ID, m.ID, round(m.Score), m.Measure)
		return d.emit.dup(m.ID, it.ID, m.Score, string(m.Measure))
	}
	return nil
}

// reusedID is the error of a page whose id an earlier page of the run
// (first says where) has: where the page is (its file, the byte its line or
// record starts at, its line) and its id.
func reusedID(it item, first string) error {
	err := fmt.Errorf("%w: %q (first at %s)", errReusedID, it.ID, first)
	if it.Line > 0 {
		err = fmt.Errorf("line %d: %w", it.Line, err)
	}
	if it.Path == "" { // not read from a file (cannot happen: every page is)
		return fmt.Errorf("%s: %w", it.Where, err)
	}
	return &inputError{Path: it.Path, Offset: it.Offset, Uncompressed: it.Gz && it.Offset >= 0, Err: err}
}

// keep writes a kept or known page to the -out file.
func (d *deduper) keep(it item, doc *neardup.Document) error {
	if d.out == nil {
		return nil
	}
	return d.out.write(it, doc)
}

func (d *deduper) say(format string, a ...any) {
	if d.verbose {
		fmt.Fprintf(d.log, format+"\n", a...)
	}
}

func (d *deduper) counts() string {
	s := fmt.Sprintf("%d pages: %d kept, %d known, %d near-duplicates, %d refused, %d skipped",
		d.pages, d.kept, d.known, d.dups, d.refused, d.skip)
	if d.failed > 0 {
		s += fmt.Sprintf(", %d inputs failed", d.failed)
	}
	return s
}

// noPages says why a run of n sources judged no page.
func (d *deduper) noPages(n int) string {
	switch {
	case n == 0:
		return "the input holds no files"
	case d.refused > 0:
		return fmt.Sprintf("every page was refused (%d refused, %d skipped; the lines above say why)", d.refused, d.skip)
	case d.skip > 0:
		return fmt.Sprintf("%d files or records skipped, none a page (-v lists them)", d.skip)
	}
	return "the input is empty"
}

func (d *deduper) summary() string {
	sec := time.Since(d.start).Seconds()
	return fmt.Sprintf("%s; %d groups with near-duplicates, in %.1fs (%.0f pages/s, %.1f MB/s)",
		d.counts(), d.emit.groupCount(), sec, float64(d.pages)/sec, float64(d.bytes)/sec/1e6)
}

// round rounds a distance to 3 decimals, so that 0.20499999999999996 is
// written 0.205.
func round(x float64) float64 { return math.Round(x*1000) / 1000 }
