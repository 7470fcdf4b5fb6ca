package redisindex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/internal/servertest"
	"github.com/neardup/neardup/simhash"
)

// proxyClient returns a client of its own through p, retrying three times.
func proxyClient(t *testing.T, p *servertest.DropProxy) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 4, MaxRetries: 3})
	t.Cleanup(func() { c.Close() })
	return c
}

// Through a proxy that drops every third script reply, so that go-redis
// re-sends the script after Redis ran it: four clients race MatchOrAdd over
// near-duplicate groups, and no call errs, none is told its page is a
// near-duplicate of itself or a duplicate ID, every group keeps exactly one
// page, and every page a client was told it added is kept. Then Add,
// Replace and Remove of distinct pages through the proxy: no spurious
// ErrDuplicateID or ErrUnknownID.
func TestDroppedReplies(t *testing.T) {
	_, prefix := client(t) // skips without a server
	p := servertest.StartDropProxy(t, addr)
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 26, Groups: 12, Members: 6})
	newDet := func() *Detector {
		det, err := New(Options{Client: proxyClient(t, p), Prefix: prefix, MaxDistance: 6})
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	var clients []detectortest.Offer
	for w := range 4 {
		det := newDet()
		clients = append(clients, func(_ int, doc *neardup.Document) bool {
			ms, ok, err := det.MatchOrAdd(t.Context(), doc)
			if err != nil {
				t.Errorf("client %d: MatchOrAdd(%s): %v", w, doc.ID, err)
				return false
			}
			detectortest.NotSelf(t, w, doc, ms)
			return ok
		})
	}
	added := detectortest.Race(groups, 3, nil, clients)
	evals, dropped, retried := p.Counts()
	t.Logf("MatchOrAdd race: %d script calls, %d replies dropped, %d calls re-sent", evals, dropped, retried)
	if dropped == 0 || retried == 0 {
		t.Fatalf("the proxy dropped %d replies and saw %d re-sent; want some of each", dropped, retried)
	}
	det, err := New(Options{Client: redis.NewClient(&redis.Options{Addr: addr}), Prefix: prefix, MaxDistance: 6})
	if err != nil {
		t.Fatal(err)
	}
	for gi, g := range groups {
		ms, err := det.Match(t.Context(), g[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1 {
			t.Errorf("group %d: %d pages kept, want 1: %v", gi, len(ms), ms)
		}
	}
	for id := range added {
		if _, ok, err := det.Lookup(context.Background(), id); err != nil || !ok {
			t.Errorf("%s was reported added but is not kept (%v)", id, err)
		}
	}
	if n, err := det.Len(context.Background()); err != nil || n != len(groups) {
		t.Errorf("%d pages kept (%v) for %d groups", n, err, len(groups))
	}

	// Add, Replace and Remove: one page of each group under new IDs.
	pd := newDet()
	other := prefix + "-writes"
	pd.prefix = other + ":2"
	for gi, g := range groups {
		id := fmt.Sprint("page-", gi)
		if err := pd.Add(t.Context(), &neardup.Document{ID: id, Page: g[0].Page}); err != nil {
			t.Errorf("Add(%s): %v", id, err)
		}
	}
	for gi, g := range groups {
		id := fmt.Sprint("page-", gi)
		ms, kept, err := pd.Replace(t.Context(), &neardup.Document{ID: id, Page: g[1].Page})
		if err != nil || !kept || len(ms) != 0 {
			t.Errorf("Replace(%s) = %v, %v, %v; want kept", id, ms, kept, err)
		}
	}
	for gi := range groups {
		id := fmt.Sprint("page-", gi)
		if err := pd.Remove(t.Context(), id); err != nil {
			t.Errorf("Remove(%s): %v", id, err)
		}
	}
	if n, err := pd.Len(context.Background()); err != nil || n != 0 {
		t.Errorf("after removing every page, %d kept (%v)", n, err)
	}
	evals2, dropped2, retried2 := p.Counts()
	t.Logf("Add, Replace, Remove: %d script calls, %d replies dropped, %d calls re-sent", evals2-evals, dropped2-dropped, retried2-retried)
	if dropped2 == dropped {
		t.Error("no reply of Add, Replace or Remove was dropped")
	}
}

// A call whose reply is lost and that is sent again (same call ID) gets the
// recorded result; a call under a new ID runs again, and finds its own page
// (added, nothing written); another ID with the page finds it.
func TestCallRecord(t *testing.T) {
	c, prefix := client(t)
	det, err := New(Options{Client: c, Prefix: prefix, MaxDistance: 6, CallTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 27, Groups: 1, Members: 1})[0][0]
	ctx := context.Background()
	fp, err := simhash.Of(d)
	if err != nil {
		t.Fatal(err)
	}
	call := fleet.NewCall()
	run := func(mode, id string) []any {
		res, err := oneSlotScript.Run(ctx, c, oneSlot{det}.keys(fp, call, mode), oneSlot{det}.args(ctx, fp, mode, id)...).Slice()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		return res
	}
	if res := run(modeMatchOrAdd, d.ID); len(res) != 0 {
		t.Fatalf("first MatchOrAdd = %v, want added", res)
	}
	if res := run(modeMatchOrAdd, d.ID); len(res) != 0 {
		t.Fatalf("MatchOrAdd sent again = %v, want the recorded 'added'", res)
	}
	ttl, err := c.PTTL(ctx, det.prefix+":c:"+call).Result()
	if err != nil || ttl <= 50*time.Second || ttl > time.Minute {
		t.Errorf("call record's TTL = %v, %v; want about a minute", ttl, err)
	}
	long, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if ttl := det.fc.RecordTTL(long); ttl < 5*time.Minute || ttl > 5*time.Minute+time.Second {
		t.Errorf("record TTL of a call with 5 minutes left = %v, want 5 minutes and up to a second", ttl)
	}
	if ttl := det.fc.RecordTTL(ctx); ttl != time.Minute {
		t.Errorf("record TTL of a call without a deadline = %v, want CallTTL", ttl)
	}
	call = fleet.NewCall()
	if res := run(modeMatchOrAdd, d.ID); len(res) != 0 {
		t.Fatalf("MatchOrAdd under a new call ID = %v, want its own page: added", res)
	}
	if n, err := c.Exists(ctx, det.prefix+":c:"+call).Result(); err != nil || n != 0 {
		t.Errorf("its own page offered again wrote a call record (%d, %v)", n, err)
	}
	if res := run(modeMatchOrAdd, d.ID+"-copy"); len(res) != 2 || res[0] != d.ID || res[1] != int64(0) {
		t.Fatalf("MatchOrAdd of the page under another ID = %v, want %s at 0", res, d.ID)
	}
	// Remove, twice under one call ID: 1 both times.
	call = fleet.NewCall()
	for i := range 2 {
		n, err := oneSlotScript.Run(ctx, c, oneSlot{det}.keys(0, call, modeRemove), oneSlot{det}.args(ctx, 0, modeRemove, d.ID)...).Int()
		if err != nil || n != 1 {
			t.Fatalf("Remove #%d = %d, %v; want 1", i, n, err)
		}
	}
	if _, ok, _ := det.Lookup(ctx, d.ID); ok {
		t.Error("still kept after Remove")
	}
}

// A repository remembers its T_B: a detector with another one is refused.
func TestMaxDistanceRecorded(t *testing.T) {
	c, prefix := client(t)
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 28, Groups: 1, Members: 2})[0]
	det8, _ := New(Options{Client: c, Prefix: prefix})
	if k := det8.Options().MaxDistance; k != 8 {
		t.Errorf("default T_B = %d, want simhash's 8", k)
	}
	if _, _, err := det8.MatchOrAdd(t.Context(), d[0]); err != nil {
		t.Fatal(err)
	}
	det3, _ := New(Options{Client: c, Prefix: prefix, MaxDistance: 3})
	if _, _, err := det3.MatchOrAdd(t.Context(), d[1]); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("MatchOrAdd with T_B 3 on a repository of T_B 8: %v, want ErrInvalidOption", err)
	}
	if _, err := det3.Match(t.Context(), d[1]); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("Match with T_B 3 on a repository of T_B 8: %v, want ErrInvalidOption", err)
	}
}

