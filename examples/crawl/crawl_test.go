package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// The crawl of the demonstration site keeps the originals and drops every
// mirror, re-fetch and revision as a near-duplicate of its own original.
// The copies carry timestamps, so the crawl is checked on several dates.
func TestCrawlDemonstrationSite(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC),
		time.Date(2027, 2, 28, 23, 59, 59, 0, time.UTC),
		time.Date(2031, 7, 4, 12, 30, 15, 0, time.UTC),
		time.Date(2040, 12, 31, 0, 0, 1, 0, time.UTC),
	} {
		t.Run(at.Format("2006-01-02T15:04"), func(t *testing.T) { crawlSite(t, at) })
	}
}

func crawlSite(t *testing.T, at time.Time) {
	srv := httptest.NewServer(siteHandler(func() time.Time { return at }))
	defer srv.Close()
	det, err := newDetector()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]verdict{}
	c := &crawler{
		client: srv.Client(), pipe: new(preprocess.Pipeline), det: det,
		maxPages: 100, maxBytes: 1 << 20, workers: 4,
		report: func(v verdict) { mu.Lock(); got[strings.TrimPrefix(v.URL, srv.URL)] = v; mu.Unlock() },
	}
	if err := c.run(context.Background(), srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if want := 2 + 4*len(articles); len(got) != want {
		t.Errorf("crawled %d URLs, want %d", len(got), want)
	}
	for _, path := range []string{"/", "/about"} {
		if v := got[path]; !v.Kept {
			t.Errorf("%s: %v, want kept", path, v)
		}
	}
	for _, a := range articles {
		orig := "/articles/" + a.slug
		var copies []string
		for _, prefix := range []string{"/articles/", "/mirror/", "/print/", "/edited/"} {
			v, ok := got[prefix+a.slug]
			if !ok {
				t.Errorf("%s%s was not crawled", prefix, a.slug)
				continue
			}
			if v.Err != nil {
				t.Errorf("%s%s: %v", prefix, a.slug, v.Err)
			}
			if v.Kept {
				copies = append(copies, prefix)
			} else if !strings.HasSuffix(v.DupOf, "/"+a.slug) {
				t.Errorf("%s%s flagged as a duplicate of %s, another article", prefix, a.slug, v.DupOf)
			}
		}
		// One page of each article is kept, whichever was fetched first.
		if len(copies) != 1 {
			t.Errorf("%s: kept %v, want one of the four copies", orig, copies)
		}
		// The revision is at a distance from the other copies, which have
		// the same text: its verdict, or theirs when it was kept, shows it.
		// Catches a revision that edits only stop words (distance 0).
		edited := "/edited/" + a.slug
		for _, prefix := range []string{"/articles/", "/mirror/", "/print/", "/edited/"} {
			v := got[prefix+a.slug]
			if v.Kept || v.Err != nil {
				continue
			}
			revised := prefix+a.slug == edited || strings.HasSuffix(v.DupOf, edited)
			if s := v.Match.Score; revised && (s <= 0.05 || s >= 0.5) || !revised && s != 0 {
				t.Errorf("%s%s: distance %v to %s, want above 0.05 and below 0.5 between a revision and its original, else 0", prefix, a.slug, s, v.DupOf)
			}
		}
	}
}

// summary parses run's last line.
func summary(t *testing.T, out string) (kept, known, dups, failed int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if _, err := fmt.Sscanf(last, "%d kept, %d known from the state, %d near-duplicates dropped, %d failed", &kept, &known, &dups, &failed); err != nil {
		t.Fatalf("summary line %q: %v\n%s", last, err, out)
	}
	return kept, known, dups, failed
}

func TestRunFlags(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-max", "0"}, &out); err == nil {
		t.Error("-max 0 accepted")
	}
	if err := run([]string{"-url", "ftp://example.org/"}, &out); err == nil {
		t.Error("ftp URL accepted")
	}
}

