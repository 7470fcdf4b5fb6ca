package jepsen

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/neardup/neardup"
)

// check heals what is still broken and checks the run: what the clients
// were told (the lines) against what the repository keeps, through a
// client of its own without faults.
func (h *harness) check(groups [][]*neardup.Document) {
	t, r := h.t, &h.rep
	if h.replRelay != nil {
		h.replRelay.Release()
	}
	for _, p := range h.proxies {
		_, dropped, _ := p.Counts()
		r.Dropped += dropped
	}
	cf := h.cf
	if cf.Mode == Server {
		cf.Addrs = []string{h.primary}
	}
	client := newClient(cf, nil)
	defer client.Close()
	det, err := newFleet(cf, client, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r.LostWindow = h.s.Ack == 0 && r.Failovers > 0

	h.mu.Lock()
	lines := slices.Clone(h.lines)
	h.mu.Unlock()
	offered := map[string]time.Time{} // the first call of each page began then
	acked := map[string]bool{}        // pages some client was told it added
	firstV := map[int][]time.Time{}   // each client's verdict times
	for _, l := range lines {         // first: lines of different clients arrive in any order
		if _, ok := offered[l.ID]; !ok && l.Kind == "B" {
			offered[l.ID] = l.Time
		}
	}
	for _, l := range lines {
		switch l.Kind {
		case "E":
			r.Errors++
			if l.Bad {
				r.BadErrors++
				r.violate("client %d: %s: %s", l.Client, l.ID, l.Err)
			}
		case "G":
			r.GaveUp++
		case "V":
			r.Calls++
			firstV[l.Client] = append(firstV[l.Client], l.Time)
			if l.Added {
				acked[l.ID] = true
			}
			for _, m := range l.Matches {
				switch b, ok := offered[m]; {
				case m == l.ID:
					r.SelfMatch++
					r.violate("client %d: %s was told it duplicates itself", l.Client, l.ID)
				case groupOf(m) != groupOf(l.ID):
					r.Foreign++
					r.violate("client %d: %s was told it duplicates %s, of another group", l.Client, l.ID, m)
				case !ok || b.After(l.Time):
					r.Unoffered++
					r.violate("client %d: %s was told it duplicates %s, not offered before", l.Client, l.ID, m)
				}
			}
		}
	}

	// What is kept.
	kept := make([][]int, len(groups)) // the members kept of each group
	for gi, g := range groups {
		for mi, d := range g {
			ok, err := det.kept(ctx, d.ID)
			if err != nil {
				t.Fatalf("after the faults: is %s kept: %v", d.ID, err)
			}
			if ok {
				kept[gi] = append(kept[gi], mi)
				r.Kept++
			} else if acked[d.ID] {
				r.Lost++
				if !r.LostWindow {
					r.violate("%s was acknowledged as kept and is not", d.ID)
				}
			}
		}
		if len(kept[gi]) > 1 {
			r.TwoKept++
			if !r.LostWindow {
				r.violate("group %d keeps %d pages: members %v", gi, len(kept[gi]), kept[gi])
			}
		}
	}
	if n, err := det.Len(ctx); err != nil {
		t.Fatalf("after the faults: Len: %v", err)
	} else if n != r.Kept {
		r.LenMismatch++
		r.violate("Len = %d, %d pages kept", n, r.Kept)
	}

	// Every kept page is answered as its own when offered again, and a copy
	// of its group is matched to it.
	unmatched := func(format string, args ...any) {
		r.Unmatched++
		if !r.LostWindow {
			r.violate(format, args...)
		}
	}
	for gi, g := range groups {
		for _, mi := range kept[gi] {
			ms, added, err := det.MatchOrAdd(ctx, g[mi])
			if err != nil {
				t.Fatalf("after the faults: MatchOrAdd(%s): %v", g[mi].ID, err)
			}
			if !added || len(ms) != 0 {
				unmatched("%s, kept, offered again: added %v, matches %v; want its own page", g[mi].ID, added, ms)
			}
		}
		if len(kept[gi]) != 1 {
			continue
		}
		k := g[kept[gi][0]]
		c := g[(kept[gi][0]+1)%len(g)]
		ms, added, err := det.MatchOrAdd(ctx, &neardup.Document{ID: fmt.Sprint("copy-", gi), Page: c.Page})
		if err != nil {
			t.Fatalf("after the faults: MatchOrAdd(copy of %s): %v", c.ID, err)
		}
		if added || len(ms) != 1 || ms[0].ID != k.ID {
			unmatched("a copy of group %d: added %v, matches %v; want %s", gi, added, ms, k.ID)
		}
	}

	// Every client made progress after each fault healed, and how soon
	// (unless another fault began first).
	h.mu.Lock()
	heals, healOf, began := slices.Clone(h.heals), slices.Clone(h.healOf), slices.Clone(h.began)
	h.mu.Unlock()
	r.RecoveryBy = map[string]time.Duration{}
	for hi, heal := range heals {
		for w := range h.s.Clients {
			i, _ := slices.BinarySearchFunc(firstV[w], heal, func(a, b time.Time) int { return a.Compare(b) })
			if i == len(firstV[w]) {
				if hi == len(heals)-1 {
					r.NoProgress++
					r.violate("client %d: no verdict after the last fault healed", w)
				}
				continue
			}
			if j, _ := slices.BinarySearchFunc(began, heal, func(a, b time.Time) int { return a.Compare(b) }); j < len(began) && began[j].Before(firstV[w][i]) {
				continue // the next fault began before the client answered: not this one's recovery
			}
			d := firstV[w][i].Sub(heal).Round(10 * time.Millisecond)
			if d > r.Recovery {
				r.Slowest = slowest(lines, w, heal, firstV[w][i], healOf[hi])
			}
			r.Recovery = max(r.Recovery, d)
			r.RecoveryBy[healOf[hi]] = max(r.RecoveryBy[healOf[hi]], d)
		}
	}
}

// slowest describes client w's recovery from fault f, healed at heal,
// until its verdict at v: its failed calls meanwhile, the first two
// errors and every fifth.
func slowest(lines []Line, w int, heal, v time.Time, f string) string {
	var errs []string
	n := 0
	for _, l := range lines {
		if l.Client == w && l.Kind == "E" && l.Time.After(heal) && l.Time.Before(v) {
			n++
			if len(errs) < 2 || n%5 == 0 {
				errs = append(errs, fmt.Sprintf("+%v %s: %s", l.Time.Sub(heal).Round(time.Millisecond), l.ID, l.Err))
			}
		}
	}
	return fmt.Sprintf("client %d after %s: %d failed calls in %v; %s", w, f, n, v.Sub(heal).Round(time.Millisecond), strings.Join(errs, "; "))
}
