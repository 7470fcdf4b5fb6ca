package redisindex

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/internal/servertest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/minhash/internal/judge"
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

// repository returns a Detector over a fresh repository of the test's
// server, its keys spread over slots or not.
func repository(t testing.TB, spread bool) *Detector {
	t.Helper()
	c, prefix := client(t)
	det, err := New(Options{Client: c, Prefix: prefix, Spread: spread})
	if err != nil {
		t.Fatal(err)
	}
	return det
}

func TestConformance(t *testing.T) {
	c, prefix := client(t)
	n := 0
	for _, sc := range []detectortest.Script{detectortest.Latin, detectortest.Han} {
		detectortest.Run(t, detectortest.Suite{
			New: func() (neardup.Detector, error) {
				n++ // a fresh repository for each check
				return New(Options{Client: c, Prefix: fmt.Sprint(prefix, "-", n)})
			},
			Groups:   detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 31, Script: sc}),
			Measure:  minhash.JaccardDistance,
			Zero:     new(Detector),
			ZeroErrs: true,
		})
	}
}

func TestOptions(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, o := range []Options{{}, {Client: c, Prefix: "a{b}"}, {Client: c, Timeout: -1}, {Client: c, CallTTL: time.Microsecond},
		{Client: c, Minhash: minhash.Options{Keys: -1}}} {
		if _, err := New(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
}

// A repository refuses a Detector with other minhash options: their
// verdicts and keys would differ.
func TestOtherOptions(t *testing.T) {
	c, prefix := client(t)
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 32, Groups: 2, Members: 2})[0][0]
	a, _ := New(Options{Client: c, Prefix: prefix})
	if _, _, err := a.MatchOrAdd(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	b, _ := New(Options{Client: c, Prefix: prefix, Minhash: minhash.Options{ContentDistance: 0.3}})
	if _, err := b.Match(t.Context(), d); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("Match with other options: err = %v, want ErrInvalidOption", err)
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
	detectortest.Fleet(t, detectortest.FleetSpec{
		New: func() detectortest.FleetDetector {
			c, _ := client(t)
			det, err := New(Options{Client: c, Prefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			return det
		},
		Kept: func(det detectortest.FleetDetector, id string) (bool, error) {
			return det.(*Detector).Contains(context.Background(), id)
		},
		Len:  func(det detectortest.FleetDetector) (int, error) { return det.(*Detector).Len(context.Background()) },
		Cuts: []time.Duration{0, 100 * time.Microsecond, 300 * time.Microsecond, 600 * time.Microsecond},
		Seed: 33,
	})
}

// A call whose reply is lost and that the client sends again is answered
// from its record: the page is added once and the caller is told so, not
// that its page duplicates itself.
func TestRetriedCommit(t *testing.T) {
	c, prefix := client(t)
	det, _ := New(Options{Client: c, Prefix: prefix})
	ctx := context.Background()
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 34, Groups: 2, Members: 2})[0][0]
	r, err := det.record(d)
	if err != nil {
		t.Fatal(err)
	}
	rd, _, err := det.readPage(ctx, "MatchOrAdd", d, r, false, "")
	if err != nil {
		t.Fatal(err)
	}
	call := fleet.NewCall()
	for i := range 3 { // the first send ran; its reply was lost; two retries
		added, err := det.commit(ctx, "MatchOrAdd", d, rd, rd.seen, false, call)
		if err != nil || !added {
			t.Fatalf("send %d of one call: added %v, err %v", i, added, err)
		}
	}
	if n, _ := det.Len(ctx); n != 1 {
		t.Fatalf("%d pages kept, want 1", n)
	}
	// A new call adding the ID, read after it was kept, is a duplicate; one
	// read before, or a copy, conflicts (and reads again).
	fresh, _, err := det.readPage(ctx, "MatchOrAdd", d, r, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if added, err := det.commit(ctx, "MatchOrAdd", d, rd, rd.seen, false, fleet.NewCall()); added || err != nil {
		t.Errorf("a second call adding the ID, read before it was kept: added %v, err %v; want a conflict", added, err)
	}
	if _, err := det.commit(ctx, "MatchOrAdd", d, fresh, fresh.seen, false, fleet.NewCall()); !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("a second call adding the ID: err = %v, want ErrDuplicateID", err)
	}
	d2 := withID(d, "copy")
	r2, _ := det.record(d2)
	rd2 := *rd
	rd2.rec = r2
	if added, err := det.commit(ctx, "MatchOrAdd", d2, &rd2, rd.seen, false, fleet.NewCall()); added || err != nil {
		t.Errorf("commit after a page was filed under its keys: added %v, err %v; want a conflict", added, err)
	}
	if ms, added, err := det.MatchOrAdd(ctx, d2); added || err != nil || len(ms) != 1 || ms[0].ID != d.ID {
		t.Errorf("MatchOrAdd of a copy = %v, %v, %v; want the kept page", ms, added, err)
	}
}

// A page with nothing to be judged against is kept by the read itself; a
// read re-sent under the same call ID (its reply lost) is answered from
// the call's record, and a new call finds the page kept under its ID (its
// own page: added), under another ID its copy.
func TestRetriedRead(t *testing.T) {
	c, prefix := client(t)
	det, _ := New(Options{Client: c, Prefix: prefix})
	ctx := context.Background()
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 35, Groups: 1, Members: 2})[0][0]
	r, err := det.record(d)
	if err != nil {
		t.Fatal(err)
	}
	call := fleet.NewCall()
	for i := range 3 {
		if rd, added, err := det.readPage(ctx, "MatchOrAdd", d, r, false, call); err != nil || !added || rd != nil {
			t.Fatalf("send %d of one call: read %v, added %v, err %v; want added", i, rd, added, err)
		}
	}
	if n, _ := det.Len(ctx); n != 1 {
		t.Fatalf("%d pages kept, want 1", n)
	}
	rd, added, err := det.readPage(ctx, "MatchOrAdd", d, r, false, fleet.NewCall())
	if err != nil || added || rd.own == 0 {
		t.Fatalf("a new call for the kept ID: added %v, err %v, own %d; want a read that finds it", added, err, rd.own)
	}
	if ms, added, err := det.MatchOrAdd(ctx, d); err != nil || !added || len(ms) != 0 {
		t.Errorf("MatchOrAdd of the kept page again = %v, %v, %v; want its own page: added", ms, added, err)
	}
	if ms, added, err := det.MatchOrAdd(ctx, withID(d, "copy")); err != nil || added || len(ms) != 1 || ms[0].ID != d.ID {
		t.Errorf("MatchOrAdd of the kept page under another ID = %v, %v, %v; want its copy", ms, added, err)
	}
	if n := det.keyMisses.Load(); n != 0 {
		t.Errorf("%d reads derived other keys than the Judge's", n)
	}
}

