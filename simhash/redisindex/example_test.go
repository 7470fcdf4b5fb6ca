package redisindex_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/simhash/redisindex"
)

// Every fetcher of a fleet makes a Detector with the same Prefix and asks
// MatchOrAdd of each page it fetches: one Lua script on the Redis primary,
// so of two near-duplicates fetched at once by two processes, one is kept.
// (It needs a Redis server, so go test compiles it without running it;
// TestFleet runs the same calls.)
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "localhost:6379", ReadTimeout: time.Second, MaxRetries: 2})
	defer client.Close()
	det, err := redisindex.New(redisindex.Options{Client: client, Prefix: "crawl"})
	if err != nil {
		log.Fatal(err)
	}
	var pipe preprocess.Pipeline
	doc, err := neardup.NewDocument(&pipe, "https://example.org/a", "https://example.org/a", "", []byte("<p>the page as fetched</p>"))
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

// A repository spread over every primary of a Redis Cluster (Spread): each
// page's keys live on several shards, and MatchOrAdd keeps the same
// guarantees through leases on its block keys and a commit. The client
// reloads the cluster's slot map every few seconds, so that after a
// failover it finds the new primary soon. (It needs a cluster, so go test
// compiles it without running it; TestSpreadCluster runs the same calls.)
func ExampleOptions_spread() {
	client := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                      []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"},
		ReadTimeout:                time.Second,
		ClusterStateReloadInterval: 5 * time.Second,
	})
	defer client.Close()
	det, err := redisindex.New(redisindex.Options{Client: client, Prefix: "crawl", Spread: true})
	if err != nil {
		log.Fatal(err)
	}
	var pipe preprocess.Pipeline
	doc, err := neardup.NewDocument(&pipe, "https://example.org/a", "https://example.org/a", "", []byte("<p>the page as fetched</p>"))
	if err != nil {
		log.Fatal(err)
	}
	if _, added, err := det.MatchOrAdd(context.Background(), doc); err == nil && added {
		fmt.Println("new page, kept for the whole fleet")
	}
}
