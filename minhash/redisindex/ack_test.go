package redisindex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/servertest"
)

// With ReplicaAck a write call answers only once the replica has its
// changes, on one slot and spread: with the replica stopped a new page's
// call fails with ErrNotReplicated instead of answering (spread: before its
// commit, so that no page is committed whose filings are not on the
// replica); once the replica goes on the retry hears "added" (its own
// page, or a new one). Then the primary is killed with the replica stopped
// again and the replica promoted: every page reported added is kept there
// and matched by its near-duplicate, none is kept that cannot be matched.
func TestReplicaAck(t *testing.T) {
	for _, spread := range []bool{false, true} {
		t.Run(fmt.Sprint("spread=", spread), func(t *testing.T) { replicaAck(t, spread) })
	}
}

func replicaAck(t *testing.T, spread bool) {
	if addr == "" {
		servertest.Unavailable(t, "redis-server", noServer)
	}
	primary, stopPrimary, why := servertest.StartRedis("--repl-diskless-sync-delay", "0", "--dir", t.TempDir())
	if primary == "" {
		t.Fatal(why)
	}
	defer stopPrimary()
	replica, stopReplica := servertest.StartReplica(t, primary)
	defer stopReplica()
	pc := redis.NewClient(&redis.Options{Addr: primary, MaxRetries: -1})
	defer pc.Close()
	rc := redis.NewClient(&redis.Options{Addr: replica})
	defer rc.Close()
	ctx := context.Background()
	o := Options{Client: pc, Prefix: "ack", Spread: spread, ReplicaAck: 1, ReplicaTimeout: 5 * time.Second}
	det, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	o.ReplicaTimeout = 300 * time.Millisecond // for the calls made with the replica stopped
	impatient, _ := New(o)
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 39, Groups: 10, Members: 2})
	var added []int
	for i, gr := range g[:8] {
		if _, ok, err := det.MatchOrAdd(ctx, gr[0]); err != nil || !ok {
			t.Fatalf("MatchOrAdd(%s) = %v, %v", gr[0].ID, ok, err)
		}
		added = append(added, i)
	}
	signal := servertest.Stop(t, replica)
	d := g[8][0]
	if _, ok, err := impatient.MatchOrAdd(ctx, d); ok || !errors.Is(err, ErrNotReplicated) {
		t.Errorf("MatchOrAdd with the replica stopped = %v, %v; want ErrNotReplicated", ok, err)
	}
	signal(syscall.SIGCONT)
	if ms, ok, err := det.MatchOrAdd(ctx, d); err != nil || !ok || len(ms) != 0 {
		t.Errorf("the retry once the replica goes on = %v, %v, %v; want added", ms, ok, err)
	}
	added = append(added, 8)
	signal = servertest.Stop(t, replica)
	if _, ok, err := impatient.MatchOrAdd(ctx, g[9][0]); ok || !errors.Is(err, ErrNotReplicated) {
		t.Errorf("MatchOrAdd with the replica stopped = %v, %v; want ErrNotReplicated", ok, err)
	}
	servertest.Kill(t, primary)
	signal(syscall.SIGCONT)
	if err := rc.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	o.Client, o.ReplicaAck = rc, 0
	after, _ := New(o)
	for i, gr := range g {
		ms, err := after.Match(ctx, gr[1])
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case slices.Contains(added, i) && (len(ms) != 1 || ms[0].ID != gr[0].ID):
			t.Errorf("after the failover, %s (reported added) is matched by %v, want it", gr[0].ID, ms)
		case !slices.Contains(added, i) && len(ms) != 0:
			t.Logf("after the failover, %s (not reported added) is kept and matched: %v", gr[0].ID, ms)
		}
		if ok, err := after.Contains(ctx, gr[0].ID); err != nil || ok != (len(ms) > 0) {
			t.Errorf("after the failover, %s: kept %v (%v), matched %v: a kept page must be matched", gr[0].ID, ok, err, ms)
		}
	}
}

// BenchmarkReplicaAck measures MatchOrAdd of new pages (each kept) on a
// loopback primary with one replica, with ReplicaAck 0 and 1, on one slot
// and spread:
// the cost of waiting for the replica. Reports p50 and p99 in µs.
func BenchmarkReplicaAck(b *testing.B) {
	if addr == "" {
		servertest.Unavailable(b, "redis-server", noServer)
	}
	primary, stopPrimary, why := servertest.StartRedis("--repl-diskless-sync-delay", "0", "--dir", b.TempDir())
	if primary == "" {
		b.Fatal(why)
	}
	defer stopPrimary()
	_, stopReplica := servertest.StartReplica(b, primary)
	defer stopReplica()
	c := redis.NewClient(&redis.Options{Addr: primary})
	defer c.Close()
	const pages = 2000
	groups := detectortest.Groups(b, nil, detectortest.GroupSpec{Seed: 40, Groups: pages, Members: 2, Sentences: func(int) int { return 12 }})
	for _, mode := range []struct {
		spread bool
		ack    int
	}{{false, 0}, {false, 1}, {true, 0}, {true, 1}} {
		spread, ack := mode.spread, mode.ack
		b.Run(fmt.Sprintf("spread=%v/ack=%d", spread, ack), func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			n := 0
			var det *Detector
			for b.Loop() {
				if n%pages == 0 { // a fresh repository: every page new
					var err error
					det, err = New(Options{Client: c, Prefix: fmt.Sprintf("bench-ack%d-%d-%d", ack, n, time.Now().UnixNano()), Spread: spread, ReplicaAck: ack})
					if err != nil {
						b.Fatal(err)
					}
				}
				d := groups[n%pages][0]
				n++
				start := time.Now()
				_, added, err := det.MatchOrAdd(b.Context(), d)
				lat = append(lat, time.Since(start))
				if err != nil || !added {
					b.Fatalf("MatchOrAdd(%s) = %v, %v", d.ID, added, err)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-us")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-us")
		})
	}
}
