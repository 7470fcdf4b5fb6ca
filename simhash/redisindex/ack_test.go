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

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/servertest"
)

// With ReplicaAck a write call answers only once the replica has its
// changes: a page reported added is on the replica when the call returns;
// with the replica stopped the call fails with ErrNotReplicated instead of
// answering, and once the replica goes on, the retry hears "added" (its own
// page). Without ReplicaAck the call answers with the replica stopped, and
// a failover to that replica (the primary killed, the replica promoted)
// loses the page it acknowledged, while the page of the call that failed
// was never reported added. On one slot and spread.
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
	o := Options{Client: pc, Prefix: "ack", MaxDistance: 6, Spread: spread, ReplicaAck: 1, ReplicaTimeout: 5 * time.Second}
	acked, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	o.ReplicaTimeout = 300 * time.Millisecond // for the calls made with the replica stopped
	impatient, _ := New(o)
	o.ReplicaAck = 0
	plain, _ := New(o)
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 38, Groups: 12, Members: 2})
	fromReplica, _ := New(Options{Client: rc, Prefix: "ack", MaxDistance: 6, Spread: spread})
	onReplica := func(id string) bool {
		_, ok, err := fromReplica.Lookup(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for _, gr := range g[:10] {
		if ms, added, err := acked.MatchOrAdd(ctx, gr[0]); err != nil || !added {
			t.Fatalf("MatchOrAdd(%s) = %v, %v, %v", gr[0].ID, ms, added, err)
		}
		if !onReplica(gr[0].ID) {
			t.Errorf("%s was reported added and is not on the replica", gr[0].ID)
		}
	}
	signal := servertest.Stop(t, replica)
	d := g[10][0]
	if _, added, err := impatient.MatchOrAdd(ctx, d); added || !errors.Is(err, ErrNotReplicated) || !errors.Is(err, ErrRedis) {
		t.Errorf("MatchOrAdd with the replica stopped = %v, %v; want ErrNotReplicated", added, err)
	}
	lost := g[11][0]
	if _, added, err := plain.MatchOrAdd(ctx, lost); err != nil || !added {
		t.Errorf("MatchOrAdd without ReplicaAck, the replica stopped = %v, %v; want added", added, err)
	}
	signal(syscall.SIGCONT)
	if ms, added, err := acked.MatchOrAdd(ctx, d); err != nil || !added || len(ms) != 0 {
		t.Errorf("the retry once the replica goes on = %v, %v, %v; want its own page: added", ms, added, err)
	}
	if !onReplica(d.ID) {
		t.Errorf("%s is not on the replica after the retry", d.ID)
	}

	// The failover: the replica stopped again, a page acknowledged
	// without ReplicaAck, the primary killed, the replica promoted.
	signal = servertest.Stop(t, replica)
	gone := &neardup.Document{ID: "gone", Page: lost.Page}
	if err := plain.Remove(ctx, lost.ID); err != nil {
		t.Fatal(err)
	}
	if _, added, err := plain.MatchOrAdd(ctx, gone); err != nil || !added {
		t.Fatalf("MatchOrAdd(gone) = %v, %v", added, err)
	}
	refused := g[10][1]
	if _, _, err := impatient.Replace(ctx, &neardup.Document{ID: "refused", Page: refused.Page}); !errors.Is(err, ErrNotReplicated) {
		t.Errorf("Replace with the replica stopped: %v, want ErrNotReplicated", err)
	}
	servertest.Kill(t, primary)
	signal(syscall.SIGCONT)
	if err := rc.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	after := fromReplica
	for _, gr := range g[:11] {
		if _, ok, err := after.Lookup(ctx, gr[0].ID); err != nil || !ok {
			t.Errorf("after the failover %s, acknowledged with ReplicaAck, is lost (%v)", gr[0].ID, err)
		}
		if ms, err := after.Match(ctx, gr[1]); err != nil || len(ms) != 1 || ms[0].ID != gr[0].ID {
			t.Errorf("after the failover %s is matched by %v (%v), want %s", gr[1].ID, ms, err, gr[0].ID)
		}
	}
	// Without ReplicaAck the page may or may not survive: on loopback a
	// stopped replica's socket still takes the stream, so it usually does.
	_, ok, _ := after.Lookup(ctx, "gone")
	t.Logf("the page acknowledged without ReplicaAck survived the failover: %v", ok)
}

// BenchmarkReplicaAck measures MatchOrAdd of new pages (each a write) on a
// loopback primary with one replica, with ReplicaAck 0 and 1, on one slot
// and spread: the cost of waiting for the replica. Reports p50 and p99 in µs.
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
	groups := detectortest.Groups(b, nil, detectortest.GroupSpec{Seed: 39, Groups: pages, Members: 2, Sentences: func(int) int { return 12 }})
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
					det, err = New(Options{Client: c, Prefix: fmt.Sprintf("bench-ack%d-%d-%d", ack, n, time.Now().UnixNano()), MaxDistance: 3, Spread: spread, ReplicaAck: ack})
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
