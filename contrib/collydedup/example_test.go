package collydedup_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/gocolly/colly/v2"

	"github.com/neardup/neardup/contrib/collydedup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// Attach a detector to a collector and leave near-duplicates' links alone.
func ExampleAttach() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<p>The same article under every URL, so every page after the first is a copy.</p>`+
			`<p>Reprints and mirrors waste a crawler's bandwidth and an index's storage.</p>`+
			`<a href="/copy">another copy</a> <a href="/gone">a dead link</a>`)
	}))
	defer srv.Close()

	det, _ := minhash.New(minhash.Options{})
	pipe, _ := preprocess.New(preprocess.Options{})
	c := colly.NewCollector(colly.MaxBodySize(preprocess.DefaultMaxBytes + 1))
	collydedup.Attach(context.Background(), c, det, pipe, func(v collydedup.Verdict) {
		fmt.Println(v.Kept, v.Of != nil, v.Status, v.Err)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		if !collydedup.Duplicate(e.Response) {
			e.Request.Visit(e.Attr("href"))
		}
	})
	c.Visit(srv.URL + "/")
	// Output:
	// true false 200 <nil>
	// false true 200 <nil>
	// false false 404 collydedup: fetch failed: Not Found
}
