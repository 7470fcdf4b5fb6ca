package redisindex

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
)

// Data the scripts do not write is an error wrapping neardup.ErrCorrupt,
// never a verdict: a kept page's record deleted (its postings, its text
// hash and its ID name a handle with no record), a posting or a text hash
// naming a handle never kept, and (Spread) a record in no state.
func TestCorrupt(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 36, Groups: 3, Members: 2})
	det, err := New(Options{Client: c, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"a", "b", "c"} {
		if _, added, err := det.MatchOrAdd(ctx, &neardup.Document{ID: id, Host: g[i][0].Host, Page: g[i][0].Page}); err != nil || !added {
			t.Fatalf("MatchOrAdd(%s) = %v, %v", id, added, err)
		}
	}
	corrupt := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, neardup.ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", what, err)
		}
	}
	// a's record deleted.
	h, err := c.HGet(ctx, det.prefix+":ids", "a").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Del(ctx, det.prefix+":r:"+h).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = det.Match(ctx, g[0][1])
	corrupt("Match near a page whose record was deleted", err)
	_, added, err := det.MatchOrAdd(ctx, &neardup.Document{ID: "a2", Host: g[0][0].Host, Page: g[0][0].Page})
	corrupt("MatchOrAdd of a copy of a page whose record was deleted", err)
	if added {
		t.Error("a copy of a page whose record was deleted was kept")
	}
	_, _, err = det.MatchOrAdd(ctx, &neardup.Document{ID: "a", Host: g[2][1].Host, Page: g[2][1].Page})
	corrupt("MatchOrAdd under an ID whose record was deleted", err)

	// b's text hash and one of its postings name a handle never kept.
	hbID, err := c.HGet(ctx, det.prefix+":ids", "b").Result()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.Get(ctx, det.prefix+":r:"+hbID).Result()
	if err != nil {
		t.Fatal(err)
	}
	f, ok := splitEntry(rec)
	if !ok || len(f.keys) < 4 {
		t.Fatalf("b's entry: %v, %d bytes of keys", ok, len(f.keys))
	}
	key := f.keys[:4]
	bucket := fmt.Sprintf("%s:k:%04x", det.prefix, binary.BigEndian.Uint32([]byte(key))%65536)
	ps, err := c.HGet(ctx, bucket, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.HSet(ctx, bucket, key, ps+u64(1<<40)).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = det.Match(ctx, g[1][1])
	corrupt("Match with a posting naming no record", err)

	// Spread: a record in no state.
	sp, err := New(Options{Client: c, Prefix: prefix + "-spread", Spread: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, added, err := sp.MatchOrAdd(ctx, g[2][0]); err != nil || !added {
		t.Fatalf("spread MatchOrAdd = %v, %v", added, err)
	}
	hb, err := c.HGet(ctx, sp.spread.idBucket(g[2][0].ID), g[2][0].ID).Result()
	if err != nil || len(hb) != 8 {
		t.Fatalf("spread handle %q, %v", hb, err)
	}
	if err := c.Set(ctx, sp.spread.record(binary.BigEndian.Uint64([]byte(hb))), "garbage", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = sp.Match(ctx, g[2][1])
	corrupt("spread Match near a garbage record", err)
	_, err = sp.Contains(ctx, g[2][0].ID)
	corrupt("spread Contains of a garbage record", err)
	corrupt("spread Remove of a garbage record", sp.Remove(ctx, g[2][0].ID))
}
