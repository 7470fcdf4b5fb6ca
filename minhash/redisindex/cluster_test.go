package redisindex

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/servertest"
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
	addrs := servertest.StartCluster(t, 3, 1)
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
	t.Run("failover", func(t *testing.T) { failover(t, addrs, newClient(), newClient, prefix+"-failover") })
	t.Run("spread", func(t *testing.T) { spreadCluster(t, newClient, prefix+"-spread") })
	t.Run("crossslot", func(t *testing.T) {
		det, err := New(Options{Client: newClient(), Prefix: prefix + "-cross"})
		if err != nil {
			t.Fatal(err)
		}
		d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 39, Groups: 2, Members: 2})[0][0]
		ms, added, err := det.MatchOrAdd(t.Context(), d)
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
func failover(t *testing.T, addrs []string, admin *redis.ClusterClient, newClient func() *redis.ClusterClient, prefix string) {
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
			ms, ok, err := det.MatchOrAdd(ctx, doc)
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
	//lint:ignore SA1019 CLUSTER SLOTS still answers on Redis 7 and lists each range's primary first, which is all this reads
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
	servertest.NodeTimeout(t, addrs, time.Second) // so that the replica takes over soon
	servertest.Kill(t, primary)
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
		if ms, err := det.Match(ctx, g[0]); err != nil || len(ms) > 1 {
			t.Errorf("group %d: %v kept (%v), want at most one", gi, ms, err)
		}
		// A group whose every offer failed during the failover gets a page now.
		if _, _, err := det.MatchOrAdd(ctx, &neardup.Document{ID: fmt.Sprint("final-", gi), Page: g[1].Page}); err != nil {
			t.Fatal(err)
		}
		if ms, err := det.Match(ctx, g[0]); err != nil || len(ms) != 1 {
			t.Errorf("group %d after a final MatchOrAdd: %v kept (%v), want exactly one", gi, ms, err)
		}
	}
}

// spreadCluster runs, with the repository spread over the cluster's slots:
// the conformance suite; eight clients racing MatchOrAdd over overlapping
// near-duplicate groups, one of them dying between filing a page and
// committing it again and again (its leases left to expire), another cut
// off by its context mid-call; then every group has exactly one page kept,
// every page a client was told it added is kept, no client is told its page
// duplicates itself; and the repository's keys but its host's (the race's
// pages are of one host, whose records and counts are on its slot) spread
// over the three primaries within 1.2× of even.
func spreadCluster(t *testing.T, newClient func() *redis.ClusterClient, prefix string) {
	ctx := context.Background()
	n := 0
	c := newClient()
	detectortest.Run(t, detectortest.Suite{
		New: func() (neardup.Detector, error) {
			n++
			return New(Options{Client: c, Prefix: fmt.Sprint(prefix, "-c", n), Spread: true})
		},
		Groups:  detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 44}),
		Measure: minhash.JaccardDistance,
	})
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 45, Groups: 24, Members: 6})
	for _, g := range groups { // a template: lines on every page
		for i, d := range g {
			g[i] = withTemplate(t, d, "lamps.example")
		}
	}
	newDet := func() *Detector {
		det, err := New(Options{Client: newClient(), Prefix: prefix, Spread: true, LeaseTTL: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	var died, diedAfter, cut atomic.Int64
	// A client dying after its commit, before applying its template changes: ahead of the race
	// (client 5 dies so in it too, when it keeps a page).
	pre := newDet()
	pre.afterCommit = func() error { return errDied }
	if _, _, err := pre.MatchOrAdd(ctx, &neardup.Document{ID: groups[0][0].ID + "#pre", Page: groups[0][0].Page}); !errors.Is(err, errDied) {
		t.Fatalf("the client dying after its commit: %v", err)
	}
	diedAfter.Add(1)
	var clients []detectortest.Offer
	for w := range 8 {
		det := newDet()
		if w == 5 { // dies after each of its commits, before applying its template changes
			det.afterCommit = func() error {
				diedAfter.Add(1)
				return errDied
			}
		}
		if w == 6 { // dies before every other commit
			var k atomic.Int64
			det.beforeCommit = func() error {
				if k.Add(1)%2 == 1 {
					died.Add(1)
					return errDied
				}
				return nil
			}
		}
		clients = append(clients, func(gi int, doc *neardup.Document) bool {
			ctx := context.Background()
			if w == 7 { // cut off by its context
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Duration(gi%4)*2*time.Millisecond)
				defer cancel()
			}
			ms, ok, err := det.MatchOrAdd(ctx, doc)
			switch {
			case errors.Is(err, errDied):
				return false
			case err != nil && w == 7:
				cut.Add(1)
				return false
			case err != nil:
				t.Errorf("client %d: %s: %v", w, doc.ID, err)
				return false
			}
			detectortest.NotSelf(t, w, doc, ms)
			return ok
		})
	}
	added := detectortest.Race(groups, 2, nil, clients)
	t.Logf("%d pages reported added; %d calls died before their commit, %d after it, %d were cut off",
		len(added), died.Load(), diedAfter.Load(), cut.Load())
	det := newDet()
	for id := range added {
		if ok, err := det.Contains(ctx, id); err != nil || !ok {
			t.Errorf("%s was reported added but is not kept (%v)", id, err)
		}
	}
	for gi, g := range groups {
		if ms, err := det.Match(ctx, g[0]); err != nil || len(ms) != 1 {
			t.Errorf("group %d: %v kept (%v), want exactly one", gi, ms, err)
		}
	}
	if n, err := det.Len(ctx); err != nil || n != len(groups) {
		t.Errorf("%d pages kept (%v) for %d groups", n, err, len(groups))
	}
	// The host's template counts are those of the pages kept, those of
	// the calls that died or were cut off after their commit too.
	checkKeptCounts(t, det, groups)
	// The keys over the primaries.
	counts := map[string]int{}
	var mu sync.Mutex
	err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		k := 0
		iter := m.Scan(ctx, 0, prefix+":ms2:*", 1000).Iterator()
		for iter.Next(ctx) {
			if !strings.Contains(iter.Val(), ":{h:") { // the race's one host: its records and counts on its slot
				k++
			}
		}
		mu.Lock()
		counts[m.Options().Addr] = k
		mu.Unlock()
		return iter.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	total, most := 0, 0
	for _, k := range counts {
		total += k
		most = max(most, k)
	}
	t.Logf("keys by primary: %v", counts)
	if len(counts) != 3 || float64(most) > 1.2*float64(total)/3 {
		t.Errorf("keys by primary %v: not within 1.2× of even", counts)
	}
}