// The built-in site is served on loopback and crawled end to end by run,
// twice with a state file: the second run, on another port, knows every page
// the first kept (the site's URLs name one host whatever the port).
func TestRunDefaultSite(t *testing.T) {
	state := filepath.Join(t.TempDir(), "crawl.snap")
	var out bytes.Buffer
	if err := run([]string{"-state", state}, &out); err != nil {
		t.Fatal(err)
	}
	kept, known, dups, failed := summary(t, out.String())
	if kept < 7 || kept > 7+len(articles) || known != 0 || failed != 0 || kept+dups != 2+4*len(articles) {
		t.Errorf("first run: %d kept, %d known, %d duplicates, %d failed:\n%s", kept, known, dups, failed, out.String())
	}
	first := out.String()
	out.Reset()
	if err := run([]string{"-state", state}, &out); err != nil {
		t.Fatal(err)
	}
	kept2, known2, dups2, failed2 := summary(t, out.String())
	if kept2 != 0 || known2 != kept || failed2 != 0 || known2+dups2 != 2+4*len(articles) {
		t.Errorf("second run: %d kept, %d known, %d duplicates, %d failed; want the %d pages the first kept known:\n%s\nfirst run:\n%s",
			kept2, known2, dups2, failed2, kept, out.String(), first)
	}
	if !strings.Contains(out.String(), "known     http://"+demoHost+"/articles/") {
		t.Errorf("second run names no known article page:\n%s", out.String())
	}
}

// A start URL that cannot be fetched is an error, and no state is written.
func TestRunUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL + "/"
	srv.Close() // nothing listens on its port now
	state := filepath.Join(t.TempDir(), "crawl.snap")
	var out bytes.Buffer
	err := run([]string{"-url", u, "-state", state, "-timeout", "5s"}, &out)
	if err == nil || !strings.Contains(err.Error(), "start URL") {
		t.Errorf("unreachable start URL: err = %v, want an error naming the start URL\n%s", err, out.String())
	}
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("state written after a failed start: %v", err)
	}
	// an HTTP error status for the start URL too
	srv = httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	if err := run([]string{"-url", srv.URL + "/"}, &out); err == nil {
		t.Error("start URL answering 404: no error")
	}
}

// With a state file, a second crawl of the same site skips every page the
// first kept, and a damaged state file is an error.
func TestCrawlState(t *testing.T) {
	srv := httptest.NewServer(siteHandler(func() time.Time { return time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC) }))
	defer srv.Close()
	state := filepath.Join(t.TempDir(), "crawl.snap")
	var out bytes.Buffer
	if err := run([]string{"-url", srv.URL + "/", "-state", state}, &out); err != nil {
		t.Fatal(err)
	}
	kept, _, _, _ := summary(t, out.String())
	if !strings.Contains(out.String(), "no state in") {
		t.Errorf("first run:\n%s", out.String())
	}
	out.Reset()
	if err := run([]string{"-url", srv.URL + "/", "-state", state}, &out); err != nil {
		t.Fatal(err)
	}
	if kept2, known2, _, _ := summary(t, out.String()); !strings.Contains(out.String(), "loaded the state") || kept2 != 0 || known2 != kept {
		t.Errorf("second run: %d kept, %d known, want 0 and %d:\n%s", kept2, known2, kept, out.String())
	}
	// A damaged state file is an error, not an empty start.
	if err := os.WriteFile(state, []byte("NEARDUP\x00\x01\x10shingle"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-url", srv.URL + "/", "-state", state}, &out); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("damaged state: err = %v, want ErrCorrupt", err)
	}
}

// The demonstration transport reaches only the demonstration host.
func TestDemoTransport(t *testing.T) {
	srv := httptest.NewServer(siteHandler(time.Now))
	defer srv.Close()
	client := &http.Client{Transport: demoTransport(strings.TrimPrefix(srv.URL, "http://"))}
	resp, err := client.Get("http://" + demoHost + "/about")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET the demonstration site: %s", resp.Status)
	}
	if _, err := client.Get("http://example.org/"); err == nil {
		t.Error("the demonstration transport fetched another host")
	}
}

func TestLinksSameHostOnly(t *testing.T) {
	c := &crawler{host: "a.example"}
	body := []byte(`<a href="/x#frag">x</a><a href="http://b.example/y">y</a><a href="z">z</a><a href="mailto:q@a.example">m</a><a>no href</a>`)
	links := c.links("http://a.example/dir/page", body)
	want := "http://a.example/x http://a.example/dir/z"
	if strings.Join(links, " ") != want {
		t.Errorf("links = %v, want %s", links, want)
	}
}
