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
//
// For each URL it prints "kept", or "duplicate" with the kept URL and the
// distance with its measure.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
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
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	start := fs.String("url", "", "crawl this site (same host only) instead of the built-in demonstration site")
	maxPages := fs.Int("max", 200, "largest number of URLs to fetch")
	workers := fs.Int("workers", 4, "concurrent fetchers")
	maxBytes := fs.Int64("maxbytes", 4<<20, "largest page to read, in bytes")
	timeout := fs.Duration("timeout", 10*time.Second, "per-request timeout")
	if err := fs.Parse(args); err != nil {
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
	var mu sync.Mutex // fetchers report concurrently
	kept, dups := 0, 0
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
			if v.Kept {
				kept++
			} else if v.Err == nil {
				dups++
			}
			fmt.Fprintln(out, v)
		},
	}
	if err := c.run(ctx, *start); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d kept, %d near-duplicates dropped\n", kept, dups)
	return nil
}

// newDetector returns the detector the crawl keeps pages with: the
// normalized multiple k-shingle dissimilarity with its default threshold, the
// most accurate whole-page method of the library on the labelled corpora.
func newDetector() (neardup.MatchAdder, error) {
	return shingle.New(shingle.Options{})
}
