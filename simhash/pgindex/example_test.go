package pgindex_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/simhash/pgindex"
)

// Every fetcher of a fleet makes a Detector over the same Table and asks
// MatchOrAdd of each page it fetches: one transaction that locks the page's
// block values, so of two near-duplicates fetched at once by two processes,
// one is kept. (It needs a PostgreSQL server, so go test compiles it
// without running it; TestFleet runs the same calls.)
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, "postgres://crawler@localhost/crawl")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	det, err := pgindex.New(ctx, pgindex.Options{Pool: pool, Table: "kept_pages"}) // creates the table once
	if err != nil {
		log.Fatal(err)
	}
	var pipe preprocess.Pipeline
	doc, err := neardup.NewDocument(&pipe, "https://example.org/a", "https://example.org/a", "", []byte("<p>the page as fetched</p>"))
	if err != nil {
		log.Fatal(err)
	}
	matches, added, err := det.MatchOrAdd(ctx, doc)
	switch {
	case err != nil:
		log.Print(err) // errors.Is(err, pgindex.ErrPostgres): not "new", not "duplicate"
	case added:
		fmt.Println("new page, kept for the whole fleet")
	default:
		fmt.Println("near-duplicate of", matches[0].ID)
	}
}
