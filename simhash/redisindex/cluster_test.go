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

// startCluster starts a Redis Cluster of three primaries on loopback (no
// persistence, configuration in a temporary directory) and returns their
// addresses. When redis-server or redis-cli is missing or the cluster cannot
// be formed on this machine (none of that runs code of this package), the
// server is unavailable (detectortest.Unavailable).
func startCluster(t *testing.T) []string {
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
	var addrs []string
	for try := 0; len(addrs) < 3 && try < 100; try++ {
		// A node also listens on port + 10000 (the cluster bus).
		port, ok := freePortPair()
		if !ok {
			continue
		}
		p := strconv.Itoa(port)
		cmd := exec.Command(server, "--port", p, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+p+".conf", "--dir", dir)
		if err := cmd.Start(); err != nil {
			detectortest.Unavailable(t, "redis-server", "starting a cluster node: "+err.Error())
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		addrs = append(addrs, "127.0.0.1:"+p)
	}
	if len(addrs) < 3 {
		detectortest.Unavailable(t, "redis-server", "no three free loopback ports p with p+10000 free too")
	}
	for _, a := range addrs {
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
	out, err := exec.Command(cli, append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		detectortest.Unavailable(t, "redis-server", fmt.Sprintf("redis-cli --cluster create: %v\n%s", err, out))
	}
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		ok := false
		for range 200 {
			info, _ := c.ClusterInfo(context.Background()).Result()
			if ok = strings.Contains(info, "cluster_state:ok"); ok {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		c.Close()
		if !ok {
			detectortest.Unavailable(t, "redis-server", "cluster node "+a+" never reported cluster_state:ok")
		}
	}
	return addrs
}

// TestCluster runs the conformance suite and the fleet race of TestFleet on
// a Redis Cluster of three primaries through ClusterClients, with
// SingleSlot: exactly one page kept per group, nothing lost to a client cut
// off mid-call. Without SingleSlot a script's keys cross slots and every
// call is an error, never a silent "new page".
func TestCluster(t *testing.T) {
	addrs := startCluster(t)
	newClient := func() redis.Scripter {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, PoolSize: 4})
		t.Cleanup(func() { c.Close() })
		return c
	}
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
