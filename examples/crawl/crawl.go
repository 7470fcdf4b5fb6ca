package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/net/html"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// verdict is what the crawler decided about one URL.
type verdict struct {
	URL   string
	Kept  bool
	Known bool          // kept by an earlier run (-state) and unchanged: skipped
	DupOf string        // the kept URL this page nearly duplicates
	Match neardup.Match // the detector's match for DupOf: distance and measure
	Err   error         // fetch or preprocessing error: the page is neither kept nor a duplicate
}

func (v verdict) String() string {
	switch {
	case v.Err != nil:
		return fmt.Sprintf("error     %s: %v", v.URL, v.Err)
	case v.Kept:
		return fmt.Sprintf("kept      %s", v.URL)
	case v.Known:
		return fmt.Sprintf("known     %s (kept by an earlier run)", v.URL)
	default:
		return fmt.Sprintf("duplicate %s of %s (%.3g %s)", v.URL, v.DupOf, v.Match.Score, v.Match.Measure)
	}
}

// detector is what the crawler needs of a detector: Replace (an atomic "add
// if new" that also takes a page fetched again under a kept URL), Verify (is
// the page still what was kept under its URL?) and snapshots (-state).
type detector interface {
	neardup.Replacer
	neardup.Verifier
	neardup.Persister
}

// crawler fetches pages of one host breadth-first with a fixed number of
// concurrent fetchers, and offers each page to an atomic "add if new"
// detector: a page is kept unless it nearly duplicates one kept before.
type crawler struct {
	client   *http.Client
	pipe     *preprocess.Pipeline
	det      detector
	host     string
	maxPages int
	maxBytes int64
	workers  int
	report   func(verdict)

	mu       sync.Mutex
	cond     *sync.Cond
	queue    []string
	seen     map[string]bool
	inflight int
}

// run crawls from start until the frontier is empty, maxPages URLs have been
// taken, or ctx is done.
func (c *crawler) run(ctx context.Context, start string) error {
	u, err := url.Parse(start)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("start URL %q: want an absolute http(s) URL", start)
	}
	c.host = u.Host
	c.seen = map[string]bool{}
	c.cond = sync.NewCond(&c.mu)
	c.enqueue(u.String())
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.queue = nil
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	var wg sync.WaitGroup
	for range c.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next, ok := c.next()
				if !ok {
					return
				}
				links, v := c.visit(ctx, next)
				c.report(v)
				c.done(links)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// enqueue adds u to the frontier unless it was seen or the page limit is reached.
func (c *crawler) enqueue(u string) {
	if c.seen[u] || len(c.seen) >= c.maxPages {
		return
	}
	c.seen[u] = true
	c.queue = append(c.queue, u)
}

// next takes the next URL, waiting while other fetchers may still add links.
func (c *crawler) next() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.queue) == 0 && c.inflight > 0 {
		c.cond.Wait()
	}
	if len(c.queue) == 0 {
		return "", false
	}
	u := c.queue[0]
	c.queue = c.queue[1:]
	c.inflight++
	return u, true
}

// done adds the links found on a visited page and wakes waiting fetchers.
func (c *crawler) done(links []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range links {
		c.enqueue(l)
	}
	c.inflight--
	c.cond.Broadcast()
}

// visit fetches u, extracts its same-host links and decides keep or drop.
func (c *crawler) visit(ctx context.Context, u string) ([]string, verdict) {
	v := verdict{URL: u}
	body, contentType, err := c.fetch(ctx, u)
	if err != nil {
		v.Err = err
		return nil, v
	}
	links := c.links(u, body)
	d, err := neardup.NewDocument(c.pipe, u, u, contentType, body)
	if err != nil {
		v.Err = err
		return links, v
	}
	// A page kept under this URL before (an earlier run's state) that has
	// not changed is skipped; a changed one replaces it.
	if ms, err := c.det.Verify(ctx, d, []neardup.Match{{ID: u}}); err == nil && len(ms) == 1 {
		v.Known = true
		return links, v
	}
	ms, kept, err := c.det.Replace(ctx, d)
	switch {
	case err != nil:
		v.Err = err
	case kept:
		v.Kept = true
	case len(ms) > 0:
		v.DupOf, v.Match = ms[0].ID, ms[0]
	}
	return links, v
}

var errNotHTML = errors.New("not an HTML or text page")

func (c *crawler) fetch(ctx context.Context, u string) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("User-Agent", "neardup-example-crawler/1")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, "", fmt.Errorf("HTTP %s", resp.Status)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && mt != "text/html" && mt != "text/plain" && mt != "application/xhtml+xml" {
		return nil, "", fmt.Errorf("%w: %s", errNotHTML, mt)
	}
	// Read one byte past the limit so the preprocessor reports the page as too large.
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	return body, resp.Header.Get("Content-Type"), err
}

// links returns the absolute same-host http(s) links of an HTML page, without fragments.
func (c *crawler) links(base string, body []byte) []string {
	b, err := url.Parse(base)
	if err != nil {
		return nil
	}
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if string(name) != "a" {
			continue
		}
		for hasAttr {
			var k, val []byte
			k, val, hasAttr = z.TagAttr()
			if string(k) != "href" {
				continue
			}
			ref, err := url.Parse(strings.TrimSpace(string(val)))
			if err != nil {
				continue
			}
			abs := b.ResolveReference(ref)
			abs.Fragment = ""
			if abs.Host == c.host && (abs.Scheme == "http" || abs.Scheme == "https") {
				out = append(out, abs.String())
			}
		}
	}
}
