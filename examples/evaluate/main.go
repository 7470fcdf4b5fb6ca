// Command evaluate measures near-duplicate detectors on a labeled corpus.
//
// Usage:
//
//	go run ./examples/evaluate -corpus DIR [-methods minhash,simhash,cascade,shingle] [-tsv]
//	go run ./examples/evaluate -corpus DIR -sweep METHOD
//	go run -tags plot ./examples/evaluate -corpus DIR -sweep METHOD -plot FILE.svg
//	go run ./examples/evaluate -corpus DIR,DIR,... -sweep METHOD -holdout
//	go run ./examples/evaluate -corpus DIR -methods ... -trials N
//	go run -tags plot ./examples/evaluate -corpus DIR -methods ... -trials N -plot FILE.png
//	go run -tags redis ./examples/evaluate -corpus DIR -methods minhash,minhash-redis,minhash-redis-spread -redis ADDR
//	go run -tags redis ./examples/evaluate -corpus DIR -methods simhash,simhash-redis,simhash-redis-spread -redis ADDR
//	go run ./examples/evaluate -synthetic N [-seed S] [-methods ...]
//	go run ./examples/evaluate -corpus DIR -claims | -partitions
//	go run ./examples/evaluate -corpus DIR -digests > FILE
//
// DIR holds manifest.tsv (header line: id, url, group, file) and the pages it
// names (a file ending in .gz is gunzipped). Pages are streamed in manifest
// order through each method: a page is flagged when the method matches it to
// a page kept before it, and flagged pages are not kept. A page is a true
// duplicate iff an earlier page in the manifest has the same group; a flagged
// duplicate whose match is a page of another group is a wrong match (it
// counts against precision and recall). The program prints, per method, TP,
// FP, TN, FN, precision, recall, F1, specificity, accuracy, pages per second
// (end to end: preprocessing, feature extraction, matching and adding) and
// the wrong matches. With -tsv the output is a header line and one
// tab-separated row per method.
//
// -sweep METHOD evaluates the method at each value of its main threshold;
// with -holdout and several corpora, it chooses the threshold by leaving one
// corpus out: for each corpus, the value of best mean F1 on the others and
// the F1 it gives on the one left out;
// -trials N evaluates the methods on the first 1/N, 2/N, ... of the manifest
// (as Khan et al.'s Table 5 varies the dataset size). Every flag's default
// is the package's own default.
//
// -claims and -partitions measure a paper's claim with several detectors
// and print one table: -claims the accuracy of the clustered cascade
// (package cluster) at p = 1, 2, 3 against the cascade alone; -partitions
// ssm's domain × size partitions against its keyword index alone.
//
// -digests runs no detector: it prints, for each page, a SHA-256 of what the
// preprocessing pipeline makes of it and the page's id, so that two versions
// of the pipeline can be compared on a whole corpus with diff.
//
// Two build tags add what a table does not need, so that a plain go run
// compiles neither: plot builds -plot (gonum.org/v1/plot), redis builds the
// minhash-redis, minhash-redis-spread, simhash-redis and
// simhash-redis-spread methods (packages minhash/redisindex and
// simhash/redisindex, and github.com/redis/go-redis). Without its tag,
// -plot or any of these methods fails at once, saying which tag to add.
//
// A Redis method offers the pages through several clients at once, each
// taking the pages of its hosts in corpus order, as a crawler fleet's
// fetchers would: which page of a group is kept first can differ from the
// corpus order, and from run to run, so its counts can differ from the
// in-process method's by the few pages whose verdict depends on it.
//
// -synthetic N evaluates on the first N pages of a generated crawl
// (internal/synth at its defaults and -seed: long-tail hosts with heavy
// templates, 15 % near-duplicates) instead of -corpus; the pages are
// generated as they are streamed, again for each method, and never held
// in memory. -synthtext bigram writes the crawl's text with the sample
// corpora's bigram model (synth.Bigram, 20,000 hosts), so that 4-token
// phrases recur across unrelated pages.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "evaluate:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evaluate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpus := fs.String("corpus", "", "corpus directory holding manifest.tsv (this or -synthetic)")
	synthetic := fs.Int("synthetic", 0, "evaluate on the first N pages of a generated crawl instead of -corpus")
	seed := fs.Int64("seed", 1, "with -synthetic: the generated crawl's seed")
	synthText := fs.String("synthtext", "words", "with -synthetic: the crawl's text, words (the default crawl) or bigram (a bigram model's walk: phrases recur across pages)")
	all := newMethodSet(fs)
	exps := newExperiments(fs)
	methods := fs.String("methods", "simhash,cascade", "comma-separated methods: "+strings.Join(all.names(), ","))
	tsv := fs.Bool("tsv", false, "print tab-separated values")
	limit := fs.Int("limit", 0, "evaluate only the first N pages of the manifest (0 = all)")
	sweepName := fs.String("sweep", "", "sweep this method's main threshold: precision, recall and F1 at each value")
	trials := fs.Int("trials", 0, "evaluate each method on the first 1/N, 2/N, ... N/N of the manifest (the trials of Khan et al.'s Table 5)")
	errorsOut := fs.Bool("errors", false, "list each false positive, false negative and wrong match (page, matched or kept pages, distances) on standard error")
	holdout := fs.Bool("holdout", false, "with -sweep: -corpus is a comma-separated list of corpora; choose the threshold on all but one, for each, and print its F1 on the one left out")
	plotFile := fs.String("plot", "", "with -sweep or -trials: also draw F1 (and precision and recall for -sweep) into this .svg or .png file (built with -tags plot)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *holdout {
		m, ok := all.lookup(*sweepName)
		if !ok || *synthetic != 0 || *corpus == "" {
			return errors.New("-holdout needs -sweep METHOD and -corpus DIR[,DIR]")
		}
		return runHoldout(m, strings.Split(*corpus, ","), *limit, stdout)
	}
	if (*corpus == "") == (*synthetic == 0) {
		fs.Usage()
		return fmt.Errorf("one of -corpus and -synthetic is required")
	}
	if *plotFile != "" && *sweepName == "" && *trials == 0 {
		return fmt.Errorf("-plot needs -sweep or -trials")
	}
	if *plotFile != "" && !canPlot {
		return errors.New(plotHint)
	}
	var pages source
	if *synthetic != 0 {
		p, err := syntheticSource(*synthetic, *seed, *synthText)
		if err != nil {
			return fmt.Errorf("-synthetic %d: %w", *synthetic, err)
		}
		pages = p
	} else {
		p, err := readCorpus(*corpus, *limit)
		if err != nil {
			return err
		}
		pages = pagesSource(filepath.Base(*corpus), p)
	}
	report := func(rows []result) {
		if *tsv {
			writeTSV(stdout, rows)
		} else {
			writeTable(stdout, rows)
		}
	}
	if exp := exps.chosen(all, fs); exp != nil {
		return exp(pages, stdout)
	}
	if *sweepName != "" {
		m, ok := all.lookup(*sweepName)
		if !ok || m.sweep == nil {
			return fmt.Errorf("-sweep %q: want one of %s", *sweepName, strings.Join(all.names(), ", "))
		}
		rows, err := runSweep(m, pages)
		if err != nil {
			return err
		}
		report(rows)
		if *plotFile != "" {
			return plotSweep(*plotFile, m, pages.name, rows)
		}
		return nil
	}
	var ms []method
	for _, name := range strings.Split(*methods, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		m, ok := all.lookup(name)
		if !ok {
			return fmt.Errorf("unknown method %q (have %s)", name, strings.Join(all.names(), ", "))
		}
		ms = append(ms, m)
	}
	if *trials > 0 {
		rows, err := runTrials(ms, pages, *trials)
		if err != nil {
			return err
		}
		report(rows)
		if *plotFile != "" {
			return plotTrials(*plotFile, ms, pages.name, rows)
		}
		return nil
	}
	var rows []result
	for _, m := range ms {
		r, err := evaluate(m, pages, *errorsOut)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		if r.errors > 0 {
			fmt.Fprintf(stderr, "evaluate: %s: %d pages could not be decided (first: %v); counted as not flagged and not kept\n", m.name, r.errors, r.firstErr)
		}
		if *errorsOut {
			for _, e := range r.errs {
				fmt.Fprintf(stderr, "%s\t%s\n", m.name, e)
			}
		}
		rows = append(rows, r)
	}
	report(rows)
	return nil
}

