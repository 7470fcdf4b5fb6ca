package redisindex

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/servertest"
	"github.com/neardup/neardup/simhash"
)

// addr is the address of the redis-server TestMain starts, or "" when
// there is none (the tests then skip, saying why).
var addr, noServer string

func TestMain(m *testing.M) {
	var stop func()
	addr, stop, noServer = servertest.StartRedis()
	code := m.Run()
	stop()
	os.Exit(code)
}

// client returns a client of its own, and a Prefix no other test uses.
func client(t testing.TB) (*redis.Client, string) {
	t.Helper()
	if addr == "" {
		servertest.Unavailable(t, "redis-server", noServer)
	}
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 4})
	t.Cleanup(func() { c.Close() })
	return c, fmt.Sprintf("test-%s-%d", t.Name(), time.Now().UnixNano())
}

func TestConformance(t *testing.T) {
	c, prefix := client(t)
	n := 0
	detectortest.Run(t, detectortest.Suite{
		New: func() (neardup.Detector, error) {
			n++ // a fresh repository for each check
			return New(Options{Client: c, Prefix: fmt.Sprint(prefix, "-", n), MaxDistance: 6})
		},
		Groups:   detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 21}),
		Measure:  "simhash-bits",
		Zero:     new(Detector),
		ZeroErrs: true,
	})
}

func TestOptions(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, o := range []Options{{}, {Client: c, MaxDistance: MaxDistance + 1}, {Client: c, MaxDistance: -2}, {Client: c, Prefix: "a{b}"}, {Client: c, Timeout: -1}, {Client: c, CallTTL: -1}, {Client: c, CallTTL: time.Microsecond},
		{Client: c, Spread: true, SingleSlot: true}, {Client: c, Spread: true, LeaseTTL: -1}, {Client: c, Spread: true, LeaseTTL: time.Microsecond}} {
		if _, err := New(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
	for k := range MaxDistance + 1 {
		det, err := New(Options{Client: c, MaxDistance: cmp.Or(k, simhash.Identical)})
		if err != nil {
			t.Fatal(err)
		}
		bits := uint(0)
		for _, b := range det.blocks {
			bits += b.Width
		}
		if len(det.blocks) != k+1 || bits != 64 {
			t.Errorf("k %d: %d blocks of %d bits in all", k, len(det.blocks), bits)
		}
	}
}

// A lost connection is an error, never a new page.
func TestUnreachable(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 50 * time.Millisecond, MaxRetries: 1})
	defer c.Close()
	det, _ := New(Options{Client: c, Timeout: time.Second})
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 22, Groups: 2, Members: 2})[0][0]
	ms, added, err := det.MatchOrAdd(t.Context(), d)
	if !errors.Is(err, ErrRedis) || added || ms != nil {
		t.Errorf("MatchOrAdd against no server = %v, %v, %v; want an ErrRedis error", ms, added, err)
	}
}

// Four clients on connections of their own race MatchOrAdd over the same
// near-duplicate groups, one of them cut off mid-call again and again: every
// group ends with exactly one page kept, and every page a client was told it
// added is kept.
func TestFleet(t *testing.T) {
	_, prefix := client(t)
	runFleet(t, func() redis.UniversalClient { c, _ := client(t); return c }, Options{Prefix: prefix, MaxDistance: 6})
}

