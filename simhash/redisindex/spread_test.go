package redisindex

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/simhash"
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
		newClient := func() redis.UniversalClient {
			c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 4})
			t.Cleanup(func() { c.Close() })
			return c
		}
		runFleet(t, newClient, Options{Prefix: prefix + "-fleet", MaxDistance: 6, Spread: true, LeaseTTL: 200 * time.Millisecond})
	})
}

// A writer that stalls past its leases, after reserving its handle or
// after its appends, before its commit, is overtaken: a near-duplicate
// offered meanwhile takes the leases and is kept (finding and aborting the
// stalled writer's pending entry, if appended); the stalled writer's
// appends are then refused by the lease check, or its commit because its
// handle was aborted, and its next attempt finds the near-duplicate.
// Exactly one of the two is kept, and neither is told it duplicates itself.
func TestSpreadStalledWriter(t *testing.T) {
	for _, step := range []string{"reserved", "appended"} {
		t.Run(step, func(t *testing.T) { stalledWriter(t, step) })
	}
}

func stalledWriter(t *testing.T, step string) {
	c, prefix := client(t)
	o := Options{Client: c, Prefix: prefix, MaxDistance: 6, Spread: true, LeaseTTL: 100 * time.Millisecond}
	slow, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 39, Groups: 1, Members: 2})[0]
	stalled, resume := make(chan struct{}), make(chan struct{})
	first := true
	slow.hook = func(s string) bool {
		if s == step && first {
			first = false
			close(stalled)
			<-resume
		}
		return false
	}
	type result struct {
		ms    []neardup.Match
		added bool
		err   error
	}
	done := make(chan result)
	go func() {
		ms, added, err := slow.MatchOrAdd(t.Context(), g[0])
		done <- result{ms, added, err}
	}()
	<-stalled
	ms, added, err := fast.MatchOrAdd(t.Context(), g[1])
	if err != nil || !added || len(ms) != 0 {
		t.Fatalf("the near-duplicate offered while the first writer stalled: %v, %v, %v; want added", ms, added, err)
	}
	close(resume)
	r := <-done
	if r.err != nil || r.added || len(r.ms) != 1 || r.ms[0].ID != g[1].ID {
		t.Fatalf("the stalled writer: %v, %v, %v; want refused, matching %s", r.ms, r.added, r.err, g[1].ID)
	}
	if n, err := fast.Len(context.Background()); err != nil || n != 1 {
		t.Errorf("%d pages kept (%v), want 1", n, err)
	}
	if _, ok, _ := fast.Lookup(context.Background(), g[0].ID); ok {
		t.Errorf("%s is kept though its commit was refused", g[0].ID)
	}
}

// A spread repository remembers its T_B too.
func TestSpreadMaxDistanceRecorded(t *testing.T) {
	c, prefix := client(t)
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 40, Groups: 1, Members: 2})[0]
	det8, _ := New(Options{Client: c, Prefix: prefix, Spread: true})
	if _, _, err := det8.MatchOrAdd(t.Context(), d[0]); err != nil {
		t.Fatal(err)
	}
	det3, _ := New(Options{Client: c, Prefix: prefix, MaxDistance: 3, Spread: true})
	if _, _, err := det3.MatchOrAdd(t.Context(), d[1]); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("MatchOrAdd with T_B 3 on a repository of T_B 8: %v, want ErrInvalidOption", err)
	}
	if _, err := det3.Match(t.Context(), d[1]); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("Match with T_B 3 on a repository of T_B 8: %v, want ErrInvalidOption", err)
	}
}

// A spread block key cut short is an error wrapping neardup.ErrCorrupt,
// as on one slot, for a read and a write (without the length check of the
// scripts' scan, Lua fails on the short tail: an error wrapping ErrRedis).
func TestSpreadCorrupt(t *testing.T) {
	c, prefix := client(t)
	det, err := New(Options{Client: c, Prefix: prefix, MaxDistance: 6, Spread: true})
	if err != nil {
		t.Fatal(err)
	}
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 41, Groups: 1, Members: 2})[0]
	if err := det.Add(t.Context(), g[0]); err != nil {
		t.Fatal(err)
	}
	fp, err := simhash.Of(g[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Append(context.Background(), det.blockKeys(nil, fp)[0], "cut").Err(); err != nil {
		t.Fatal(err)
	}
	if ms, err := det.Match(t.Context(), g[1]); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("Match with a block key cut short = %v, %v; want ErrCorrupt", ms, err)
	}
	if ms, added, err := det.MatchOrAdd(t.Context(), g[1]); added || !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("MatchOrAdd with a block key cut short = %v, %v, %v; want ErrCorrupt", ms, added, err)
	}
}

// A handle given again (a failover lost the bucket's last counter
// increments and the page that took them, while its entries survived on
// other shards) is no match for the surviving entries: the entry must be
// the page's own.
func TestSpreadHandleGivenAgain(t *testing.T) {
	c, prefix := client(t)
	det, err := New(Options{Client: c, Prefix: prefix, MaxDistance: 6, Spread: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 41, Groups: 2, Members: 2})
	a := &neardup.Document{ID: "a", Page: g[0][0].Page}
	if _, added, err := det.MatchOrAdd(ctx, a); err != nil || !added {
		t.Fatalf("MatchOrAdd(a) = %v, %v", added, err)
	}
	b := bucketOf("a")
	entry, err := c.HGet(ctx, spread{det}.bucketKey(b, "ids"), "a").Result()
	if err != nil {
		t.Fatal(err)
	}
	h := binary.BigEndian.Uint64([]byte(entry[8:]))
	// What a failover of a's bucket could lose: a's records and the
	// counter's increment. a's entries in the block keys stay.
	c.HDel(ctx, spread{det}.bucketKey(b, "ids"), "a")
	c.HDel(ctx, spread{det}.bucketKey(b, "names"), strconv.FormatUint(h, 10))
	c.Set(ctx, spread{det}.bucketKey(b, "next"), h/buckets-1, 0)
	id := ""
	for i := 0; id == ""; i++ {
		if cand := fmt.Sprint("b", i); bucketOf(cand) == b {
			id = cand
		}
	}
	if _, added, err := det.MatchOrAdd(ctx, &neardup.Document{ID: id, Page: g[1][0].Page}); err != nil || !added {
		t.Fatalf("MatchOrAdd(%s) = %v, %v", id, added, err)
	}
	if got, _ := c.HGet(ctx, spread{det}.bucketKey(b, "names"), strconv.FormatUint(h, 10)).Result(); got != id {
		t.Fatalf("handle %d names %q, want it given again to %s", h, got, id)
	}
	ms, err := det.Match(ctx, &neardup.Document{ID: "a2", Page: g[0][1].Page})
	if err != nil || len(ms) != 0 {
		t.Errorf("a near-duplicate of the lost page matches %v (%v), want nothing", ms, err)
	}
}
