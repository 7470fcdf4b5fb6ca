// Command evaluate measures near-duplicate detectors on a labeled corpus.
//
// Usage:
//
//	go run ./examples/evaluate -corpus DIR [-methods simhash,cascade] [-tsv]
//
// DIR holds manifest.tsv (header line: id, url, group, file) and the pages it
// names. Pages are streamed in manifest order through each method: a page is
// flagged when the method matches it to a page kept before it, and flagged
// pages are not kept. A page is a true duplicate iff an earlier page in the
// manifest has the same group. The program prints, per method, TP, FP, TN, FN,
// precision, recall, F1, specificity, accuracy and pages per second (end to
// end: preprocessing, feature extraction, matching and adding). With -tsv the
// output is a header line and one tab-separated row per method.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
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
	corpus := fs.String("corpus", "", "corpus directory holding manifest.tsv (required)")
	all := newMethodSet(fs)
	methods := fs.String("methods", "simhash,cascade", "comma-separated methods: "+strings.Join(all.names(), ","))
	tsv := fs.Bool("tsv", false, "print tab-separated values")
	limit := fs.Int("limit", 0, "evaluate only the first N pages of the manifest (0 = all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *corpus == "" {
		fs.Usage()
		return fmt.Errorf("-corpus is required")
	}
	pages, err := readCorpus(*corpus, *limit)
	if err != nil {
		return err
	}
	var rows []result
	for _, name := range strings.Split(*methods, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		m, ok := all.lookup(name)
		if !ok {
			return fmt.Errorf("unknown method %q (have %s)", name, strings.Join(all.names(), ", "))
		}
		r, err := evaluate(m, pages)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if r.errors > 0 {
			fmt.Fprintf(stderr, "evaluate: %s: %d pages could not be decided (first: %v); counted as not flagged and not kept\n", name, r.errors, r.firstErr)
		}
		rows = append(rows, r)
	}
	if *tsv {
		writeTSV(stdout, rows)
	} else {
		writeTable(stdout, rows)
	}
	return nil
}
