package redisindex

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
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
// page anyone sees, its leases hold the near-duplicates' calls back no
// longer than LeaseTTL, and the near-duplicate's call, which finds its page
// pending, purges it; a client that stalls past its deadline cannot commit
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
	if _, _, err := dying.MatchOrAdd(ctx, g[0][0]); !errors.Is(err, errDied) {
		t.Fatalf("the dying client's call: %v", err)
	}
	records := func() int {
		ks, err := c.Keys(ctx, prefix+":ms2:{h:*}:r:*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return len(ks)
	}
	if n := records(); n != 1 {
		t.Fatalf("%d records after the death, want the dead client's page", n)
	}
	if ok, err := other.Contains(ctx, g[0][0].ID); ok || err != nil {
		t.Fatalf("a page whose client died before its commit is kept (%v)", err)
	}
	start := time.Now()
	ms, added, err := other.MatchOrAdd(ctx, g[0][1])
	waited := time.Since(start)
	if !added || err != nil {
		t.Fatalf("near-duplicate after the death: %v, %v, %v; want kept", ms, added, err)
	}
	if waited > 3*ttl {
		t.Errorf("waited %v for the dead client's leases (LeaseTTL %v)", waited, ttl)
	}
	if ms, err := other.Match(ctx, g[0][0]); err != nil || len(ms) != 1 || ms[0].ID != g[0][1].ID {
		t.Errorf("Match of the dead client's page = %v, %v; want only the page kept after", ms, err)
	}
	// Purged: its record and the posting of its ID (the others as well:
	// one purge unfiles them all).
	if n := records(); n != 1 {
		t.Errorf("%d records, want only the page kept after the death", n)
	}
	if h, err := c.HGet(ctx, other.spread.idBucket(g[0][0].ID), g[0][0].ID).Result(); err != redis.Nil {
		t.Errorf("the dead client's ID still names handle %x (%v)", h, err)
	}

	// A client that stalls past its leases: another call keeps a
	// near-duplicate meanwhile, finds the stalled page pending under a key
	// it leases and aborts it; the stalled one cannot commit and finds the
	// other.
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
		stalledMs, stalledAdded, err = stalled.MatchOrAdd(ctx, g[1][0])
		done <- err
	}()
	time.Sleep(ttl + 100*time.Millisecond) // its leases expire
	if _, added, err := other.MatchOrAdd(ctx, g[1][1]); !added || err != nil {
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

// hostPages returns n pages of each of hosts (withTemplate): each page a
// body of its own (no two near).
func hostPages(t *testing.T, hosts []string, n int) [][]*neardup.Document {
	t.Helper()
	bodies := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 46, Groups: len(hosts) * n, Members: 1,
		Sentences: func(int) int { return 4 }})
	out := make([][]*neardup.Document, len(hosts))
	for hi, host := range hosts {
		for i := range n {
			d := bodies[hi*n+i][0]
			d.ID = fmt.Sprintf("%s-%d", host, i)
			out[hi] = append(out[hi], withTemplate(t, d, host))
		}
	}
	return out
}

