package redisindex

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
)

// The conformance suite and the fleet race on a spread repository on one
// server (the protocol does not need a cluster).
func TestSpread(t *testing.T) {
	c, prefix := client(t)
	t.Run("conformance", func(t *testing.T) {
		n := 0
		detectortest.Run(t, detectortest.Suite{
			New: func() (neardup.Detector, error) {
				n++
				return New(Options{Client: c, Prefix: fmt.Sprint(prefix, "-", n), MaxDistance: 6, Spread: true})
			},
			Groups:  detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 31}),
			Measure: "simhash-bits",
		})
	})
	t.Run("fleet", func(t *testing.T) {
		newClient := func() redis.Scripter {
			c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 4})
			t.Cleanup(func() { c.Close() })
			return c
		}
		fleet(t, newClient, Options{Prefix: prefix + "-fleet", MaxDistance: 6, Spread: true, LeaseTTL: 200 * time.Millisecond})
	})
}
