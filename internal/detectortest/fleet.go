package detectortest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
)

// FleetDetector is a detector whose repository is shared by processes
// (simhash/redisindex, simhash/pgindex), with an atomic MatchOrAdd.
type FleetDetector interface {
	neardup.Detector
	neardup.MatchAdder
}

// FleetSpec describes the repository under test for Fleet.
type FleetSpec struct {
	// New returns a detector on connections of its own, over the one
	// repository under test.
	New func() FleetDetector
	// Kept reports whether det's repository keeps id; Len returns how many
	// pages it keeps.
	Kept func(det FleetDetector, id string) (bool, error)
	Len  func(det FleetDetector) (int, error)
	// Cuts are the deadlines of the client that is cut off mid-call, used
	// in turn; they should include 0 (always cut) and one long enough to
	// finish sometimes.
	Cuts []time.Duration
	// Seed seeds the groups.
	Seed uint64
}

// Fleet has four clients, each with a detector of its own, race
// MatchOrAdd over the same 12 near-duplicate groups, the fourth cut off
// mid-call by s.Cuts again and again. Then, through a fresh detector: every
// group ends with exactly one page kept (also after one more MatchOrAdd),
// every page a client was told it added is kept, and the repository keeps
// one page per group.
func Fleet(t *testing.T, s FleetSpec) {
	t.Helper()
	groups := Groups(t, nil, GroupSpec{Seed: s.Seed, Groups: 12, Members: 6})
	var mu sync.Mutex
	cut := 0 // calls of the cut-off client that failed
	var clients []Offer
	for w := range 4 {
		det := s.New()
		clients = append(clients, func(gi int, doc *neardup.Document) bool {
			ctx := context.Background()
			var cancel context.CancelFunc = func() {}
			if w == 3 { // the client that keeps being cut off
				ctx, cancel = context.WithTimeout(ctx, s.Cuts[gi%len(s.Cuts)])
			}
			_, ok, err := det.MatchOrAdd(ctx, doc)
			cancel()
			switch {
			case err != nil && w != 3:
				t.Errorf("client %d: %v", w, err)
			case err != nil:
				mu.Lock()
				cut++
				mu.Unlock()
			}
			return err == nil && ok
		})
	}
	added := Race(groups, 3, nil, clients)
	t.Logf("%d of %d calls of the cut-off client failed", cut, 3*len(groups))
	if cut == 0 {
		t.Error("the cut-off client was never cut off")
	}
	det := s.New()
	for gi, g := range groups {
		ms, err := det.Match(t.Context(), g[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) > 1 {
			t.Errorf("group %d: %d pages kept: %v", gi, len(ms), ms)
		}
		if _, _, err := det.MatchOrAdd(context.Background(), &neardup.Document{ID: fmt.Sprint("final-", gi), Page: g[1].Page}); err != nil {
			t.Fatal(err)
		}
		if ms, _ := det.Match(t.Context(), g[0]); len(ms) != 1 {
			t.Errorf("group %d after a final MatchOrAdd: %v, want exactly one", gi, ms)
		}
	}
	for id := range added {
		if ok, err := s.Kept(det, id); err != nil || !ok {
			t.Errorf("%s was reported added but is not kept (%v)", id, err)
		}
	}
	if n, err := s.Len(det); err != nil || n != len(groups) {
		t.Errorf("%d pages kept (%v) for %d groups", n, err, len(groups))
	}
}

// PersisterLen is a Persister that counts what it keeps.
type PersisterLen interface {
	neardup.Persister
	Len() int
}

// FuzzReadFrom fuzzes ReadFrom of the empty detectors newDet returns, seeded
// with the snapshot seed and a prefix of it: ReadFrom never panics, a failed
// read leaves the detector empty, and after a successful one selfMatch
// (which checks that loaded features match themselves) finds nothing wrong.
func FuzzReadFrom[D PersisterLen](f *testing.F, seed []byte, newDet func() D, selfMatch func(t *testing.T, det D)) {
	f.Add(seed)
	f.Add(seed[:min(20, len(seed))])
	f.Fuzz(func(t *testing.T, data []byte) {
		det := newDet()
		if _, err := det.ReadFrom(bytes.NewReader(data)); err != nil {
			if det.Len() != 0 {
				t.Fatalf("failed ReadFrom left %d documents", det.Len())
			}
			return
		}
		selfMatch(t, det)
	})
}

// Offer is one client of Race: it offers doc, the document of group gi of
// this round, and reports whether its detector kept it.
type Offer func(gi int, doc *neardup.Document) (added bool)

// Race has the clients, each in a goroutine of its own, offer the
// near-duplicate groups round after round, each client in an order of its
// own: in round r client w offers document (w+r) mod len(g) of group
// (gi·7 + w·5 + r) mod len(groups), under the ID "<its ID>#w<w>-r<r>". It
// stops after rounds rounds, or, when rounds is 0, once stop is closed, and
// returns the IDs the clients reported added.
func Race(groups [][]*neardup.Document, rounds int, stop <-chan struct{}, clients []Offer) map[string]bool {
	var mu sync.Mutex
	added := map[string]bool{}
	var wg sync.WaitGroup
	for w, offer := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; rounds == 0 || round < rounds; round++ {
				for gi := range groups {
					select {
					case <-stop:
						return
					default:
					}
					g := groups[(gi*7+w*5+round)%len(groups)]
					d := g[(w+round)%len(g)]
					doc := &neardup.Document{ID: fmt.Sprintf("%s#w%d-r%d", d.ID, w, round), Page: d.Page}
					if offer(gi, doc) {
						mu.Lock()
						added[doc.ID] = true
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	return added
}

// NotSelf fails t when a match of doc, reported to client w, is doc itself.
func NotSelf(t *testing.T, w int, doc *neardup.Document, ms []neardup.Match) {
	t.Helper()
	for _, m := range ms {
		if m.ID == doc.ID {
			t.Errorf("client %d: %s is a near-duplicate of itself", w, doc.ID)
		}
	}
}

// LostSpec describes the repository under test for LostReplies.
type LostSpec struct {
	// Flaky is a detector whose lost replies are errors: a client that
	// does not retry, through a servertest.DropProxy, which drops the reply of a
	// script call after the server ran it (every third, or fewer for a
	// protocol of many calls, so that one in about two calls fails).
	Flaky FleetDetector
	// Direct reaches the same repository without faults.
	Direct FleetDetector
	// Kept reports whether det's repository keeps id.
	Kept func(det FleetDetector, id string) (bool, error)
	// Seed seeds the groups.
	Seed uint64
}

// LostReplies checks neardup.MatchAdder's "own page" outcome through a
// backend, as a crawler whose call failed after its write landed sees it:
// Flaky offers the first page of each of 12 groups with MatchOrAdd until a
// call answers (at most 10 calls each), then once more, then (when Flaky is
// a neardup.Replacer) with Replace until one answers. Every answer
// is "added" (or "kept") with no matches: never a near-duplicate of itself,
// whether the failed call before it kept the page or not. Some calls must
// fail. Then, through Direct, each group keeps its page and only it.
func LostReplies(t *testing.T, s LostSpec) {
	t.Helper()
	groups := Groups(t, nil, GroupSpec{Seed: s.Seed, Groups: 12, Members: 2})
	ctx := context.Background()
	failed := 0
	offer := func(op string, d *neardup.Document, call func() ([]neardup.Match, bool, error)) {
		t.Helper()
		for try := 1; ; try++ {
			ms, ok, err := call()
			if err != nil {
				failed++
				if try == 10 {
					t.Errorf("%s(%s): %d calls failed, the last with %v", op, d.ID, try, err)
					return
				}
				continue
			}
			NotSelf(t, 0, d, ms)
			if !ok || len(ms) != 0 {
				t.Errorf("%s(%s) after %d failed calls = %v, %v; want its own page: kept, no matches", op, d.ID, try-1, ms, ok)
			}
			return
		}
	}
	rp, replacer := s.Flaky.(neardup.Replacer)
	for _, g := range groups {
		d := g[0]
		ma := func() ([]neardup.Match, bool, error) { return s.Flaky.MatchOrAdd(ctx, d) }
		offer("MatchOrAdd", d, ma)
		offer("MatchOrAdd", d, ma)
		if replacer {
			offer("Replace", d, func() ([]neardup.Match, bool, error) { return rp.Replace(ctx, d) })
		}
	}
	t.Logf("%d calls failed after a lost reply", failed)
	if failed == 0 {
		t.Error("no call failed: the replies were not dropped")
	}
	for gi, g := range groups {
		if ok, err := s.Kept(s.Direct, g[0].ID); err != nil || !ok {
			t.Errorf("group %d: %s is not kept (%v)", gi, g[0].ID, err)
		}
		ms, err := s.Direct.Match(ctx, g[1])
		if err != nil || len(ms) != 1 || ms[0].ID != g[0].ID {
			t.Errorf("group %d: Match(%s) = %v, %v; want %s only", gi, g[1].ID, ms, err, g[0].ID)
		}
	}
}

// FaultSpec describes the repository under test for Faults.
type FaultSpec struct {
	// Faulty is a detector whose connections go through a servertest.DropProxy set to
	// DropRate, with its client's own retries (go-redis re-sends a command
	// whose reply was lost).
	Faulty FleetDetector
	// Direct reaches the same repository without faults.
	Direct FleetDetector
	// Kept reports whether det's repository keeps id.
	Kept func(det FleetDetector, id string) (bool, error)
	// Tries bounds the calls of a page (a crawler's retries).
	Tries int
	// Seed seeds the groups.
	Seed uint64
}

// Faults offers the pages of 20 near-duplicate groups of 3 through Faulty
// with MatchOrAdd, each page until a call answers, and fails t when one
// does not within s.Tries calls. It returns how many calls each page took
// (a histogram: tries[n] pages answered at call n). Then, through Direct,
// each group keeps exactly one page, and every page reported added is kept.
func Faults(t *testing.T, s FaultSpec) (tries []int) {
	t.Helper()
	groups := Groups(t, nil, GroupSpec{Seed: s.Seed, Groups: 20, Members: 3, Sentences: func(int) int { return 12 }})
	tries = make([]int, s.Tries+1)
	added := map[string]bool{}
	ctx := context.Background()
	for _, g := range groups {
		for _, d := range g {
			for try := 1; ; try++ {
				ms, ok, err := s.Faulty.MatchOrAdd(ctx, d)
				if err == nil {
					NotSelf(t, 0, d, ms)
					if ok {
						added[d.ID] = true
					}
					tries[try]++
					break
				}
				if try == s.Tries {
					t.Errorf("MatchOrAdd(%s): no answer in %d calls, the last %v", d.ID, try, err)
					tries[0]++
					break
				}
			}
		}
	}
	for gi, g := range groups {
		ms, err := s.Direct.Match(ctx, g[0])
		if err != nil || len(ms) != 1 {
			t.Errorf("group %d: %v kept (%v), want exactly one", gi, ms, err)
		}
	}
	for id := range added {
		if ok, err := s.Kept(s.Direct, id); err != nil || !ok {
			t.Errorf("%s was reported added and is not kept (%v)", id, err)
		}
	}
	return tries
}
