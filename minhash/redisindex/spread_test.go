package redisindex

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/minhash"
)

// The conformance suite and the fleet race, with the repository spread
// (on one server, the keys as a cluster would hold them).
func TestSpread(t *testing.T) {
	c, prefix := client(t)
	n := 0
	t.Run("conformance", func(t *testing.T) {
		detectortest.Run(t, detectortest.Suite{
			New: func() (neardup.Detector, error) {
				n++
				return New(Options{Client: c, Prefix: fmt.Sprint(prefix, "-", n), Spread: true})
			},
			Groups:   detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 41}),
			Measure:  minhash.JaccardDistance,
			Zero:     new(Detector),
			ZeroErrs: true,
		})
	})
	t.Run("fleet", func(t *testing.T) {
		detectortest.Fleet(t, detectortest.FleetSpec{
			New: func() detectortest.FleetDetector {
				c, _ := client(t)
				det, err := New(Options{Client: c, Prefix: prefix + "-fleet", Spread: true, LeaseTTL: 200 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				return det
			},
			Kept: func(det detectortest.FleetDetector, id string) (bool, error) {
				return det.(*Detector).Contains(context.Background(), id)
			},
			Len:  func(det detectortest.FleetDetector) (int, error) { return det.(*Detector).Len(context.Background()) },
			Cuts: []time.Duration{0, 300 * time.Microsecond, time.Millisecond, 3 * time.Millisecond},
			Seed: 42,
		})
	})
}

// A client that dies between filing a new page and committing it leaves no
// page anyone sees, and its leases hold the near-duplicates' calls back no
// longer than LeaseTTL; a client that stalls past its deadline cannot commit
// (its page is not kept twice): it reads again and finds the page kept
// meanwhile.
func TestSpreadDeath(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	newDet := func() *Detector {
		det, err := New(Options{Client: c, Prefix: prefix, Spread: true, LeaseTTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 43, Groups: 2, Members: 3})
	dying, other := newDet(), newDet()
	dying.beforeCommit = func() error { return errDied }
	if _, _, err := dying.MatchOrAdd(g[0][0]); err != errDied {
		t.Fatalf("the dying client's call: %v", err)
	}
	if ok, err := other.Contains(ctx, g[0][0].ID); ok || err != nil {
		t.Fatalf("a page whose client died before its commit is kept (%v)", err)
	}
	start := time.Now()
	ms, added, err := other.MatchOrAdd(g[0][1])
	waited := time.Since(start)
	if !added || err != nil {
		t.Fatalf("near-duplicate after the death: %v, %v, %v; want kept", ms, added, err)
	}
	if waited > 3*ttl {
		t.Errorf("waited %v for the dead client's leases (LeaseTTL %v)", waited, ttl)
	}
	if ms, err := other.Match(g[0][0]); err != nil || len(ms) != 1 || ms[0].ID != g[0][1].ID {
		t.Errorf("Match of the dead client's page = %v, %v; want only the page kept after", ms, err)
	}

	// A client that stalls past its deadline: another call keeps a
	// near-duplicate meanwhile; the stalled one cannot commit and finds it.
	stalled := newDet()
	released := make(chan struct{})
	stalled.beforeCommit = func() error {
		stalled.beforeCommit = nil
		<-released
		return nil
	}
	done := make(chan error, 1)
	var stalledMs []neardup.Match
	var stalledAdded bool
	go func() {
		var err error
		stalledMs, stalledAdded, err = stalled.MatchOrAdd(g[1][0])
		done <- err
	}()
	time.Sleep(ttl + 100*time.Millisecond) // its leases expire
	if _, added, err := other.MatchOrAdd(g[1][1]); !added || err != nil {
		t.Fatalf("near-duplicate while the other client stalls: added %v, %v", added, err)
	}
	close(released)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if stalledAdded || len(stalledMs) != 1 || stalledMs[0].ID != g[1][1].ID {
		t.Errorf("the stalled call: added %v, matches %v; want the page kept meanwhile", stalledAdded, stalledMs)
	}
	if n, err := other.Len(ctx); n != 2 || err != nil {
		t.Errorf("%d pages kept (%v), want 2", n, err)
	}
}
