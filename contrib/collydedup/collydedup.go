// Package collydedup plugs a neardup detector into a
// github.com/gocolly/colly/v2 collector. Colly skips a URL it has visited;
// a detector also skips a page whose content it has seen under another URL
// (a mirror, a print version, a copy with another advertisement), and the
// links of that page, which lead mostly to more copies.
//
// Attach registers the callbacks: OnResponse judges each page with
// Replacer.Replace (colly runs OnResponse before OnHTML) and stores the
// verdict in the page's context, so that an OnHTML link follower registered
// after Attach can leave a near-duplicate's links alone (Duplicate);
// OnError reports each failed fetch (an unreachable host, a timeout, an HTTP
// error status), so that a crawl cannot lose pages silently.
//
//	det, _ := minhash.New(minhash.Options{}) // or any neardup.Replacer
//	pipe, _ := preprocess.New(preprocess.Options{})                // MaxBytes: preprocess.DefaultMaxBytes
//	c := colly.NewCollector(colly.MaxBodySize(preprocess.DefaultMaxBytes + 1))
//	collydedup.Attach(ctx, c, det, pipe, func(v collydedup.Verdict) { log.Print(v) })
//	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
//		if !collydedup.Duplicate(e.Response) {
//			e.Request.Visit(e.Attr("href"))
//		}
//	})
//
// Colly truncates a body at its MaxBodySize without an error: set it one
// byte above the preprocessing's MaxBytes, so that a page too large to read
// whole is reported (preprocess.ErrTooLarge) rather than judged by its
// beginning.
//
// The package is a module of its own, so that colly's dependencies stay out
// of the library's go.mod. cmd/collycrawl is a small crawler built with it.
package collydedup

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocolly/colly/v2"

	"github.com/neardup/neardup"
)

// ErrFetch is wrapped by the error of a Verdict whose page could not be
// fetched: colly's error (an unreachable host, a timeout, a body cut short)
// or an HTTP status of 300 or more. The error wraps colly's error too.
var ErrFetch = errors.New("collydedup: fetch failed")

// Verdict is what Attach decided about one fetched URL. Exactly one of
// Kept, Of, Known and Err is set.
type Verdict struct {
	URL    string
	Status int            // the HTTP status code; 0 when no response arrived
	Kept   bool           // new content, now kept under URL
	Of     *neardup.Match // a near-duplicate of this kept page
	Known  bool           // kept before under this URL and unchanged
	// Err is why the page was not judged: a failed fetch (errors.Is(Err,
	// ErrFetch)), a body the preprocessing refused (preprocess.ErrEmpty,
	// ErrTooLarge, ...) or the detector's error.
	Err error
}

// String formats v as one line: its kind, padded to a column, the URL and
// what it duplicates or why it failed.
func (v Verdict) String() string {
	switch {
	case v.Err != nil:
		return fmt.Sprintf("error     %s: %v", v.URL, v.Err)
	case v.Kept:
		return "kept      " + v.URL
	case v.Known:
		return "known     " + v.URL
	case v.Of != nil:
		return fmt.Sprintf("duplicate %s of %s (%.3g %s)", v.URL, v.Of.ID, v.Of.Score, v.Of.Measure)
	}
	return "none      " + v.URL
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
// URL replaces it, or is Known when unchanged) and an OnError callback that
// reports every failed fetch. Each verdict goes to report, which may be nil
// and is called from colly's goroutines (it must be safe for concurrent use
// when the collector is asynchronous). a is the preprocessing, which reads
// the response's Content-Type. ctx is the context of every detector call the callbacks
// make (colly's callbacks carry none): the crawl's, for a server backend.
//
// With colly's ParseHTTPErrorResponse set, a response with an HTTP status
// of 300 or more reaches OnResponse: it is reported as a failed fetch, not
// judged, since an error page is not the content of its URL.
func Attach(ctx context.Context, c *colly.Collector, det neardup.Replacer, a neardup.Analyzer, report func(Verdict)) {
	c.OnResponse(func(r *colly.Response) {
		var v Verdict
		if r.StatusCode >= 300 {
			v = Verdict{URL: r.Request.URL.String(), Status: r.StatusCode,
				Err: fmt.Errorf("%w: HTTP status %d", ErrFetch, r.StatusCode)}
		} else {
			v = judge(ctx, det, a, r.Request.URL.String(), r.Headers.Get("Content-Type"), r.Body)
			v.Status = r.StatusCode
		}
		r.Ctx.Put(ctxKey(r.Request), fmt.Sprint(v.Of != nil))
		if report != nil {
			report(v)
		}
	})
	c.OnError(func(r *colly.Response, err error) {
		if r.Ctx.Get(ctxKey(r.Request)) != "" {
			// colly calls OnError after OnResponse when its own HTML or
			// XML parsing fails: the page was fetched and judged
			return
		}
		if report != nil {
			report(Verdict{URL: r.Request.URL.String(), Status: r.StatusCode, Err: fmt.Errorf("%w: %w", ErrFetch, err)})
		}
	})
}

func judge(ctx context.Context, det neardup.Replacer, a neardup.Analyzer, u, contentType string, body []byte) Verdict {
	v := Verdict{URL: u}
	d, err := neardup.NewDocument(a, u, u, contentType, body)
	if err != nil {
		v.Err = err
		return v
	}
	// the known-page idiom: a page kept under its own URL and unchanged
	if vf, ok := det.(neardup.Verifier); ok {
		if ms, err := vf.Verify(ctx, d, []neardup.Match{{ID: u}}); err == nil && len(ms) == 1 {
			v.Known = true
			return v
		}
	}
	ms, kept, err := det.Replace(ctx, d)
	switch {
	case err != nil:
		v.Err = err
	case kept:
		v.Kept = true
	case len(ms) > 0:
		v.Of = &ms[0]
	default:
		v.Err = fmt.Errorf("collydedup: %s neither kept nor matched", u)
	}
	return v
}
