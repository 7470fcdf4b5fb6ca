// Command dedup finds the near-duplicate pages in a folder of HTML or text
// files, a JSONL file or WARC files, and writes the groups it finds.
//
//	go run ./examples/dedup ./pages                       # a folder (.html, .htm, .xhtml, .txt, each maybe .gz)
//	go run ./examples/dedup crawl.warc.gz                 # response and resource records
//	go run ./examples/dedup -format csv pages.jsonl > groups.csv
//	go run ./examples/dedup -state seen.snap ./today      # twice: pages kept yesterday are "known"
//	go run ./examples/dedup -manifest corpus/manifest.tsv corpus/pages
//
// Pages are judged in input order (a folder in lexical order): the first page
// of a group is kept, each later page that nearly duplicates a kept page is a
// near-duplicate of it. Pages are read and preprocessed by -workers
// goroutines; the detector (neardup.Recommended by default) judges them one
// at a time in input order, so a run's output depends only on its input.
//
// A JSONL line is an object with "html", "text" or "content" (with
// "content_type"), and optionally "id" and "url"; the id falls back to the
// url, then to FILE:LINE. A WARC record's id is its WARC-Target-URI. The
// host of a page's URL scopes the template model of neardup.Recommended, so
// pages in a folder get URLs from -manifest (a TSV file with "file" and
// "url" columns) when there is one.
//
// Groups go to standard output, one JSON object per line
// ({"kept":ID,"duplicates":[{"id":ID,"distance":D,"measure":M},...]}) or,
// with -format csv, one "kept,duplicate,distance,measure" row per
// near-duplicate; only groups with at least one near-duplicate are written.
// Progress and a summary go to standard error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/editdist"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/ssm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "dedup:", err)
		os.Exit(1)
	}
}

// config is what the flags set.
type config struct {
	Method   string
	Format   string
	State    string
	Manifest string
	Workers  int
	MaxBytes int64
	Progress time.Duration
	Verbose  bool
	Paths    []string
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fl := flag.NewFlagSet("dedup", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: dedup [flags] PATH...  (folders, .jsonl and .warc files, each maybe .gz)")
		fl.PrintDefaults()
	}
	fl.StringVar(&c.Method, "method", "recommended", "detector: recommended (neardup.Recommended), shingle (normalized multiple k-shingles), simhash (64-bit SimHash, T_B = 8), ssm (top-10 keyword similarity score), editdist (Chinese: the character before each 。) or editdist-latin (the word before each . ! ?)")
	fl.StringVar(&c.Format, "format", "jsonl", "groups on standard output as jsonl or csv")
	fl.StringVar(&c.State, "state", "", "keep the detector's state in this file: loaded at the start, saved at the end (and on interrupt); a page kept under the same id by an earlier run and unchanged is \"known\"")
	fl.StringVar(&c.Manifest, "manifest", "", "TSV file with \"file\" and \"url\" columns giving the URL of each file of a folder")
	fl.IntVar(&c.Workers, "workers", runtime.GOMAXPROCS(0), "goroutines reading and preprocessing pages")
	fl.Int64Var(&c.MaxBytes, "maxbytes", preprocess.DefaultMaxBytes, "largest page, in bytes (larger pages are errors)")
	fl.DurationVar(&c.Progress, "progress", 2*time.Second, "interval between progress lines on standard error (0: none)")
	fl.BoolVar(&c.Verbose, "v", false, "print every page's verdict on standard error")
	if err := fl.Parse(args); err != nil {
		return c, err
	}
	c.Paths = fl.Args()
	switch {
	case len(c.Paths) == 0:
		fl.Usage()
		return c, errors.New("no input: give folders, .jsonl or .warc files")
	case c.Workers < 1:
		return c, errors.New("-workers must be at least 1")
	case c.MaxBytes < 1 || c.MaxBytes > 1<<30:
		return c, errors.New("-maxbytes must be in [1, 1<<30]")
	case c.Progress < 0:
		return c, errors.New("-progress must not be negative")
	case c.Format != "jsonl" && c.Format != "csv":
		return c, fmt.Errorf("-format %q: want jsonl or csv", c.Format)
	}
	return c, nil
}

// detector is what dedup needs of a detector.
type detector interface {
	neardup.Replacer
	neardup.Verifier
	neardup.Persister
}

func newDetector(method string) (detector, error) {
	switch method {
	case "recommended":
		return neardup.NewRecommended(neardup.RecommendedOptions{})
	case "shingle":
		return shingle.New(shingle.Options{})
	case "simhash":
		return simhash.New(simhash.Options{})
	case "ssm":
		return ssm.New(ssm.Options{})
	case "editdist":
		return editdist.New(editdist.Options{})
	case "editdist-latin":
		return editdist.New(editdist.Options{Extractor: editdist.Latin()})
	}
	return nil, fmt.Errorf("-method %q: want recommended, shingle, simhash, ssm, editdist or editdist-latin", method)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	det, err := newDetector(c.Method)
	if err != nil {
		return err
	}
	pipe, err := preprocess.New(preprocess.Options{MaxBytes: int(min(c.MaxBytes, 1<<30))})
	if err != nil {
		return err
	}
	// The state records the preprocessing its features came from.
	saved := neardup.WithSettings(det, pipe.Settings())
	if c.State != "" {
		switch err := neardup.LoadFile(c.State, saved); {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(stderr, "no state in %s yet: starting empty\n", c.State)
		case err != nil:
			return err
		default:
			fmt.Fprintf(stderr, "loaded the state in %s\n", c.State)
		}
	}
	ro := readOptions{MaxBytes: c.MaxBytes}
	if c.Manifest != "" {
		if ro.URLs, err = readManifest(c.Manifest); err != nil {
			return err
		}
	}
	d := &deduper{det: det, pipe: pipe, workers: c.Workers, verbose: c.Verbose, log: stderr, groups: newGroups()}
	var tick <-chan time.Time
	if c.Progress > 0 {
		t := time.NewTicker(c.Progress)
		defer t.Stop()
		tick = t.C
	}
	runErr := d.run(ctx, inputs(c.Paths, ro), tick)
	if c.State != "" {
		// Saved on interrupt too: what was kept so far stays kept.
		if err := neardup.SaveFile(c.State, saved); err != nil {
			return errors.Join(runErr, err)
		}
		fmt.Fprintf(stderr, "saved the state in %s\n", c.State)
	}
	if err := d.groups.write(stdout, c.Format); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintln(stderr, d.summary())
	return runErr
}