// fleet is TestFleet with clients from newClient and the detectors' options
// o (but for Client): detectortest.Fleet, the client cut off after 0 to
// 150 µs.
func runFleet(t *testing.T, newClient func() redis.UniversalClient, o Options) {
	newDet := func() detectortest.FleetDetector {
		o := o
		o.Client = newClient()
		det, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	detectortest.Fleet(t, detectortest.FleetSpec{
		New: newDet,
		Kept: func(det detectortest.FleetDetector, id string) (bool, error) {
			_, ok, err := det.(*Detector).Lookup(context.Background(), id)
			return ok, err
		},
		Len:  func(det detectortest.FleetDetector) (int, error) { return det.(*Detector).Len(context.Background()) },
		Cuts: []time.Duration{0, 50 * time.Microsecond, 100 * time.Microsecond, 150 * time.Microsecond},
		Seed: 23,
	})
}

// Options returns the options in effect, and New(det.Options()) makes the
// same detector: T_B = 0 comes back as simhash.Identical, not as zero (which
// would ask for the default), and the prefix without SingleSlot's braces.
// New does not contact Redis, so this needs no server.
func TestOptionsRoundTrip(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	for _, tc := range []struct{ in, want Options }{
		{Options{Client: c}, Options{Client: c, Prefix: "neardup", MaxDistance: DefaultMaxDistance, Timeout: DefaultTimeout, CallTTL: DefaultCallTTL}},
		{Options{Client: c, Prefix: "p", MaxDistance: simhash.Identical, SingleSlot: true, Timeout: time.Second, CallTTL: time.Hour},
			Options{Client: c, Prefix: "p", MaxDistance: simhash.Identical, SingleSlot: true, Timeout: time.Second, CallTTL: time.Hour}},
		{Options{Client: c, Prefix: "q", MaxDistance: 3}, Options{Client: c, Prefix: "q", MaxDistance: 3, Timeout: DefaultTimeout, CallTTL: DefaultCallTTL}},
		{Options{Client: c, Spread: true}, Options{Client: c, Prefix: "neardup", MaxDistance: DefaultMaxDistance, Timeout: DefaultTimeout, CallTTL: DefaultCallTTL, Spread: true, LeaseTTL: DefaultLeaseTTL}},
	} {
		det, err := New(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := det.Options(); got != tc.want {
			t.Errorf("New(%+v).Options() = %+v, want %+v", tc.in, got, tc.want)
		}
		again, err := New(det.Options())
		if err != nil {
			t.Fatalf("New(det.Options()): %v", err)
		}
		if again.Options() != det.Options() || again.k != det.k || again.prefix != det.prefix {
			t.Errorf("New(%+v): round trip gives prefix %q, k %d; want %q, %d", tc.in, again.prefix, again.k, det.prefix, det.k)
		}
	}
}

// Data the scripts do not write (a handle with no ID, a block key cut
// short, an ID's entry of another size) is an error wrapping
// neardup.ErrCorrupt, never a verdict, and a Replace that meets it changes
// nothing.
func TestCorrupt(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	det, err := New(Options{Client: c, Prefix: prefix, MaxDistance: 6})
	if err != nil {
		t.Fatal(err)
	}
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 34, Groups: 3, Members: 2})
	for _, id := range []string{"a", "b", "c"} {
		if err := det.Add(ctx, &neardup.Document{ID: id, Page: g[id[0]-'a'][0].Page}); err != nil {
			t.Fatal(err)
		}
	}
	entry, err := c.HGet(ctx, det.prefix+":ids", "a").Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.HDel(ctx, det.prefix+":names", fmt.Sprint(binary.BigEndian.Uint64(entry[8:]))).Err(); err != nil {
		t.Fatal(err)
	}
	if ms, err := det.Match(ctx, g[0][1]); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("Match of a page near a handle with no ID = %v, %v; want ErrCorrupt", ms, err)
	}
	if ms, added, err := det.MatchOrAdd(ctx, &neardup.Document{ID: "x", Page: g[0][1].Page}); added || !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("MatchOrAdd of a page near a handle with no ID = %v, %v, %v; want ErrCorrupt", ms, added, err)
	}
	if ms, kept, err := det.Replace(ctx, &neardup.Document{ID: "b", Page: g[0][1].Page}); kept || !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("Replace near a handle with no ID = %v, %v, %v; want ErrCorrupt", ms, kept, err)
	}
	fpOf := func(d *neardup.Document) simhash.Fingerprint {
		fp, err := simhash.Of(d)
		if err != nil {
			t.Fatal(err)
		}
		return fp
	}
	if fp, ok, err := det.Lookup(ctx, "b"); err != nil || !ok || fp != fpOf(g[1][0]) {
		t.Errorf("after the refused Replace, b is %v, %v, %v; want its page kept", fp, ok, err)
	}
	keys := oneSlot{det}.blockKeys(nil, fpOf(g[2][0]))
	if err := c.Append(ctx, keys[0], "cut").Err(); err != nil {
		t.Fatal(err)
	}
	if ms, err := det.Match(ctx, g[2][1]); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("Match with a block key cut short = %v, %v; want ErrCorrupt", ms, err)
	}
	if err := c.HSet(ctx, det.prefix+":ids", "c", "short").Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := det.Lookup(ctx, "c"); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("Lookup of an entry of 5 bytes: %v, want ErrCorrupt", err)
	}
}
