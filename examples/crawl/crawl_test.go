package main

import (
	"bytes"
	"context"
	"errors"
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
		// Exactly one page of each article is kept, whichever was fetched first.
		if len(copies) != 1 {
			t.Errorf("%s: kept %v, want exactly one of the four copies", orig, copies)
		}
	}
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

// The built-in site is served on loopback and crawled end to end by run.
func TestRunDefaultSite(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: skipping the end-to-end crawl")
	}
	var out bytes.Buffer
	if err := run(nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "7 kept, 0 known from the state, 15 near-duplicates dropped") {
		t.Errorf("output:\n%s", out.String())
	}
}

// With a state file, a second crawl of the same site skips every page the
// first kept, and the state survives a run that was interrupted at once.
func TestCrawlState(t *testing.T) {
	srv := httptest.NewServer(siteHandler(func() time.Time { return time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC) }))
	defer srv.Close()
	state := filepath.Join(t.TempDir(), "crawl.snap")
	var out bytes.Buffer
	if err := run([]string{"-url", srv.URL + "/", "-state", state}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "no state in") || !strings.Contains(out.String(), "7 kept, 0 known from the state, 15 near-duplicates dropped") {
		t.Errorf("first run:\n%s", out.String())
	}
	out.Reset()
	if err := run([]string{"-url", srv.URL + "/", "-state", state}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "loaded the state") || !strings.Contains(out.String(), "0 kept, 7 known from the state, 15 near-duplicates dropped") {
		t.Errorf("second run:\n%s", out.String())
	}
	// A damaged state file is an error, not an empty start.
	if err := os.WriteFile(state, []byte("NEARDUP\x00\x01\x10shingle"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-url", srv.URL + "/", "-state", state}, &out); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("damaged state: err = %v, want ErrCorrupt", err)
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
