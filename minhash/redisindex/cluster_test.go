package redisindex

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/minhash"
)

// TestCluster runs the conformance suite and the fleet race of TestFleet on
// a Redis Cluster of three primaries, each with a replica, through
// ClusterClients, with SingleSlot: exactly one page kept per group, nothing
// lost to a client cut off mid-call. Without SingleSlot a script's keys
// cross slots and every call is an error, never a silent "new page".
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starting a six-node cluster takes seconds")
	}
	addrs := detectortest.StartCluster(t, 3, 1)
	newClient := func() *redis.ClusterClient {
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
				return New(Options{Client: c, Prefix: fmt.Sprint(prefix, "-c", n), SingleSlot: true})
			},
			Groups:  detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 37}),
			Measure: minhash.JaccardDistance,
		})
	})
	t.Run("fleet", func(t *testing.T) {
		detectortest.Fleet(t, detectortest.FleetSpec{
			New: func() detectortest.FleetDetector {
				det, err := New(Options{Client: newClient(), Prefix: prefix + "-fleet", SingleSlot: true})
				if err != nil {
					t.Fatal(err)
				}
				return det
			},
			Kept: func(det detectortest.FleetDetector, id string) (bool, error) {
				return det.(*Detector).Contains(context.Background(), id)
			},
			Len:  func(det detectortest.FleetDetector) (int, error) { return det.(*Detector).Len(context.Background()) },
			Cuts: []time.Duration{0, 200 * time.Microsecond, 500 * time.Microsecond, time.Millisecond},
			Seed: 38,
		})
	})
	t.Run("failover", func(t *testing.T) { failover(t, newClient(), newClient, prefix+"-failover") })
	t.Run("crossslot", func(t *testing.T) {
		det, err := New(Options{Client: newClient(), Prefix: prefix + "-cross"})
		if err != nil {
			t.Fatal(err)
		}
		d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 39, Groups: 2, Members: 2})[0][0]
		ms, added, err := det.MatchOrAdd(d)
		if err == nil || added || ms != nil {
			t.Fatalf("MatchOrAdd across slots = %v, %v, %v; want an error", ms, added, err)
		}
		if !strings.Contains(err.Error(), "redis") {
			t.Errorf("error %v does not say it is Redis's", err)
		}
	})
}

// failover has four clients race MatchOrAdd over near-duplicate groups
// while the primary that serves the repository's slot is killed (SIGKILL)
// and its replica takes over. Every group ends with exactly one page kept
// and no client is told its page duplicates itself; the pages reported
// added and missing afterwards are those the old primary acknowledged and
// had not yet sent to its replica (Redis replicates asynchronously), which
// docs/fleet.md states.
func failover(t *testing.T, admin *redis.ClusterClient, newClient func() *redis.ClusterClient, prefix string) {
	ctx := context.Background()
	newDet := func() *Detector {
		det, err := New(Options{Client: newClient(), Prefix: prefix, SingleSlot: true, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 40, Groups: 64, Members: 4})
	var failed, calls atomic.Int64
	stop := make(chan struct{})
	var clients []detectortest.Offer
	for w := range 4 {
		det := newDet()
		clients = append(clients, func(_ int, doc *neardup.Document) bool {
			calls.Add(1)
			ms, ok, err := det.MatchOrAdd(doc)
			if errors.Is(err, neardup.ErrDuplicateID) {
				t.Errorf("client %d: %s: %v", w, doc.ID, err)
			}
			if err != nil {
				failed.Add(1)
				return false
			}
			detectortest.NotSelf(t, w, doc, ms)
			time.Sleep(time.Millisecond)
			return ok
		})
	}
	race := make(chan map[string]bool)
	go func() { race <- detectortest.Race(groups, 0, stop, clients) }()
	time.Sleep(100 * time.Millisecond) // mid-race: groups are still being added
	// The primary serving the repository's slot, and its process.
	slot, err := admin.ClusterKeySlot(ctx, "{"+prefix+"}").Result()
	if err != nil {
		t.Fatal(err)
	}
	slots, err := admin.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	primary := ""
	for _, r := range slots {
		if int64(r.Start) <= slot && slot <= int64(r.End) {
			primary = r.Nodes[0].Addr
		}
	}
	node := redis.NewClient(&redis.Options{Addr: primary})
	info, err := node.Info(ctx, "server").Result()
	node.Close()
	if err != nil {
		t.Fatal(err)
	}
	pid := 0
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, _ = strconv.Atoi(v)
		}
	}
	if pid == 0 {
		t.Fatalf("no process_id in INFO of %s", primary)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	// The replica takes over after cluster-node-timeout (1 s) and an
	// election; the clients' calls fail meanwhile, then succeed.
	for {
		if time.Since(killed) > 20*time.Second {
			other := ""
			for _, r := range slots {
				if r.Nodes[0].Addr != primary {
					other = r.Nodes[0].Addr
				}
			}
			c := redis.NewClient(&redis.Options{Addr: other})
			nodes, _ := c.ClusterNodes(ctx).Result()
			c.Close()
			_, lerr := newDet().Len(ctx)
			t.Fatalf("no replica took over the slot within 20 s (Len: %v); %s sees:\n%s", lerr, other, nodes)
		}
		if _, err := newDet().Len(ctx); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(killed)
	time.Sleep(500 * time.Millisecond)
	close(stop)
	added := <-race
	det := newDet()
	lost := 0
	for id := range added {
		if ok, err := det.Contains(ctx, id); err != nil {
			t.Fatal(err)
		} else if !ok {
			lost++
		}
	}
	t.Logf("%d calls, %d failed during the failover (%v), %d pages reported added, %d of them lost with the old primary",
		calls.Load(), failed.Load(), took.Round(10*time.Millisecond), len(added), lost)
	for gi, g := range groups {
		if ms, err := det.Match(g[0]); err != nil || len(ms) != 1 {
			t.Errorf("group %d: %v kept (%v), want exactly one", gi, ms, err)
		}
	}
}
