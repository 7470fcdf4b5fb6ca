package main

import (
	"flag"
	"fmt"
)

// The fleet methods' documentation, the same whether this build has them
// (the redis build tag: method_redis.go) or not (method_noredis.go).
const (
	redisFlagDoc          = "minhash-redis, simhash-redis: the address of a Redis server to keep the repository in, or the comma-separated addresses of a Redis Cluster's nodes (keys under neardup-evaluate-<time>; use a scratch server; needs the redis build tag)"
	minhashRedisSpreadDoc = "minhash-redis with the repository's keys spread over slots (leases, fencing, pending records)"
	simhashRedisSpreadDoc = "simhash-redis with the repository's keys spread over slots (leases on its block keys, a pending handle, a commit)"
)

// minhashRedisDoc is the minhash-redis method's documentation.
func minhashRedisDoc() string {
	return fmt.Sprintf("the minhash method with its repository in Redis (-redis ADDR), through %d clients at once", fleetClients)
}

// simhashRedisDoc is the simhash-redis method's documentation.
func simhashRedisDoc() string {
	return fmt.Sprintf("the simhash method with its repository in Redis (-redis ADDR, package simhash/redisindex), through %d clients at once", fleetClients)
}

// redisHint is how to build evaluate with the Redis methods: they pull in
// github.com/redis/go-redis, which the other methods do not need, so they
// are built only with the redis build tag.
const redisHint = "needs the redis build tag (go run -tags redis ./examples/evaluate)"

// redisAddr registers -redis on fs, once for every family whose methods
// need it, and returns a function giving its value after the flags are
// parsed.
func redisAddr(fs *flag.FlagSet) func() string {
	if fs.Lookup("redis") == nil {
		fs.String("redis", "", redisFlagDoc)
	}
	f := fs.Lookup("redis")
	return func() string { return f.Value.String() }
}
