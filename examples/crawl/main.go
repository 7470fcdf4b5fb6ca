// Command crawl is a small near-duplicate-aware crawler: a frontier, concurrent
// fetchers over net/http, link extraction, and a detector (the normalized
// multiple k-shingle dissimilarity with its defaults) deciding for each page
// whether to keep it or drop it as a near-duplicate of a page already kept.
//
// By default it serves a small demonstration site on loopback and crawls it:
// five articles on one template, a mirror of each on another template, and
// copies that differ in a timestamp and an advertisement or in a few words.
//
//	go run ./examples/crawl
//	go run ./examples/crawl -url https://example.org/ -max 50
//	go run ./examples/crawl -state crawl.snap   # twice: the second run skips what the first kept
//
// For each URL it prints "kept", "duplicate" with the kept URL and the
// distance with its measure, or, with -state, "known" for a page an earlier
// run kept that has not changed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/shingle"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "crawl:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	flags := flag.NewFlagSet("crawl", flag.ContinueOnError)
	start := flags.String("url", "", "crawl this site (same host only) instead of the built-in demonstration site")
	maxPages := flags.Int("max", 200, "largest number of URLs to fetch")
	workers := flags.Int("workers", 4, "concurrent fetchers")
	maxBytes := flags.Int64("maxbytes", 4<<20, "largest page to read, in bytes")
	timeout := flags.Duration("timeout", 10*time.Second, "per-request timeout")
	state := flags.String("state", "", "keep the detector's state in this file: load it at the start, save it at the end and on interrupt, so that a second run skips the pages the first kept")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *maxPages < 1 || *workers < 1 || *maxBytes < 1 {
		return fmt.Errorf("-max, -workers and -maxbytes must be positive")
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()

	if *start == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: siteHandler(time.Now), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		*start = "http://" + ln.Addr().String() + "/"
		fmt.Fprintf(out, "serving the demonstration site at %s\n", *start)
	}

	det, err := newDetector()
	if err != nil {
		return err
	}
	pipe, err := preprocess.New(preprocess.Options{MaxBytes: int(*maxBytes)})
	if err != nil {
		return err
	}
	// The state records the preprocessing its features came from.
	saved := neardup.WithSettings(det, pipe.Settings())
	if *state != "" {
		switch err := neardup.LoadFile(*state, saved); {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(out, "no state in %s yet: starting empty\n", *state)
		case err != nil:
			return err
		default:
			fmt.Fprintf(out, "loaded the state in %s\n", *state)
		}
	}
	var mu sync.Mutex // fetchers report concurrently
	kept, known, dups := 0, 0, 0
	c := &crawler{
		client:   &http.Client{Timeout: *timeout},
		pipe:     pipe,
		det:      det,
		maxPages: *maxPages,
		maxBytes: *maxBytes,
		workers:  *workers,
		report: func(v verdict) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case v.Kept:
				kept++
			case v.Known:
				known++
			case v.Err == nil:
				dups++
			}
			fmt.Fprintln(out, v)
		},
	}
	runErr := c.run(ctx, *start)
	if *state != "" {
		// Saved on interrupt too: what was kept so far is kept.
		if err := neardup.SaveFile(*state, saved); err != nil {
			return errors.Join(runErr, err)
		}
		fmt.Fprintf(out, "saved the state in %s\n", *state)
	}
	if runErr != nil {
		return runErr
	}
	fmt.Fprintf(out, "%d kept, %d known from the state, %d near-duplicates dropped\n", kept, known, dups)
	return nil
}

// newDetector returns the detector the crawl keeps pages with: the
// normalized multiple k-shingle dissimilarity with its default threshold, the
// most accurate whole-page method of the library on the labelled corpora.
func newDetector() (detector, error) {
	return shingle.New(shingle.Options{})
}
