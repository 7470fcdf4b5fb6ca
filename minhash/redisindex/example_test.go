package redisindex_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash/redisindex"
	"github.com/neardup/neardup/preprocess"
)

// Every fetcher of a fleet makes a Detector with the same Prefix (and the
// same minhash options) and asks MatchOrAdd of each page it fetches; of two
// near-duplicates fetched at once by two processes, one is kept. (It needs
// a Redis server, so go test compiles it without running it; TestFleet and
// TestSameVerdicts run the same calls.)
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "localhost:6379", ReadTimeout: time.Second, MaxRetries: 2})
	defer client.Close()
	det, err := redisindex.New(redisindex.Options{Client: client, Prefix: "crawl"})
	if err != nil {
		log.Fatal(err)
	}
	var pipe preprocess.Pipeline
	doc, err := neardup.NewDocument(&pipe, "https://example.org/a", "https://example.org/a", "",
		[]byte("<nav>Home | About</nav><p>The page as fetched: an article of a few sentences.</p>"))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	matches, added, err := det.MatchOrAdd(ctx, doc)
	switch {
	case err != nil:
		log.Print(err) // errors.Is(err, redisindex.ErrRedis): not "new", not "duplicate"
	case added:
		fmt.Println("new page, kept for the whole fleet")
	default:
		fmt.Println("near-duplicate of", matches[0].ID)
	}
}
