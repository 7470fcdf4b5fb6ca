package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/contrib/collydedup"
)

// article returns paragraphs of made-up prose, the same for the same seed.
func article(seed uint64) string {
	words := strings.Fields(`crawler index page mirror copy template archive server request
		response header body link anchor table figure chapter section manual release version
		install configure option default value query result record field column schema
		document text sentence paragraph word token language encoding charset byte stream
		network host domain path parameter cache proxy timeout retry error status code`)
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for p := 0; p < 6; p++ {
		b.WriteString("<p>")
		for s := 0; s < 5; s++ {
			n := 8 + r.IntN(8)
			for w := 0; w < n; w++ {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteString(". ")
		}
		b.WriteString("</p>\n")
	}
	return b.String()
}

func site(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var visited []string
	page := func(nav, body string) string {
		return "<html><head><title>t</title></head><body><nav>" + nav + "</nav><main>" + body + "</main></body></html>"
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		visited = append(visited, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, page(`<a href="/a">A</a> <a href="/b">B</a>`, "<p>Welcome to the index of the site.</p>"))
		case "/a":
			// Linking to its mirror, which is so fetched after it.
			fmt.Fprint(w, page(`<a href="/">home</a> <a href="/mirror/a">mirror</a>`, article(1)))
		case "/b":
			fmt.Fprint(w, page(`<a href="/">home</a>`, article(2)))
		case "/mirror/a":
			// A in another template, with an advertisement, linking to
			// pages only the mirror has.
			fmt.Fprint(w, "<html><body><div class=side>Sponsored: buy a faster crawler today</div>"+
				`<a href="/mirror/trap">more from the mirror</a><article>`+article(1)+"</article></body></html>")
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), visited...)
	}
}

// TestCollector: the mirror of /a is a near-duplicate, and its link to
// /mirror/trap is not followed; /a and /b are kept.
func TestCollector(t *testing.T) {
	srv, visited := site(t)
	var out bytes.Buffer
	if err := run([]string{srv.URL + "/"}, &out); err != nil {
		t.Fatal(err)
	}
	log := out.String()
	for _, want := range []string{
		"kept      " + srv.URL + "/a\n",
		"kept      " + srv.URL + "/b\n",
		"duplicate " + srv.URL + "/mirror/a of " + srv.URL + "/a",
		"3 kept, 1 near-duplicates skipped with their links, 0 failed",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("output lacks %q:\n%s", want, log)
		}
	}
	for _, p := range visited() {
		if p == "/mirror/trap" {
			t.Errorf("the near-duplicate's link was followed: %v", visited())
		}
	}
}

// TestUnreachable: a start URL that cannot be fetched is an error, after
// its verdict is printed.
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL + "/"
	srv.Close() // nothing listens on its port now
	var out bytes.Buffer
	err := run([]string{u}, &out)
	if !errors.Is(err, collydedup.ErrFetch) {
		t.Fatalf("run %s: %v, want an error wrapping ErrFetch", u, err)
	}
	if want := "error     " + u + ": "; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

func TestBadArgs(t *testing.T) {
	for _, args := range [][]string{{}, {"not a url"}, {"-depth", "x", "http://example.org/"}} {
		if err := run(args, io.Discard); err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}