// withTemplate returns d's page on host, with the lines of its host's
// template around it and a line every host has (template on each, so in
// the theme).
func withTemplate(t *testing.T, d *neardup.Document, host string) *neardup.Document {
	t.Helper()
	text := fmt.Sprintf("Welcome to the %s catalogue of second hand lamps\n\nSign in or register to follow the %s sellers\n\n", host, host) +
		string(d.Raw) + "\n\nPowered by the lamplighter shop engine since the year of the comet, " +
		"with brass fittings polished weekly, orders shipped from the harbour warehouse, " +
		"returns accepted within thirty days and questions answered by our lamplighters\n"
	nd, err := neardup.NewDocument(new(preprocess.Pipeline), d.ID, "https://"+host+"/"+d.ID, "", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return nd
}

// model returns the template model a spread repository holds for the
// hosts of pages: each host's block counts and template set, and the theme
// counts of their blocks, as "kind host block" -> value; it fails the test
// when a host's log of template changes is not empty.
func model(t *testing.T, det *Detector, pages [][]*neardup.Document) map[string]string {
	t.Helper()
	ctx := context.Background()
	s := det.spread
	m := map[string]string{}
	for _, hp := range pages {
		host := hp[0].Host
		keys := s.hostKeys(host)
		counts, err := det.client.HGetAll(ctx, keys[0]).Result()
		if err != nil {
			t.Fatal(err)
		}
		for b, n := range counts {
			m[fmt.Sprintf("count %s %x", host, b)] = n
		}
		tmpl, _ := det.client.SMembers(ctx, keys[1]).Result()
		for _, b := range tmpl {
			m[fmt.Sprintf("template %s %x", host, b)] = "1"
		}
		if n, _ := det.client.HLen(ctx, keys[2]).Result(); n != 0 {
			t.Errorf("%s: %d template changes not applied", host, n)
		}
		for _, d := range hp {
			r, err := det.judge.Record(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range r.Blocks() {
				if n, err := det.client.HGet(ctx, s.themeBucket(b), u32s([]uint32{b})).Result(); err == nil {
					m[fmt.Sprintf("theme %x", b)] = n
				}
			}
		}
	}
	return m
}

// A page's blocks are counted in its host's model by its commit, and
// uncounted by the step that marks it removed, so a client that dies after
// either leaves the counts of a repository where nobody died; the template
// changes it did not apply to the theme counts are applied by the host's
// next call. A commit or a removal re-sent, or sent by two clients at once,
// counts once; a Remove of a page whose Remove died purges what is left.
func TestSpreadCounts(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	pages := hostPages(t, []string{"lamps.example", "bulbs.example"}, 5)
	a, b := pages[0], pages[1]
	newDet := func(p string) *Detector {
		det, err := New(Options{Client: c, Prefix: p, Spread: true})
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	handle := func(det *Detector, id string) uint64 {
		h, ok, err := spreadLayout{det}.handle(ctx, id)
		if !ok || err != nil {
			t.Fatalf("handle of %s: %v, %v", id, ok, err)
		}
		return h
	}
	// again sends the step that moved the record of d (to "C", or "D" by
	// call) twice at once and then again: nothing moves, nothing counts.
	again := func(det *Detector, d *neardup.Document, to, call string) {
		r, err := det.judge.Record(d)
		if err != nil {
			t.Fatal(err)
		}
		h := handle(det, d.ID)
		send := func() {
			if ok, err := det.move(ctx, h, r, to, call); !ok || err != nil {
				t.Errorf("%s sent again: %v, %v", to, ok, err)
			}
		}
		var wg sync.WaitGroup
		wg.Go(send)
		wg.Go(send)
		wg.Wait()
		send()
	}
	run := func(p string, deaths bool) map[string]string {
		live := newDet(p)
		dying := func() *Detector {
			if !deaths {
				return live
			}
			det := newDet(p)
			det.afterCommit = func() error { return errDied }
			return det
		}
		add := func(det *Detector, d *neardup.Document) {
			_, added, err := det.MatchOrAdd(ctx, d)
			if det == live && (!added || err != nil) || det != live && !errors.Is(err, errDied) {
				t.Fatalf("%s: added %v, %v", d.ID, added, err)
			}
		}
		for i := range 5 {
			for _, hp := range pages {
				switch {
				case hp[0].Host == a[0].Host && (i == 1 || i == 2), hp[0].Host == b[0].Host && i == 3:
					add(dying(), hp[i]) // dies after its commit
					if deaths && i == 2 {
						again(live, hp[i], "C", "")
					}
				default:
					add(live, hp[i])
				}
			}
		}
		if err := live.Remove(ctx, b[3].ID); err != nil {
			t.Fatal(err)
		}
		// A client dying mid-Remove, after marking the page removed; the
		// step sent again by its call; then a Remove of the page.
		if deaths {
			h := handle(live, a[4].ID)
			det := dying()
			if err := det.Remove(ctx, a[4].ID); !errors.Is(err, errDied) {
				t.Fatalf("Remove of %s: %v", a[4].ID, err)
			}
			v, err := c.Get(ctx, live.spread.record(h)).Result()
			if err != nil || v[0] != 'D' {
				t.Fatalf("the record after the dead Remove: %.1q, %v", v, err)
			}
			again(live, a[4], "D", v[1:17])
			if ok, err := live.Contains(ctx, a[4].ID); ok || err != nil {
				t.Fatalf("%s is kept after its Remove (%v)", a[4].ID, err)
			}
		}
		if err := live.Remove(ctx, a[4].ID); deaths && !errors.Is(err, neardup.ErrUnknownID) || !deaths && err != nil {
			t.Fatalf("Remove of %s: %v", a[4].ID, err)
		}
		var wg sync.WaitGroup
		for _, hp := range pages { // the host's next calls, two at once
			for _, d := range hp[:2] {
				wg.Go(func() {
					if _, err := newDet(p).Match(ctx, d); err != nil {
						t.Error(err)
					}
				})
			}
		}
		wg.Wait()
		if n, err := live.Len(ctx); n != 8 || err != nil {
			t.Errorf("%d pages kept (%v), want 8", n, err)
		}
		if n, err := c.Keys(ctx, p+":ms2:{h:*}:r:*").Result(); len(n) != 8 || err != nil {
			t.Errorf("%d records (%v), want 8", len(n), err)
		}
		return model(t, live, pages)
	}
	want := run(prefix+"-calm", false)
	themed, templates := 0, 0
	for k, v := range want {
		switch {
		case strings.HasPrefix(k, "theme ") && v == "2":
			themed++
		case strings.HasPrefix(k, "template "):
			templates++
		}
	}
	if themed == 0 || templates == 0 {
		t.Fatalf("the pages make %d template blocks and %d theme blocks; the test needs both", templates, themed)
	}
	got := run(prefix+"-deaths", true)
	if !maps.Equal(got, want) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q (as nobody died)", k, got[k], v)
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s = %q, want none (as nobody died)", k, v)
			}
		}
	}
}

