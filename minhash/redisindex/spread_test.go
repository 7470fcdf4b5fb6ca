package redisindex

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/fleet"
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

	// A client that stalls past its leases: another call keeps a
	// near-duplicate meanwhile, finds the stalled page pending under a key
	// it leases and aborts it; the stalled one cannot commit and finds the
	// other. The other page is of another host, so that the stalled call's
	// intent is not finished (and its page aborted) by the host's read.
	g[1][1].Host = "elsewhere.example"
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
	nd, err := neardup.NewDocument(new(preprocess.Pipeline), d.ID, "https://"+host+"/"+d.ID, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return nd
}

// model returns the template model a spread repository holds for the
// hosts of pages: each host's block counts and template set, and the theme
// counts of their blocks, as "kind host block" -> value; it fails the test
// when a host still has intents.
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
		if n, _ := det.client.ZCard(ctx, keys[3]).Result(); n != 0 {
			t.Errorf("%s: %d intents left", host, n)
		}
		if n, _ := det.client.HLen(ctx, keys[2]).Result(); n != 0 {
			t.Errorf("%s: %d intent values left", host, n)
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

// A client that dies after committing a page and before counting its
// blocks, or mid-Remove after marking its page removed, leaves an intent
// that the next call reading the host past its due time carries out: the
// template model is then the one of a repository where nobody died. A
// count step re-sent, or run by two clients at once, counts once; a page
// removed before its blocks were counted is counted neither way.
func TestSpreadCounts(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	const ttl = 200 * time.Millisecond
	pages := hostPages(t, []string{"lamps.example", "bulbs.example"}, 5)
	a, b := pages[0], pages[1]
	newDet := func(p string) *Detector {
		det, err := New(Options{Client: c, Prefix: p, Spread: true, LeaseTTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	handle := func(det *Detector, id string) string {
		h, err := det.client.HGet(ctx, det.spread.idBucket(id), id).Result()
		if err != nil {
			t.Fatalf("handle of %s: %v", id, err)
		}
		return h
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
			_, added, err := det.MatchOrAdd(d)
			if det == live && (!added || err != nil) || det != live && err != errDied {
				t.Fatalf("%s: added %v, %v", d.ID, added, err)
			}
		}
		for i := range 5 {
			for _, hp := range pages {
				switch {
				case hp[0].Host == a[0].Host && i == 1, hp[0].Host == b[0].Host && i == 3:
					add(dying(), hp[i]) // dies after its commit
				case hp[0].Host == a[0].Host && i == 2 && deaths:
					add(dying(), hp[i])
					// Its count step sent by two clients at once, then again.
					f := "A" + handle(live, hp[i].ID)
					var wg sync.WaitGroup
					for range 2 {
						wg.Go(func() {
							if err := newDet(p).count(ctx, hp[i].Host, f); err != nil {
								t.Error(err)
							}
						})
					}
					wg.Wait()
					if err := live.count(ctx, hp[i].Host, f); err != nil {
						t.Fatal(err)
					}
				default:
					add(live, hp[i])
				}
			}
		}
		// Removed before its count, by a client that does not die.
		if err := live.Remove(b[3].ID); err != nil {
			t.Fatal(err)
		}
		// A client dying mid-Remove, after marking the page removed.
		det := dying()
		if err := det.Remove(a[4].ID); det == live && err != nil || det != live && err != errDied {
			t.Fatalf("Remove of %s: %v", a[4].ID, err)
		}
		if ok, err := live.Contains(ctx, a[4].ID); ok || err != nil {
			t.Fatalf("%s is kept after its Remove (%v)", a[4].ID, err)
		}
		time.Sleep(2 * ttl) // every intent due
		var wg sync.WaitGroup
		for _, hp := range pages { // the host's next calls, two at once
			for _, d := range hp[:2] {
				wg.Go(func() {
					if _, err := newDet(p).Match(d); err != nil {
						t.Error(err)
					}
				})
			}
		}
		wg.Wait()
		if n, err := live.Len(ctx); n != 8 || err != nil {
			t.Errorf("%d pages kept (%v), want 8", n, err)
		}
		// Nothing is left of the intents but what model checks: the marks
		// of those done expire when they are due.
		if ks, err := c.Keys(ctx, p+":ms:{h:*}:d:*").Result(); len(ks) != 0 || err != nil {
			t.Errorf("%d marks of intents done left after their due time (%v)", len(ks), err)
		}
		// The removal the dying client left is finished: record deleted.
		if n, err := c.Keys(ctx, p+":ms:{r:*").Result(); len(n) != 8 || err != nil {
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
// documents have none) are those of the pages kept, one of each group, once
// the host's next calls have run, and no intent is left: call it when
// every intent is due.
func checkKeptCounts(t *testing.T, det *Detector, groups [][]*neardup.Document) {
	t.Helper()
	ctx := context.Background()
	host := ""
	keys := det.spread.hostKeys(host)
	for range 8 { // each call finishes at most 8 intents
		if _, err := det.Match(groups[0][0]); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := det.client.ZCard(ctx, keys[3]).Result(); n != 0 || err != nil {
		t.Errorf("%d intents left on host %q (%v)", n, host, err)
	}
	want := map[string]string{}
	for _, g := range groups {
		ms, _ := det.Match(g[0])
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

// A Remove that finds its page's uncounting intent held by another call's
// Remove, one whose client died before marking the page, waits for that
// intent's due time, drops it, and removes the page: uncounted once.
func TestSpreadRemoveBusy(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	const ttl = 200 * time.Millisecond
	pages := hostPages(t, []string{"lamps.example"}, 4)
	newDet := func(p string) *Detector {
		det, err := New(Options{Client: c, Prefix: p, Spread: true, LeaseTTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range pages[0] {
			if err := det.Add(d); err != nil {
				t.Fatal(err)
			}
		}
		return det
	}
	calm, det := newDet(prefix+"-calm"), newDet(prefix)
	if err := calm.Remove(pages[0][1].ID); err != nil {
		t.Fatal(err)
	}
	// The dead call's intent, as its Remove wrote it.
	id := pages[0][1].ID
	h, err := c.HGet(ctx, det.spread.idBucket(id), id).Result()
	if err != nil {
		t.Fatal(err)
	}
	r, err := det.judge.Record(pages[0][1])
	if err != nil {
		t.Fatal(err)
	}
	res, err := recordScript.Run(ctx, c, []string{det.spread.record(0)}).Slice()
	if err != nil {
		t.Fatal(err)
	}
	now, _ := res[1].(int64)
	if st, err := intentScript.Run(ctx, c, det.spread.hostKeys(r.Host()), "R"+h, "R"+fleet.NewCall()+u32s(r.Blocks()), now+ttl.Milliseconds()).Text(); st != "ok" || err != nil {
		t.Fatalf("the dead call's intent: %q, %v", st, err)
	}
	start := time.Now()
	if err := det.Remove(id); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < ttl/2 || waited > 4*ttl {
		t.Errorf("the Remove took %v; the dead call's intent was due in %v", waited, ttl)
	}
	if ok, err := det.Contains(ctx, id); ok || err != nil {
		t.Errorf("%s kept after its Remove (%v)", id, err)
	}
	if got, want := model(t, det, pages), model(t, calm, pages); !maps.Equal(got, want) {
		t.Errorf("template model %v, want %v (as nobody died)", got, want)
	}
}
