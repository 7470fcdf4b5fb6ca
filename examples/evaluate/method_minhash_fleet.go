package main

import "fmt"

// The fleet methods' documentation, the same whether this build has them
// (the redis build tag: method_minhash_redis.go) or not
// (method_minhash_noredis.go).
const (
	redisFlagDoc          = "minhash-redis: the address of a Redis server to keep the repository in, or the comma-separated addresses of a Redis Cluster's nodes (keys under neardup-evaluate-<time>; use a scratch server; needs the redis build tag)"
	minhashRedisSpreadDoc = "minhash-redis with the repository's keys spread over slots (leases, fencing, pending records)"
)

// minhashRedisDoc is the minhash-redis method's documentation.
func minhashRedisDoc() string {
	return fmt.Sprintf("the minhash method with its repository in Redis (-redis ADDR), through %d clients at once", fleetClients)
}

// redisHint is how to build evaluate with the Redis methods: they pull in
// github.com/redis/go-redis, which the other methods do not need, so they
// are built only with the redis build tag.
const redisHint = "needs the redis build tag (go run -tags redis ./examples/evaluate)"