// checkKeptCounts fails t unless the block counts of host "" (Race's
// documents have none) are those of the pages kept, one of each group, and
// no template change is left once the host's next call has run.
func checkKeptCounts(t *testing.T, det *Detector, groups [][]*neardup.Document) {
	t.Helper()
	ctx := context.Background()
	host := ""
	keys := det.spread.hostKeys(host)
	if _, err := det.Match(ctx, groups[0][0]); err != nil {
		t.Fatal(err)
	}
	if n, err := det.client.HLen(ctx, keys[2]).Result(); n != 0 || err != nil {
		t.Errorf("%d template changes not applied on host %q (%v)", n, host, err)
	}
	want := map[string]string{}
	for _, g := range groups {
		ms, _ := det.Match(ctx, g[0])
		if len(ms) != 1 {
			continue // the caller's to report
		}
		for _, d := range g {
			if id, _, _ := strings.Cut(ms[0].ID, "#"); d.ID == id {
				r, err := det.judge.Record(&neardup.Document{ID: ms[0].ID, Page: d.Page})
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range r.Blocks() {
					n, _ := strconv.Atoi(want[u32s([]uint32{b})])
					want[u32s([]uint32{b})] = strconv.Itoa(n + 1)
				}
			}
		}
	}
	got, err := det.client.HGetAll(ctx, keys[0]).Result()
	if err != nil || !maps.Equal(got, want) || !slices.Contains(slices.Collect(maps.Values(want)), strconv.Itoa(len(groups))) {
		t.Errorf("host %q: counts of %d blocks (%v); the pages kept have %d, the template's %d each", host, len(got), err, len(want), len(groups))
	}
}

// The theme counts take each host's template changes once, in whatever
// order they arrive: a change sent twice counts once, and a change older
// than the host's last one applied is ignored.
func TestSpreadTheme(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	det, err := New(Options{Client: c, Prefix: prefix, Spread: true})
	if err != nil {
		t.Fatal(err)
	}
	b := u32s([]uint32{7})
	tb := det.spread.themeBucket(7)
	for i, step := range []struct {
		host string
		seq  uint64
		on   bool
		want string // the count after
	}{
		{"a", 1, true, "1"},
		{"a", 1, true, "1"},  // sent again
		{"b", 2, false, "1"}, // b's changes out of order: its last first
		{"b", 1, true, "1"},
		{"b", 3, true, "2"},
		{"a", 2, false, "1"},
		{"a", 2, false, "1"},
		{"b", 4, false, ""}, // no host: the count deleted
	} {
		flag := "-"
		if step.on {
			flag = "+"
		}
		if err := themeScript.Run(ctx, c, []string{tb}, step.host, u64(step.seq), b+flag).Err(); err != nil {
			t.Fatal(err)
		}
		if got, _ := c.HGet(ctx, tb, b).Result(); got != step.want {
			t.Errorf("step %d (%s %d %v): count %q, want %q", i, step.host, step.seq, step.on, got, step.want)
		}
	}
}

// A Spread call that finds its page near a kept page remembers that first
// verdict under its text hash (the kept page's handle and the distance), as
// the one-slot read does, so that offered again it gets the same answer
// however the template model grows.
func TestSpreadRemember(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	det, err := New(Options{Client: c, Prefix: prefix, Spread: true})
	if err != nil {
		t.Fatal(err)
	}
	g := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 48, Groups: 1, Members: 2})[0]
	if _, added, err := det.MatchOrAdd(ctx, g[0]); !added || err != nil {
		t.Fatalf("%s: added %v, %v", g[0].ID, added, err)
	}
	ms, added, err := det.MatchOrAdd(ctx, g[1])
	if added || err != nil || len(ms) != 1 || ms[0].Score == 0 {
		t.Fatalf("%s: %v, added %v, %v; want a near match", g[1].ID, ms, added, err)
	}
	r, err := det.judge.Record(g[1])
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := spreadLayout{det}.handle(ctx, g[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	want := u64(h) + u64(math.Float64bits(ms[0].Score))
	if v, err := c.HGet(ctx, det.spread.verdBucket(r.TextHash()), u64(r.TextHash())).Result(); v != want || err != nil {
		t.Errorf("the verdict remembered: %x (%v), want %x", v, err, want)
	}
}
