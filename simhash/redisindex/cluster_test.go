package redisindex

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/servertest"
)

// testCluster is a Redis Cluster on loopback (servertest.StartCluster:
// no persistence, configuration in a temporary directory).
type testCluster struct {
	addrs []string // every node, primaries first
}

// startCluster starts a Redis Cluster of three primaries, each with
// replicas replicas (servertest.StartCluster). When redis-server or
// redis-cli is missing or the cluster cannot be formed on this machine (none
// of that runs code of this package), the server is unavailable
// (servertest.Unavailable).
func startCluster(t testing.TB, replicas int) *testCluster {
	t.Helper()
	return &testCluster{addrs: servertest.StartCluster(t, 3, replicas)}
}

// setNodeTimeout sets every node's cluster-node-timeout.
func (cl *testCluster) setNodeTimeout(t testing.TB, d time.Duration) {
	servertest.NodeTimeout(t, cl.addrs, d)
}

// kill kills the node at addr (SIGKILL).
func (cl *testCluster) kill(t testing.TB, addr string) { servertest.Kill(t, addr) }

// client returns a ClusterClient of its own on cl.
func (cl *testCluster) client(t testing.TB, o *redis.ClusterOptions) *redis.ClusterClient {
	if o == nil {
		o = &redis.ClusterOptions{PoolSize: 4}
	}
	o.Addrs = cl.addrs
	c := redis.NewClusterClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCluster runs the conformance suite and the fleet race of TestFleet on
// a Redis Cluster of three primaries through ClusterClients, with
// SingleSlot: exactly one page kept per group, nothing lost to a client cut
// off mid-call. Without SingleSlot or Spread a script's keys cross slots
// and every call is an error, never a silent "new page".
func TestCluster(t *testing.T) {
	cl := startCluster(t, 0)
	newClient := func() redis.UniversalClient { return cl.client(t, nil) }
	prefix := fmt.Sprintf("cluster-%d", time.Now().UnixNano())
	t.Run("conformance", func(t *testing.T) {
		c, n := newClient(), 0
		detectortest.Run(t, detectortest.Suite{
			New: func() (neardup.Detector, error) {
				n++
				return New(Options{Client: c, Prefix: fmt.Sprint(prefix, "-c", n), MaxDistance: 6, SingleSlot: true})
			},
			Groups:  detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 24}),
			Measure: "simhash-bits",
		})
	})
	t.Run("fleet", func(t *testing.T) {
		runFleet(t, newClient, Options{Prefix: prefix + "-fleet", MaxDistance: 6, SingleSlot: true})
	})
	t.Run("crossslot", func(t *testing.T) {
		det, err := New(Options{Client: newClient(), Prefix: prefix + "-cross", MaxDistance: 6})
		if err != nil {
			t.Fatal(err)
		}
		d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 25, Groups: 2, Members: 2})[0][0]
		ms, added, err := det.MatchOrAdd(t.Context(), d)
		if err == nil || added || ms != nil {
			t.Fatalf("MatchOrAdd across slots = %v, %v, %v; want an error", ms, added, err)
		}
		t.Logf("without SingleSlot: %v", err)
	})
}