// runSweep evaluates m at each value of its main threshold; each row's
// method is "name param=value".
func runSweep(m method, pages source) ([]result, error) {
	var rows []result
	for _, v := range m.sweep.values() {
		det, err := m.sweep.at(v)
		if err != nil {
			return nil, fmt.Errorf("%s at %s = %g: %w", m.name, m.sweep.param, v, err)
		}
		r := stream(fmt.Sprintf("%s %s=%g", m.name, strings.ReplaceAll(m.sweep.param, " ", "_"), v), det, pages, false)
		r.value = v
		rows = append(rows, r)
	}
	return rows, nil
}

// runTrials evaluates every method on growing prefixes of the manifest, as
// Khan et al.'s Table 5 does with growing subsets; each row's method is
// "name trial=i/n size=S dd=D" (S pages, D of them duplicates).
func runTrials(ms []method, pages source, n int) ([]result, error) {
	var rows []result
	for _, m := range ms {
		for i := 1; i <= n; i++ {
			sub := pages.prefix(pages.n * i / n)
			det, err := m.build(sub)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.name, err)
			}
			r := stream(m.name, det, sub, false)
			r.method = fmt.Sprintf("%s trial=%d/%d size=%d dd=%d", m.name, i, n, sub.n, r.tp+r.fn+r.wrong)
			r.value = float64(sub.n)
			rows = append(rows, r)
		}
	}
	return rows, nil
}

func plotSweep(file string, m method, corpus string, rows []result) error {
	var x, p, r, f []float64
	for _, row := range rows {
		x = append(x, row.value)
		p = append(p, row.precision())
		r = append(r, row.recall())
		f = append(f, row.f1())
	}
	return savePlot(file, fmt.Sprintf("%s on %s", m.name, corpus), m.sweep.param, "",
		[]series{{"precision", x, p}, {"recall", x, r}, {"F1", x, f}})
}

func plotTrials(file string, ms []method, corpus string, rows []result) error {
	var ss []series
	for _, m := range ms {
		s := series{name: m.name}
		for _, row := range rows {
			if strings.HasPrefix(row.method, m.name+" ") {
				s.x = append(s.x, row.value)
				s.y = append(s.y, row.f1())
			}
		}
		ss = append(ss, s)
	}
	return savePlot(file, "F1 on growing prefixes of "+corpus, "pages", "F1", ss)
}
