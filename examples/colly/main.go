// Command colly plugs a near-duplicate detector into a
// github.com/gocolly/colly/v2 collector. Colly skips a URL it has visited;
// neardup also skips a page whose content it has seen under another URL (a
// mirror, a print version, a copy with another advertisement), and the
// links of that page, which lead mostly to more copies.
//
//	cd examples/colly && go run . https://example.org/
//
// Attach does the work: an OnResponse callback judges each page with
// Replacer.Replace (colly runs OnResponse before OnHTML), and the page's
// context carries the verdict, so that an OnHTML link follower registered
// after Attach can leave a near-duplicate's links alone.
//
// This example is its own module, so that colly's dependencies stay out of
// neardup's go.mod.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"

	"github.com/gocolly/colly/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "colly:", err)
		os.Exit(1)
	}
}

// Verdict is what Attach decided about one page.
type Verdict struct {
	URL   string
	Kept  bool           // kept: new content
	Of    *neardup.Match // a near-duplicate of this kept page
	Known bool           // kept before under this URL and unchanged
	Err   error          // not judged (not a page, empty, invalid, ...)
}

func (v Verdict) String() string {
	switch {
	case v.Err != nil:
		return fmt.Sprintf("error     %s: %v", v.URL, v.Err)
	case v.Kept:
		return "kept      " + v.URL
	case v.Known:
		return "known     " + v.URL
	}
	return fmt.Sprintf("duplicate %s of %s (%.3g %s)", v.URL, v.Of.ID, v.Of.Score, v.Of.Measure)
}

// ctxKey is the key of a page's verdict in its response's colly.Context.
// Requests made with Request.Visit share their parent's Context, so the key
// names the page's URL.
func ctxKey(r *colly.Request) string { return "neardup.duplicate " + r.URL.String() }

// Duplicate reports whether Attach judged the response's page a
// near-duplicate of a kept page. A page it could not judge is not one.
func Duplicate(r *colly.Response) bool { return r.Ctx.Get(ctxKey(r.Request)) == "true" }

// Attach registers an OnResponse callback on c that judges every response
// with det (the page's URL is its id, so a page fetched again under a kept
// URL replaces it) and reports each verdict to report, which may be nil and
// is called from colly's goroutines.
func Attach(c *colly.Collector, det neardup.Replacer, a neardup.ContentAnalyzer, report func(Verdict)) {
	c.OnResponse(func(r *colly.Response) {
		v := judge(det, a, r.Request.URL.String(), r.Headers.Get("Content-Type"), r.Body)
		r.Ctx.Put(ctxKey(r.Request), fmt.Sprint(v.Of != nil))
		if report != nil {
			report(v)
		}
	})
}

func judge(det neardup.Replacer, a neardup.ContentAnalyzer, u, contentType string, body []byte) Verdict {
	v := Verdict{URL: u}
	d, err := neardup.NewDocumentContent(a, u, u, contentType, body)
	if err != nil {
		v.Err = err
		return v
	}
	if vf, ok := det.(neardup.Verifier); ok {
		if ms, err := vf.Verify(d, []neardup.Match{{ID: u}}); err == nil && len(ms) == 1 {
			v.Known = true
			return v
		}
	}
	ms, kept, err := det.Replace(d)
	switch {
	case err != nil:
		v.Err = err
	case kept:
		v.Kept = true
	case len(ms) > 0:
		v.Of = &ms[0]
	}
	return v
}

func run(args []string, out io.Writer) error {
	fl := flag.NewFlagSet("colly", flag.ContinueOnError)
	fl.SetOutput(out)
	maxDepth := fl.Int("depth", 3, "largest link depth to follow")
	maxBytes := fl.Int("maxbytes", 4<<20, "largest page to read, in bytes")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return fmt.Errorf("usage: colly [-depth N] [-maxbytes N] URL")
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
		colly.MaxBodySize(*maxBytes),
		colly.Async(true),
	)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
		return err
	}
	var mu sync.Mutex
	kept, dups := 0, 0
	Attach(c, det, pipe, func(v Verdict) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case v.Kept:
			kept++
		case v.Of != nil:
			dups++
		}
		fmt.Fprintln(out, v)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		if Duplicate(e.Response) {
			return // a near-duplicate's links lead mostly to more copies
		}
		e.Request.Visit(e.Attr("href"))
	})
	if err := c.Visit(start.String()); err != nil {
		return err
	}
	c.Wait()
	fmt.Fprintf(out, "%d kept, %d near-duplicates skipped with their links\n", kept, dups)
	return nil
}
