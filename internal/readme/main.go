// Command readme is the program of the README's "Use" section, kept here
// so that it compiles; readme_test.go checks that the README shows it as it is.
package main

import (
	"context"
	"errors"
	"io/fs"
	"log"
	"net/http"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

func main() {
	ctx := context.Background()              // bounds and cancels each call (a server backend's)
	det, _ := minhash.New(minhash.Options{}) // the defaults; safe for concurrent use
	var pipe preprocess.Pipeline             // the zero value is ready
	if err := neardup.LoadFile("state.snap", det); err != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Fatal(err) // neardup.ErrCorrupt, ErrSnapshotMismatch, or a read error
	}
	for _, url := range []string{"https://example.org/"} { // placeholder: your crawl frontier
		resp, err := http.Get(url)
		if err != nil {
			continue
		}
		judge(ctx, det, &pipe, url, resp)
		resp.Body.Close()
	}
	if err := neardup.SaveFile("state.snap", det); err != nil { // atomic: temp file, fsync, rename
		log.Fatal(err)
	}
}

// judge keeps the page fetched from url unless it nearly duplicates a kept page.
func judge(ctx context.Context, det *minhash.Detector, pipe *preprocess.Pipeline, url string, resp *http.Response) {
	raw, err := preprocess.ReadPage(resp.Body, pipe.Options().MaxBytes) // reads at most MaxBytes+1
	if err != nil {
		log.Printf("%s: %v", url, err)
		return
	}
	doc, err := neardup.NewDocument(pipe, url, url, resp.Header.Get("Content-Type"), raw)
	if err != nil { // preprocess.ErrEmpty, ErrNotText, ErrTooLarge, ...
		log.Printf("%s: %v", url, err)
		return
	}
	// The known page: fetched again and still near what is kept under its URL.
	if known, _ := det.Verify(ctx, doc, []neardup.Match{{ID: url}}); len(known) > 0 {
		return
	}
	// Keep it (in place of an older version kept under its URL) unless it
	// nearly duplicates another kept page: one atomic step.
	matches, kept, err := det.Replace(ctx, doc)
	switch {
	case err != nil: // neardup.ErrNoFeatures (a page without words), ErrInvalidID (a URL over MaxIDLen bytes)
		log.Printf("%s: %v", url, err)
	case kept:
		log.Printf("%s: new", url)
	default:
		m := matches[0] // closest first
		log.Printf("%s: near-duplicate of %s (%.3f %s)", url, m.ID, m.Score, m.Measure)
	}
}
