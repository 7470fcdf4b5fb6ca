package redisindex

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
)

// testCluster is a Redis Cluster on loopback (no persistence,
// configuration in a temporary directory) that a test can take nodes of
// down.
type testCluster struct {
	addrs []string             // every node, primaries first as created
	nodes map[string]*exec.Cmd // by address
}

// startCluster starts a Redis Cluster of three primaries, each with
// replicas replicas, and a node timeout of five seconds (long enough for
// a loaded machine not to take a slow node for a failed one; a failover
// test lowers it). When
// redis-server or redis-cli is missing or the cluster cannot be formed on
// this machine (none of that runs code of this package), the server is
// unavailable (detectortest.Unavailable).
func startCluster(t testing.TB, replicas int) *testCluster {
	t.Helper()
	server, err := exec.LookPath("redis-server")
	if err != nil {
		detectortest.Unavailable(t, "redis-server", "redis-server is not on PATH")
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		detectortest.Unavailable(t, "redis-server", "redis-cli (Debian's redis-tools, a dependency of redis-server) is not on PATH")
	}
	dir := t.TempDir()
	n := 3 * (1 + replicas)
	cl := &testCluster{nodes: map[string]*exec.Cmd{}}
	for try := 0; len(cl.addrs) < n && try < 100; try++ {
		// A node also listens on port + 10000 (the cluster bus).
		port, ok := freePortPair()
		if !ok {
			continue
		}
		p := strconv.Itoa(port)
		cmd := exec.Command(server, "--port", p, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+p+".conf", "--dir", dir,
			"--cluster-node-timeout", "5000")
		if err := cmd.Start(); err != nil {
			detectortest.Unavailable(t, "redis-server", "starting a cluster node: "+err.Error())
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		a := "127.0.0.1:" + p
		cl.addrs = append(cl.addrs, a)
		cl.nodes[a] = cmd
	}
	if len(cl.addrs) < n {
		detectortest.Unavailable(t, "redis-server", fmt.Sprintf("no %d free loopback ports p with p+10000 free too", n))
	}
	for _, a := range cl.addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		ok := false
		for range 100 {
			if ok = c.Ping(context.Background()).Err() == nil; ok {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		c.Close()
		if !ok {
			detectortest.Unavailable(t, "redis-server", "cluster node "+a+" did not answer")
		}
	}
	args := append(append([]string{"--cluster", "create"}, cl.addrs...), "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	out, err := exec.Command(cli, args...).CombinedOutput()
	if err != nil {
		detectortest.Unavailable(t, "redis-server", fmt.Sprintf("redis-cli --cluster create: %v\n%s", err, out))
	}
	for _, a := range cl.addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		ok := false
		for range 400 {
			info, _ := c.ClusterInfo(context.Background()).Result()
			repl, _ := c.Info(context.Background(), "replication").Result()
			if ok = strings.Contains(info, "cluster_state:ok") &&
				(strings.Contains(repl, "role:master") || strings.Contains(repl, "master_link_status:up")); ok {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		c.Close()
		if !ok {
			detectortest.Unavailable(t, "redis-server", "cluster node "+a+" never reported cluster_state:ok (and, a replica, its link up)")
		}
	}
	return cl
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

// freePortPair returns a loopback port that is free, as is the port 10000
// above it, which a cluster node uses for its bus.
func freePortPair() (int, bool) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, false
	}
	port := l.Addr().(*net.TCPAddr).Port
	defer l.Close()
	if port+10000 > 65535 {
		return 0, false
	}
	bus, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+10000))
	if err != nil {
		return 0, false
	}
	bus.Close()
	return port, true
}
