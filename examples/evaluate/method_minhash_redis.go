//go:build redis

package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/minhash/redisindex"
)

// minhashFleetMethods are the minhash method with its repository in Redis
// (package minhash/redisindex), spread over slots or not, at the options
// the minhash flags give (opts at -rc). They need a Redis server (-redis).
func minhashFleetMethods(fs *flag.FlagSet, opts func(float64) minhash.Options, rc *float64) []method {
	redisAddr := fs.String("redis", "", redisFlagDoc)
	fleetMethod := func(name, doc string, spread bool) method {
		return method{name: name, doc: doc, new: func() (neardup.Detector, error) {
			// Only the fleet stream (evaluate's -methods) runs it, through several clients.
			return nil, fmt.Errorf("%s runs only as evaluate's -methods (a repository in Redis through %d clients)", name, fleetClients)
		}, fleet: func() (func() (neardup.Detector, error), error) {
			if *redisAddr == "" {
				return nil, fmt.Errorf("%s needs -redis ADDR", name)
			}
			prefix := fmt.Sprintf("neardup-evaluate-%d", time.Now().UnixNano())
			return func() (neardup.Detector, error) {
				var c redis.UniversalClient
				cluster := strings.Contains(*redisAddr, ",")
				if cluster {
					c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(*redisAddr, ",")})
				} else {
					c = redis.NewClient(&redis.Options{Addr: *redisAddr})
				}
				return redisindex.New(redisindex.Options{Client: c, Prefix: prefix, Spread: spread, SingleSlot: cluster && !spread,
					Minhash: opts(*rc), Timeout: time.Minute})
			}, nil
		}}
	}
	return []method{
		fleetMethod("minhash-redis", minhashRedisDoc(), false),
		fleetMethod("minhash-redis-spread", minhashRedisSpreadDoc, true),
	}
}
