package redisindex

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
)

// testCluster is a Redis Cluster on loopback (detectortest.StartCluster:
// no persistence, configuration in a temporary directory).
type testCluster struct {
	addrs []string // every node, primaries first
}

// startCluster starts a Redis Cluster of three primaries, each with
// replicas replicas, and sets its node timeout to five seconds, long
// enough for a loaded machine not to take a slow node for a failed one (a
// failover test lowers it). When redis-server or redis-cli is missing or
// the cluster cannot be formed on this machine (none of that runs code of
// this package), the server is unavailable (detectortest.Unavailable).
func startCluster(t testing.TB, replicas int) *testCluster {
	t.Helper()
	cl := &testCluster{addrs: detectortest.StartCluster(t, 3, replicas)}
	cl.setNodeTimeout(t, 5*time.Second)
	return cl
}

// setNodeTimeout sets every node's cluster-node-timeout.
func (cl *testCluster) setNodeTimeout(t testing.TB, d time.Duration) {
	for _, a := range cl.addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		err := c.ConfigSet(context.Background(), "cluster-node-timeout", strconv.FormatInt(d.Milliseconds(), 10)).Err()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// kill kills the node at addr (SIGKILL), found by the process ID it
// reports.
func (cl *testCluster) kill(t testing.TB, addr string) {
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	info, err := c.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no process_id in INFO of %s", addr)
}

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
	newClient := func() redis.Scripter { return cl.client(t, nil) }
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
		fleet(t, newClient, Options{Prefix: prefix + "-fleet", MaxDistance: 6, SingleSlot: true})
	})
	t.Run("crossslot", func(t *testing.T) {
		det, err := New(Options{Client: newClient(), Prefix: prefix + "-cross", MaxDistance: 6})
		if err != nil {
			t.Fatal(err)
		}
		d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 25, Groups: 2, Members: 2})[0][0]
		ms, added, err := det.MatchOrAdd(d)
		if err == nil || added || ms != nil {
			t.Fatalf("MatchOrAdd across slots = %v, %v, %v; want an error", ms, added, err)
		}
		t.Logf("without SingleSlot: %v", err)
	})
}
