//go:build redis

package main

import (
	"cmp"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	mredis "github.com/neardup/neardup/minhash/redisindex"
	"github.com/neardup/neardup/simhash"
	sredis "github.com/neardup/neardup/simhash/redisindex"
)

// fleetMethod is a method whose repository is in Redis (the server or
// cluster at -redis): open makes a detector over the repository under
// prefix on its own client c (a *redis.ClusterClient when cluster).
func fleetMethod(fs *flag.FlagSet, name, doc string, open func(c redis.UniversalClient, prefix string, cluster bool) (neardup.Detector, error)) method {
	addr := redisAddr(fs)
	return method{name: name, doc: doc, new: func() (neardup.Detector, error) {
		// Only the fleet stream (evaluate's -methods) runs it, through several clients.
		return nil, fmt.Errorf("%s runs only as evaluate's -methods (a repository in Redis through %d clients)", name, fleetClients)
	}, fleet: func() (func() (neardup.Detector, error), error) {
		if addr() == "" {
			return nil, fmt.Errorf("%s needs -redis ADDR", name)
		}
		prefix := fmt.Sprintf("neardup-evaluate-%d", time.Now().UnixNano())
		return func() (neardup.Detector, error) {
			var c redis.UniversalClient
			cluster := strings.Contains(addr(), ",")
			if cluster {
				c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addr(), ",")})
			} else {
				c = redis.NewClient(&redis.Options{Addr: addr()})
			}
			return open(c, prefix, cluster)
		}, nil
	}}
}

// minhashFleetMethods are the minhash method with its repository in Redis
// (package minhash/redisindex), spread over slots or not, at the options
// the minhash flags give (opts at -rc).
func minhashFleetMethods(fs *flag.FlagSet, opts func(float64) minhash.Options, rc *float64) []method {
	open := func(spread bool) func(redis.UniversalClient, string, bool) (neardup.Detector, error) {
		return func(c redis.UniversalClient, prefix string, cluster bool) (neardup.Detector, error) {
			return mredis.New(mredis.Options{Client: c, Prefix: prefix, Spread: spread, SingleSlot: cluster && !spread,
				Minhash: opts(*rc), Timeout: time.Minute})
		}
	}
	return []method{
		fleetMethod(fs, "minhash-redis", minhashRedisDoc(), open(false)),
		fleetMethod(fs, "minhash-redis-spread", minhashRedisSpreadDoc, open(true)),
	}
}

// simhashFleetMethods are the simhash method with its repository in Redis
// (package simhash/redisindex), spread over slots or not, at T_B -tb.
func simhashFleetMethods(fs *flag.FlagSet, tb *int) []method {
	open := func(spread bool) func(redis.UniversalClient, string, bool) (neardup.Detector, error) {
		return func(c redis.UniversalClient, prefix string, cluster bool) (neardup.Detector, error) {
			return sredis.New(sredis.Options{Client: c, Prefix: prefix, Spread: spread, SingleSlot: cluster && !spread,
				MaxDistance: cmp.Or(*tb, simhash.Identical), Timeout: time.Minute})
		}
	}
	return []method{
		fleetMethod(fs, "simhash-redis", simhashRedisDoc(), open(false)),
		fleetMethod(fs, "simhash-redis-spread", simhashRedisSpreadDoc, open(true)),
	}
}
