//go:build !redis

package main

import (
	"errors"
	"flag"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
)

// minhashFleetMethods are the Redis methods' names and flag in a build
// without them (no redis build tag): choosing one says how to build it.
func minhashFleetMethods(fs *flag.FlagSet, _ func(float64) minhash.Options, _ *float64) []method {
	fs.String("redis", "", redisFlagDoc)
	fleetMethod := func(name, doc string) method {
		err := errors.New(redisHint) // evaluate names the method before it
		return method{name: name, doc: doc,
			new:   func() (neardup.Detector, error) { return nil, err },
			fleet: func() (func() (neardup.Detector, error), error) { return nil, err }}
	}
	return []method{
		fleetMethod("minhash-redis", minhashRedisDoc()),
		fleetMethod("minhash-redis-spread", minhashRedisSpreadDoc),
	}
}
