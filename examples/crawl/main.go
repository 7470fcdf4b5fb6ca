// Command crawl is a small near-duplicate-aware crawler: a frontier, concurrent
// fetchers over net/http, link extraction, and the library's recommended
// detector deciding for each page whether to keep it or drop it as a
// near-duplicate of a page already kept.
//
// By default it serves a small demonstration site on loopback and crawls it:
// five articles on one template, a mirror of each on another template, and
// copies that differ in a timestamp and an advertisement (distance 0: the
// detector sets templates and ads aside) or in a revision of their text (an
// added sentence and a cut one: a distance above 0, below the threshold).
// The site's URLs name the host demoHost whatever port it listens on, so that
// a page is the same page (the same ID, the same host) in every run.
//
//	go run ./examples/crawl
//	go run ./examples/crawl -url https://example.org/ -max 50
//	go run ./examples/crawl -state crawl.snap   # twice: the second run skips what the first kept
//
// For each URL it prints "kept", "duplicate" with the kept URL and the
// distance with its measure, "error", or, with -state, "known" for a page an
// earlier run kept that has not changed. It exits non-zero when the start URL
// cannot be fetched (then no state is written); other failed fetches are
// printed and counted.
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
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "crawl:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	flags := flag.NewFlagSet("crawl", flag.ContinueOnError)
	start := flags.String("url", "", "crawl this site (same host only) instead of the built-in demonstration site")
	maxPages := flags.Int("max", 200, "largest number of URLs to fetch")
	workers := flags.Int("workers", 4, "concurrent fetchers")
	maxBytes := flags.Int64("maxbytes", preprocess.DefaultMaxBytes, "largest page to read, in bytes")
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

	client := &http.Client{Timeout: *timeout}
	if *start == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: siteHandler(time.Now), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		client.Transport = demoTransport(ln.Addr().String())
		*start = "http://" + demoHost + "/"
		fmt.Fprintf(out, "serving the demonstration site as %s on %s\n", *start, ln.Addr())
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
	kept, known, dups, failed := 0, 0, 0, 0
	var startErr error
	c := &crawler{
		client:   client,
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
			case v.Err != nil:
				failed++
				if v.URL == *start {
					startErr = v.Err
				}
			default:
				dups++
			}
			fmt.Fprintln(out, v)
		},
	}
	runErr := c.run(ctx, *start)
	if startErr != nil {
		// nothing was crawled: the state, if any, is left as it was
		return fmt.Errorf("start URL %s: %w", *start, startErr)
	}
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
	fmt.Fprintf(out, "%d kept, %d known from the state, %d near-duplicates dropped, %d failed\n", kept, known, dups, failed)
	return nil
}

// newDetector returns the detector the crawl keeps pages with: the library's
// recommended detector with its defaults (MinHash sketches of each page and
// of its content, the page less the text blocks its site repeats).
func newDetector() (detector, error) {
	return minhash.New(minhash.Options{})
}

// demoHost is the host name of the demonstration site's URLs: a name under
// the .test domain, reserved for testing (RFC 6761), so that it never
// resolves to a real site.
const demoHost = "crawl-demo.test"

// demoTransport is an HTTP transport that connects to addr for demoHost
// (and refuses any other host), so that the demonstration site keeps one
// host name whatever port it was given.
func demoTransport(addr string) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	var d net.Dialer
	t.DialContext = func(ctx context.Context, network, hostPort string) (net.Conn, error) {
		if host, _, _ := net.SplitHostPort(hostPort); host != demoHost {
			return nil, fmt.Errorf("the demonstration crawl fetches only %s, not %s", demoHost, hostPort)
		}
		return d.DialContext(ctx, network, addr)
	}
	return t
}
