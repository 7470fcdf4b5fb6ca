package redisindex

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/servertest"
)

// Through a proxy that drops the reply of every third script call, so that
// go-redis sends the script again after Redis ran it, four clients race
// MatchOrAdd over near-duplicate groups, with the repository on one slot
// and spread: no call errs, none is told its page is a near-duplicate of
// itself or a duplicate ID, every group keeps exactly one page, and every
// page a client was told it added is kept; spread, the host's block counts
// are the kept pages'. Then Add, Replace and Remove of
// distinct pages through the proxy: no spurious ErrDuplicateID or
// ErrUnknownID.
func TestDroppedReplies(t *testing.T) {
	for _, spread := range []bool{false, true} {
		t.Run(fmt.Sprint("spread=", spread), func(t *testing.T) {
			_, prefix := client(t)
			p := servertest.StartDropProxy(t, addr)
			newDet := func() *Detector {
				c := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 4, MaxRetries: 3})
				t.Cleanup(func() { c.Close() })
				det, err := New(Options{Client: c, Prefix: prefix, Spread: spread})
				if err != nil {
					t.Fatal(err)
				}
				return det
			}
			groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 46, Groups: 12, Members: 5})
			for _, g := range groups { // a template: lines on every page
				for i, d := range g {
					g[i] = withTemplate(t, d, "lamps.example")
				}
			}
			var clients []detectortest.Offer
			for w := range 4 {
				det := newDet()
				clients = append(clients, func(_ int, doc *neardup.Document) bool {
					ms, ok, err := det.MatchOrAdd(t.Context(), doc)
					if err != nil {
						t.Errorf("client %d: %s: %v", w, doc.ID, err)
						return false
					}
					detectortest.NotSelf(t, w, doc, ms)
					return ok
				})
			}
			added := detectortest.Race(groups, 2, nil, clients)
			evals, dropped, retried := p.Counts()
			t.Logf("%d script calls, %d replies dropped, %d sent again", evals, dropped, retried)
			if dropped == 0 || retried == 0 {
				t.Fatal("no reply was dropped and sent again: the test tests nothing")
			}
			det := newDet()
			ctx := context.Background()
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
			if spread { // each count step, its reply dropped and sent again, counted once
				checkKeptCounts(t, det, groups)
			}
			other := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 47, Groups: 6, Members: 2})
			for i, g := range other {
				id := fmt.Sprint("other-", i)
				if err := det.Add(ctx, withID(g[0], id)); err != nil {
					t.Errorf("Add %s: %v", id, err)
				}
				if _, kept, err := det.Replace(ctx, withID(g[1], id)); err != nil || !kept {
					t.Errorf("Replace %s: kept %v, %v", id, kept, err)
				}
				if err := det.Remove(ctx, id); errors.Is(err, neardup.ErrUnknownID) || err != nil {
					t.Errorf("Remove %s: %v", id, err)
				}
			}
		})
	}
}

// A call whose reply is lost and that the client does not re-send fails;
// the crawler's own retry, a new call, is told its page is kept, never
// that it duplicates itself (detectortest.LostReplies), on one slot and
// spread.
func TestLostReplies(t *testing.T) {
	for _, spread := range []bool{false, true} {
		t.Run(fmt.Sprint("spread=", spread), func(t *testing.T) {
			c, prefix := client(t)
			p := servertest.StartDropProxy(t, addr)
			if spread {
				p.DropEvery(100) // a spread write sends 40 to 50 scripts
			}
			flakyClient := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 4, MaxRetries: -1})
			t.Cleanup(func() { flakyClient.Close() })
			o := Options{Client: flakyClient, Prefix: prefix, Spread: spread, LeaseTTL: 200 * time.Millisecond}
			flaky, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			o.Client = c
			direct, _ := New(o)
			detectortest.LostReplies(t, detectortest.LostSpec{
				Flaky:  flaky,
				Direct: direct,
				Kept: func(det detectortest.FleetDetector, id string) (bool, error) {
					return det.(*Detector).Contains(context.Background(), id)
				},
				Seed: 37,
			})
		})
	}
}

// At a fault rate of 12 % per request (every command's reply dropped with
// that probability, a re-sent one too), with go-redis's own retries, every
// page is answered within 10 calls, on one slot and spread
// (detectortest.Faults); the calls each page took are logged.
func TestFaultRate(t *testing.T) {
	for _, spread := range []bool{false, true} {
		t.Run(fmt.Sprint("spread=", spread), func(t *testing.T) {
			c, prefix := client(t)
			p := servertest.StartDropProxy(t, addr)
			p.DropRate(0.12, 43)
			// go-redis re-sends a command whose reply was lost 3 times, after
			// 1 to 20 ms here (8 to 512 ms by default), as on a LAN.
			fc := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 4, MinRetryBackoff: time.Millisecond, MaxRetryBackoff: 20 * time.Millisecond})
			t.Cleanup(func() { fc.Close() })
			o := Options{Client: fc, Prefix: prefix, Spread: spread} // the default LeaseTTL: a call outlives a short one under faults, and starts again
			faulty, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			o.Client = c
			direct, _ := New(o)
			tries := detectortest.Faults(t, detectortest.FaultSpec{
				Faulty: faulty,
				Direct: direct,
				Kept: func(det detectortest.FleetDetector, id string) (bool, error) {
					return det.(*Detector).Contains(context.Background(), id)
				},
				Tries: 10,
				Seed:  44,
			})
			evals, dropped, _ := p.Counts()
			t.Logf("%d requests, %d replies dropped; pages answered at call 1..10: %v, never: %d", evals, dropped, tries[1:], tries[0])
		})
	}
}
