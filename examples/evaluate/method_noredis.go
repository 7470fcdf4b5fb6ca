//go:build !redis

package main

import (
	"errors"
	"flag"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
)

// noRedis is a Redis method's name and documentation in a build without
// the Redis methods (no redis build tag): choosing it says how to build it.
func noRedis(fs *flag.FlagSet, name, doc string) method {
	redisAddr(fs)
	err := errors.New(redisHint) // evaluate names the method before it
	return method{name: name, doc: doc,
		new:   func() (neardup.Detector, error) { return nil, err },
		fleet: func() (func() (neardup.Detector, error), error) { return nil, err }}
}

// minhashFleetMethods are minhash's Redis methods, unbuilt.
func minhashFleetMethods(fs *flag.FlagSet, _ func(float64) minhash.Options, _ *float64) []method {
	return []method{
		noRedis(fs, "minhash-redis", minhashRedisDoc()),
		noRedis(fs, "minhash-redis-spread", minhashRedisSpreadDoc),
	}
}

// simhashFleetMethods are simhash's Redis methods, unbuilt.
func simhashFleetMethods(fs *flag.FlagSet, _ *int) []method {
	return []method{
		noRedis(fs, "simhash-redis", simhashRedisDoc()),
		noRedis(fs, "simhash-redis-spread", simhashRedisSpreadDoc),
	}
}