// The read script takes the theme's counts of a page's blocks from the
// caller's theme set only when that set is the current one (its version is
// the repository's), and reads them otherwise: a process whose set is old
// derives keys from the theme as it is.
func TestThemeFlags(t *testing.T) {
	c, prefix := client(t)
	det, _ := New(Options{Client: c, Prefix: prefix})
	ctx := context.Background()
	// Block 7 is template on ThemeHosts hosts, at the theme's version 3.
	if err := c.HSet(ctx, det.prefix+":t", u32s([]uint32{7}), judge.ThemeHosts).Err(); err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, det.prefix+":tv", "3", 0)
	theme := int64(judge.ThemeHosts)
	for _, tc := range []struct {
		version, flags string
		want           []int64
	}{
		{"3", "01", []int64{0, theme}}, // current: the caller's set (here wrong on purpose) is taken
		{"2", "01", []int64{theme, 0}}, // old: the counts are read
		{"", "", []int64{theme, 0}},    // none
	} {
		a := det.writeArgs(ctx, "", u64(1), "h", u32s([]uint32{7, 9}), "id", u32s([]uint32{1, 2}), "\x00\x01",
			det.opts.Minhash.Keys, 0, 0, "", tc.version, tc.flags)
		res, err := readScript.Run(ctx, c, det.keys(), a...).Slice()
		if err != nil || len(res) != 8 {
			t.Fatalf("read with the theme set of version %q: %v, %v", tc.version, res, err)
		}
		got := fmt.Sprint(res[4])
		if want := fmt.Sprint(tc.want); got != want {
			t.Errorf("read with the theme set of version %q, flags %q: theme counts %s, want %s", tc.version, tc.flags, got, want)
		}
	}
}

// Remove forgets a page and its template counts; Replace keeps a page
// fetched again under its ID.
func TestRemoveReplace(t *testing.T) {
	c, prefix := client(t)
	det, _ := New(Options{Client: c, Prefix: prefix})
	ctx := context.Background()
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 35, Groups: 3, Members: 2})
	for _, gr := range g {
		if _, added, err := det.MatchOrAdd(ctx, gr[0]); !added || err != nil {
			t.Fatalf("MatchOrAdd(%s) = %v, %v", gr[0].ID, added, err)
		}
	}
	if err := det.Remove(ctx, g[0][0].ID); err != nil {
		t.Fatal(err)
	}
	if err := det.Remove(ctx, g[0][0].ID); !errors.Is(err, neardup.ErrUnknownID) {
		t.Errorf("second Remove: err = %v, want ErrUnknownID", err)
	}
	if ms, err := det.Match(ctx, g[0][1]); err != nil || len(ms) != 0 {
		t.Errorf("Match after Remove = %v, %v", ms, err)
	}
	// g[1][1] fetched again under g[1][0]'s ID replaces it.
	if ms, kept, err := det.Replace(ctx, withID(g[1][1], g[1][0].ID)); !kept || err != nil {
		t.Errorf("Replace with a near copy of itself = %v, %v, %v; want kept", ms, kept, err)
	}
	// g[2][1] under g[1][0]'s ID is near g[2][0]: not kept, and the old page is forgotten.
	if ms, kept, err := det.Replace(ctx, withID(g[2][1], g[1][0].ID)); kept || err != nil || len(ms) == 0 || ms[0].ID != g[2][0].ID {
		t.Errorf("Replace with a copy of another page = %v, %v, %v", ms, kept, err)
	}
	if ok, _ := det.Contains(ctx, g[1][0].ID); ok {
		t.Errorf("the replaced ID is still kept")
	}
	n, _ := det.Len(ctx)
	keys, _ := c.Keys(ctx, prefix+":m3:h:*").Result()
	if n != 1 || len(keys) == 0 {
		t.Errorf("%d pages, %d host models; want 1 and some", n, len(keys))
	}
}

