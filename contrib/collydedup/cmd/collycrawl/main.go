// Command collycrawl crawls one site with github.com/gocolly/colly/v2 and a
// near-duplicate detector (package collydedup): it prints a verdict per page
// (kept, duplicate of a kept page, error) and does not follow the links of
// a near-duplicate, which lead mostly to more copies.
//
//	go run ./contrib/collydedup/cmd/collycrawl https://example.org/   # from the repository's root
//
// It exits non-zero when the start URL cannot be fetched; other failed
// fetches are printed and counted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/neardup/neardup/contrib/collydedup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "collycrawl:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fl := flag.NewFlagSet("collycrawl", flag.ContinueOnError)
	fl.SetOutput(out)
	maxDepth := fl.Int("depth", 3, "largest link depth to follow")
	maxBytes := fl.Int("maxbytes", preprocess.DefaultMaxBytes, "largest page to read, in bytes")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return fmt.Errorf("usage: collycrawl [-depth N] [-maxbytes N] URL")
	}
	start, err := url.Parse(fl.Arg(0))
	if err != nil || start.Host == "" {
		return fmt.Errorf("start URL %q: want an absolute URL", fl.Arg(0))
	}
	det, err := minhash.New(minhash.Options{})
	if err != nil {
		return err
	}
	pipe, err := preprocess.New(preprocess.Options{MaxBytes: *maxBytes})
	if err != nil {
		return err
	}
	c := colly.NewCollector(
		colly.AllowedDomains(start.Hostname()),
		colly.MaxDepth(*maxDepth),
		colly.MaxBodySize(*maxBytes+1), // a larger page fails with preprocess.ErrTooLarge
		colly.Async(true),
	)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
		return err
	}
	var mu sync.Mutex
	kept, dups, failed := 0, 0, 0
	var startErr error
	collydedup.Attach(context.Background(), c, det, pipe, func(v collydedup.Verdict) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case v.Kept:
			kept++
		case v.Of != nil:
			dups++
		case v.Err != nil:
			failed++
			if v.URL == start.String() {
				startErr = v.Err
			}
		}
		fmt.Fprintln(out, v)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		if collydedup.Duplicate(e.Response) {
			return // a near-duplicate's links lead mostly to more copies
		}
		e.Request.Visit(e.Attr("href"))
	})
	if err := c.Visit(start.String()); err != nil {
		return err
	}
	c.Wait()
	fmt.Fprintf(out, "%d kept, %d near-duplicates skipped with their links, %d failed\n", kept, dups, failed)
	if startErr != nil {
		return fmt.Errorf("start URL: %w", startErr)
	}
	return nil
}