// The scripts' blockKeys names the block keys of a fingerprint as the
// client does, for every T_B: Remove and Replace find a kept page's keys
// through it.
func TestScriptBlockKeys(t *testing.T) {
	c, prefix := client(t)
	script := redis.NewScript(entryLib + oneSlotLib + "return blockKeys(tonumber(ARGV[2]), tonumber(ARGV[3]))")
	r := rand.New(rand.NewPCG(29, 30))
	fps := []simhash.Fingerprint{0, 1, ^simhash.Fingerprint(0), 1 << 63, 0xFFFFFFFF, 0xFFFFFFFF00000000}
	for range 20 {
		fps = append(fps, simhash.Fingerprint(r.Uint64()))
	}
	for k := range MaxDistance + 1 {
		det, err := New(Options{Client: c, Prefix: prefix, MaxDistance: cmp.Or(k, simhash.Identical)})
		if err != nil {
			t.Fatal(err)
		}
		for _, fp := range fps {
			got, err := script.Run(context.Background(), c, oneSlot{det}.keys(fp, "", modeRemove), oneSlot{det}.args(context.Background(), fp, modeMatch, "")...).StringSlice()
			if want := (oneSlot{det}).blockKeys(nil, fp); err != nil || !slices.Equal(got, want) {
				t.Errorf("k %d, fp %#x: script's keys %q (%v), want %q", k, uint64(fp), got, err, want)
			}
		}
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
				p.DropEvery(100) // a spread call sends 25 to 50 scripts
			}
			flakyClient := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 4, MaxRetries: -1})
			t.Cleanup(func() { flakyClient.Close() })
			o := Options{Prefix: prefix, MaxDistance: 6, Spread: spread, LeaseTTL: 100 * time.Millisecond}
			o.Client = flakyClient
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
					_, ok, err := det.(*Detector).Lookup(context.Background(), id)
					return ok, err
				},
				Seed: 33,
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
			p.DropRate(0.12, 41)
			// go-redis re-sends a command whose reply was lost 3 times, after
			// 1 to 20 ms here (8 to 512 ms by default), as on a LAN.
			fc := redis.NewClient(&redis.Options{Addr: p.Addr(), PoolSize: 4, MinRetryBackoff: time.Millisecond, MaxRetryBackoff: 20 * time.Millisecond})
			t.Cleanup(func() { fc.Close() })
			o := Options{Client: fc, Prefix: prefix, MaxDistance: 6, Spread: spread} // the default LeaseTTL: a call outlives a short one under faults, and starts again
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
					_, ok, err := det.(*Detector).Lookup(context.Background(), id)
					return ok, err
				},
				Tries: 10,
				Seed:  42,
			})
			evals, dropped, _ := p.Counts()
			t.Logf("%d requests, %d replies dropped; pages answered at call 1..10: %v, never: %d", evals, dropped, tries[1:], tries[0])
		})
	}
}