// Pages offered by four processes, each taking the pages of its own hosts,
// get the in-process Detector's verdicts.
func TestSameVerdicts(t *testing.T) {
	c, prefix := client(t)
	var docs []*neardup.Document
	for _, sc := range []detectortest.Script{detectortest.Latin, detectortest.Han} {
		for _, g := range detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 36, Script: sc, Groups: 8}) {
			for _, d := range g {
				docs = append(docs, withID(d, fmt.Sprint(sc, d.ID)))
			}
		}
	}
	local, _ := minhash.New(minhash.Options{})
	want := map[string]bool{}
	for _, d := range docs {
		_, added, err := local.MatchOrAdd(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		want[d.ID] = added
	}
	det, _ := New(Options{Client: c, Prefix: prefix})
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]bool{}
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, d := range docs {
				if i%4 != w {
					continue
				}
				_, added, err := det.MatchOrAdd(t.Context(), d)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got[d.ID] = added
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	kept := 0
	for _, d := range docs {
		if got[d.ID] {
			kept++
		}
	}
	wantKept := 0
	for _, v := range want {
		if v {
			wantKept++
		}
	}
	if kept != wantKept {
		t.Errorf("%d pages kept through Redis, %d in process", kept, wantKept)
	}
}

// withID returns the page of d under another ID.
func withID(d *neardup.Document, id string) *neardup.Document {
	return &neardup.Document{ID: id, Host: d.Host, Raw: d.Raw, Page: d.Page}
}

// The postings' buckets grow with the repository (script.go): with the
// growth starting at 16 buckets instead of 65,536, a crawl of generated
// pages gets the verdicts of a repository whose buckets do not grow, every
// posting is found in the bucket its key names, and a page removed after
// the buckets grew leaves no posting behind.
func TestBucketsGrow(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	const minBuckets = 16
	grown, _ := New(Options{Client: c, Prefix: prefix + "-grown"})
	grown.cfg += fmt.Sprint("|buckets=", minBuckets)
	fixed, _ := New(Options{Client: c, Prefix: prefix + "-fixed"})
	var kept []string
	seen := map[string]bool{}
	for p, d := range benchtest.Crawl(t, 7, 1200) {
		gm, gadded, err := grown.MatchOrAdd(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		fm, fadded, err := fixed.MatchOrAdd(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if gadded != fadded || fmt.Sprint(gm) != fmt.Sprint(fm) {
			t.Fatalf("%s: growing buckets %v, %v; fixed %v, %v", p.ID, gm, gadded, fm, fadded)
		}
		if gadded && !seen[p.ID] { // a page crawled again is its own page: added again
			seen[p.ID] = true
			kept = append(kept, p.ID)
		}
	}
	removed := map[int64]bool{}
	for i, id := range kept {
		if i%5 != 0 {
			continue
		}
		h, err := c.HGet(ctx, grown.prefix+":ids", id).Int64()
		if err != nil {
			t.Fatal(err)
		}
		if err := grown.Remove(ctx, id); err != nil {
			t.Fatal(err)
		}
		removed[h] = true
	}
	next, err := c.Get(ctx, grown.prefix+":next").Int64()
	if err != nil {
		t.Fatal(err)
	}
	nb := max(minBuckets, next/4)
	if nb < 4*minBuckets {
		t.Fatalf("%d buckets after %d handles: the test does not make them grow", nb, next)
	}
	l := 0
	for 1<<(l+1) <= nb {
		l++
	}
	bucketOf := func(k uint32) string {
		i := int64(k) % (1 << l)
		if i < nb-1<<l {
			i = int64(k) % (1 << (l + 1))
		}
		return fmt.Sprintf("%s:k:%04x", grown.prefix, i)
	}
	names, err := c.Keys(ctx, grown.prefix+":k:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	postings := 0
	for _, name := range names {
		fields, err := c.HGetAll(ctx, name).Result()
		if err != nil {
			t.Fatal(err)
		}
		for k, ps := range fields {
			postings++
			if want := bucketOf(binary.BigEndian.Uint32([]byte(k))); name != want {
				t.Errorf("key %x filed in %s, its bucket is %s", k, name, want)
			}
			for p := 0; ps != "S" && p+8 <= len(ps); p += 8 {
				if h := int64(binary.BigEndian.Uint64([]byte(ps[p:]))); removed[h] {
					t.Errorf("key %x still lists the removed page %d", k, h)
				}
			}
		}
	}
	if postings == 0 || int64(len(names)) > nb {
		t.Errorf("%d postings in %d buckets; want some, in at most %d", postings, len(names), nb)
	}
}
