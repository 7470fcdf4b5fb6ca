package collydedup

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

const article = `<p>Crawlers meet the same article under many addresses: mirrors, print
versions, copies with another advertisement or another date.</p>
<p>A near-duplicate detector keeps one of them and skips the others, with
the links they lead to, which point mostly to more copies.</p>`

// site serves a small site: a page, its mirror in another template (whose
// link must not be followed), a dead link, an empty page and a connection
// closed without a response.
func site(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<main>`+article+`</main><a href="/mirror">m</a> <a href="/gone">g</a> <a href="/empty">e</a> <a href="/reset">r</a>`)
		case "/mirror":
			fmt.Fprint(w, `<div>Sponsored</div><article>`+article+`</article><a href="/trap">more copies</a>`)
		case "/trap":
			fmt.Fprint(w, `<p>Only the mirror links here.</p>`)
		case "/empty":
		case "/reset":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// crawl crawls srv with det and returns the verdicts by URL path.
func crawl(t *testing.T, srv *httptest.Server, det neardup.Replacer, opts ...colly.CollectorOption) map[string]Verdict {
	t.Helper()
	pipe, err := preprocess.New(preprocess.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := colly.NewCollector(opts...)
	var mu sync.Mutex
	got := map[string]Verdict{}
	Attach(t.Context(), c, det, pipe, func(v Verdict) {
		mu.Lock()
		defer mu.Unlock()
		path := strings.TrimPrefix(v.URL, srv.URL)
		if _, dup := got[path]; dup {
			t.Errorf("%s reported twice", path)
		}
		got[path] = v
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		if !Duplicate(e.Response) {
			e.Request.Visit(e.Attr("href"))
		}
	})
	if err := c.Visit(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	return got
}

func TestAttach(t *testing.T) {
	srv := site(t)
	det, err := minhash.New(minhash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := crawl(t, srv, det)
	paths := make([]string, 0, len(got))
	for p := range got {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if want := []string{"/", "/empty", "/gone", "/mirror", "/reset"}; !slices.Equal(paths, want) {
		t.Fatalf("verdicts for %v, want %v (the mirror's link is not followed)", paths, want)
	}
	if v := got["/"]; !v.Kept || v.Status != 200 || v.Err != nil {
		t.Errorf("/: %+v, want kept", v)
	}
	if v := got["/mirror"]; v.Of == nil || v.Of.ID != srv.URL+"/" {
		t.Errorf("/mirror: %+v, want a duplicate of /", v)
	}
	if v := got["/gone"]; !errors.Is(v.Err, ErrFetch) || v.Status != http.StatusNotFound {
		t.Errorf("/gone: %+v, want a failed fetch with status 404", v)
	}
	if v := got["/reset"]; !errors.Is(v.Err, ErrFetch) || v.Status != 0 {
		t.Errorf("/reset: %+v, want a failed fetch without a status", v)
	}
	if v := got["/empty"]; !errors.Is(v.Err, preprocess.ErrEmpty) || errors.Is(v.Err, ErrFetch) {
		t.Errorf("/empty: %+v, want preprocess.ErrEmpty", v)
	}
	for _, p := range paths {
		if s := got[p].String(); !strings.Contains(s, srv.URL+p) {
			t.Errorf("String() = %q lacks the URL", s)
		}
	}

	// A second crawl with the same detector: the kept page is known.
	again := crawl(t, srv, det)
	if v := again["/"]; !v.Known {
		t.Errorf("second crawl, /: %+v, want known", v)
	}
	if v := again["/mirror"]; v.Of == nil {
		t.Errorf("second crawl, /mirror: %+v, want a duplicate", v)
	}
}

// TestErrorStatusParsed: with ParseHTTPErrorResponse an error page reaches
// OnResponse; it is a failed fetch, not content.
func TestErrorStatusParsed(t *testing.T) {
	srv := site(t)
	det, err := minhash.New(minhash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := crawl(t, srv, det, colly.ParseHTTPErrorResponse())
	if v := got["/gone"]; !errors.Is(v.Err, ErrFetch) || v.Status != http.StatusNotFound || v.Kept {
		t.Errorf("/gone: %+v, want a failed fetch with status 404", v)
	}
}
