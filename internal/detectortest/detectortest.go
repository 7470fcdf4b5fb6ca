// Package detectortest is the conformance suite every neardup Detector runs:
// the contracts of the neardup interfaces checked the same way for every
// method, so that a Cascade or a crawler can rely on them whatever the method.
//
// Run checks, each as a subtest:
//
//   - errors: nil documents and documents without a Page wrap
//     neardup.ErrNilDocument; a document without features wraps
//     neardup.ErrNoFeatures; a second Add of an ID wraps
//     neardup.ErrDuplicateID; Remove of an unknown ID wraps
//     neardup.ErrUnknownID; Add, MatchOrAdd and Replace of the empty ID or
//     of one over neardup.MaxIDLen bytes wrap neardup.ErrInvalidID, quote
//     no more than a prefix of it and keep nothing, and an ID of exactly
//     MaxIDLen bytes is kept and matched; none of them panics.
//   - own: a page offered again under its own kept ID (a retry) hears
//     "added" (MatchOrAdd) or "kept" (Replace) with no matches, however
//     often, also once a near-duplicate was kept by a plain Add, and
//     nothing changes; its ID with another page that matches nothing is
//     neardup.ErrDuplicateID (neardup.MatchAdder).
//   - groups: with the first document of every group kept, every other
//     document matches its group's first and nothing else; a kept document
//     matches itself at distance 0; matches are sorted by Score, each has a
//     finite, non-negative Score and the detector's Measure.
//   - verify: Verify(d, Match(d)) is Match(d); Verify over every kept ID,
//     unknown IDs and repeats is a subset of Match(d) with the same scores,
//     each ID once.
//   - remove: a removed document is matched no more, the ID can be kept
//     again, and Len (when the detector has it) counts.
//   - replace: Replace (when the detector has it) keeps a page fetched again
//     in place of its ID's, or drops the ID when the page now duplicates
//     another kept one.
//   - matchoradd: goroutines racing MatchOrAdd (and Match) over copies of
//     every group keep exactly one document per group (run it with -race).
//   - stress: goroutines racing MatchOrAdd, Replace and Remove over a few IDs
//     per group never leave two documents of a group kept.
//   - persist: a Persister's snapshot read back into a new detector gives
//     the same answers; every truncation (a dense sample of offsets), every
//     flipped byte (a sample) and a snapshot of other options is an error
//     that leaves the reader as it was; Restore installs nothing until asked.
//   - zero: the detector's zero value, when given, works with the method's
//     defaults (or returns errors, as the Suite says), and never panics.
//
// Beside Run: Fleet races clients of a repository shared by processes
// (simhash/redisindex, simhash/pgindex), and FuzzReadFrom is the body of every
// detector's snapshot-reading fuzz target.
package detectortest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/race"
	"github.com/neardup/neardup/preprocess"
)

// Suite describes a detector under test.
type Suite struct {
	// New returns an empty detector.
	New func() (neardup.Detector, error)
	// Groups are documents in near-duplicate groups: the detector must find
	// every document near the first of its group and no document near
	// another group's. IDs must be unique. Every group needs at least two
	// documents; Run needs at least two groups.
	Groups [][]*neardup.Document
	// NoFeatures is a document the method cannot decide (it must return an
	// error wrapping neardup.ErrNoFeatures), or nil to skip that check.
	NoFeatures *neardup.Document
	// Measure is the unit every Match must carry.
	Measure neardup.Measure
	// Zero is a pointer to the detector type's zero value (for example
	// new(simhash.Detector)), or nil when the type has none to check.
	Zero neardup.Detector
	// Other returns an empty detector of the same type with other options,
	// whose snapshots New's detector must refuse (ErrSnapshotMismatch), or
	// nil to skip that check.
	Other func() (neardup.Detector, error)
	// ZeroErrs says that Zero is not usable and must return errors
	// (wrapping neardup.ErrInvalidOption); otherwise it must work with the
	// method's default options: a kept document matches itself and the
	// other documents of its group.
	ZeroErrs bool
}

type lener interface{ Len() int }

// Full is every interface of package neardup a method's Detector implements
// through the module's Core; each method package's tests assert it
// (var _ detectortest.Full = (*Detector)(nil)).
type Full interface {
	neardup.Detector
	neardup.Verifier
	neardup.Remover
	neardup.MatchAdder
	neardup.Replacer
	neardup.Persister
}

// Run runs the conformance suite.
func Run(t *testing.T, s Suite) {
	t.Helper()
	if s.New == nil || len(s.Groups) < 2 || s.Measure == "" {
		t.Fatal("detectortest: Suite needs New, Measure and at least two groups")
	}
	for i, g := range s.Groups {
		if len(g) < 2 {
			t.Fatalf("detectortest: group %d has %d documents, want at least 2", i, len(g))
		}
	}
	t.Run("errors", func(t *testing.T) { testErrors(t, s) })
	t.Run("groups", func(t *testing.T) { testGroups(t, s, mustNew(t, s)) })
	t.Run("own", func(t *testing.T) { testOwn(t, s) })
	t.Run("verify", func(t *testing.T) { testVerify(t, s) })
	t.Run("remove", func(t *testing.T) { testRemove(t, s) })
	t.Run("replace", func(t *testing.T) { testReplace(t, s) })
	t.Run("matchoradd", func(t *testing.T) { testMatchOrAdd(t, s) })
	t.Run("persist", func(t *testing.T) { testPersist(t, s) })
	t.Run("stress", func(t *testing.T) { testStress(t, s) })
	if s.Zero != nil {
		t.Run("zero", func(t *testing.T) { testZero(t, s) })
	}
}

func mustNew(t *testing.T, s Suite) neardup.Detector {
	t.Helper()
	det, err := s.New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if det == nil {
		t.Fatal("New returned a nil detector")
	}
	return det
}

// keepFirsts adds the first document of every group.
func keepFirsts(t *testing.T, det neardup.Detector, groups [][]*neardup.Document) {
	t.Helper()
	for _, g := range groups {
		if err := det.Add(t.Context(), g[0]); err != nil {
			t.Fatalf("Add(%q): %v", g[0].ID, err)
		}
	}
}

func testErrors(t *testing.T, s Suite) {
	det := mustNew(t, s)
	for _, bad := range []*neardup.Document{nil, {ID: "no-page"}} {
		if _, err := det.Match(t.Context(), bad); !errors.Is(err, neardup.ErrNilDocument) {
			t.Errorf("Match(%v): err = %v, want ErrNilDocument", bad, err)
		}
		if err := det.Add(t.Context(), bad); !errors.Is(err, neardup.ErrNilDocument) {
			t.Errorf("Add(%v): err = %v, want ErrNilDocument", bad, err)
		}
		if v, ok := det.(neardup.Verifier); ok {
			if _, err := v.Verify(t.Context(), bad, nil); !errors.Is(err, neardup.ErrNilDocument) {
				t.Errorf("Verify(%v): err = %v, want ErrNilDocument", bad, err)
			}
		}
		if ma, ok := det.(neardup.MatchAdder); ok {
			if _, added, err := ma.MatchOrAdd(t.Context(), bad); added || !errors.Is(err, neardup.ErrNilDocument) {
				t.Errorf("MatchOrAdd(%v): added %v, err = %v, want ErrNilDocument", bad, added, err)
			}
		}
	}
	if d := s.NoFeatures; d != nil {
		if ms, err := det.Match(t.Context(), d); !errors.Is(err, neardup.ErrNoFeatures) {
			t.Errorf("Match(no features) = %v, %v; want ErrNoFeatures", ms, err)
		}
		if err := det.Add(t.Context(), d); !errors.Is(err, neardup.ErrNoFeatures) {
			t.Errorf("Add(no features): err = %v, want ErrNoFeatures", err)
		}
	}
	first := s.Groups[0][0]
	if err := det.Add(t.Context(), first); err != nil {
		t.Fatalf("Add(%q): %v", first.ID, err)
	}
	again := copyDoc(s.Groups[1][0], first.ID)
	if err := det.Add(t.Context(), again); !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("second Add(%q): err = %v, want ErrDuplicateID", first.ID, err)
	}
	if r, ok := det.(neardup.Remover); ok {
		if err := r.Remove(t.Context(), "detectortest-unknown"); !errors.Is(err, neardup.ErrUnknownID) {
			t.Errorf("Remove(unknown): err = %v, want ErrUnknownID", err)
		}
	}
	testIDs(t, s)
}

// testIDs checks that the empty ID and IDs over neardup.MaxIDLen bytes are
// refused by every writing method, with a short message, and that an ID of
// MaxIDLen bytes is kept.
func testIDs(t *testing.T, s Suite) {
	det := mustNew(t, s)
	page := s.Groups[0][1]
	long := strings.Repeat("L", neardup.MaxIDLen+1)
	for _, id := range []string{"", long} {
		d := copyDoc(page, id)
		what := fmt.Sprintf("ID of %d bytes", len(id))
		refused := func(op string, err error) {
			t.Helper()
			if !errors.Is(err, neardup.ErrInvalidID) {
				t.Errorf("%s(%s): err = %v, want ErrInvalidID", op, what, err)
			} else if n := len(err.Error()); n > 300 {
				t.Errorf("%s(%s): error message of %d bytes, want a prefix of the ID only", op, what, n)
			}
		}
		refused("Add", det.Add(t.Context(), d))
		if ma, ok := det.(neardup.MatchAdder); ok {
			_, added, err := ma.MatchOrAdd(t.Context(), d)
			refused("MatchOrAdd", err)
			if added {
				t.Errorf("MatchOrAdd(%s) added it", what)
			}
		}
		if rp, ok := det.(neardup.Replacer); ok {
			_, kept, err := rp.Replace(t.Context(), d)
			refused("Replace", err)
			if kept {
				t.Errorf("Replace(%s) kept it", what)
			}
		}
	}
	if ms, err := det.Match(t.Context(), page); err != nil || len(ms) != 0 {
		t.Errorf("after refusing the IDs, Match = %v, %v; want nothing kept", ms, err)
	}
	// With a kept page that the refused IDs' page matches: still refused.
	if err := det.Add(t.Context(), s.Groups[0][0]); err != nil {
		t.Fatal(err)
	}
	if ma, ok := det.(neardup.MatchAdder); ok {
		if _, _, err := ma.MatchOrAdd(t.Context(), copyDoc(page, "")); !errors.Is(err, neardup.ErrInvalidID) {
			t.Errorf("MatchOrAdd(empty ID, a near-duplicate of a kept page): err = %v, want ErrInvalidID", err)
		}
	}
	longest := copyDoc(s.Groups[1][0], strings.Repeat("M", neardup.MaxIDLen))
	if err := det.Add(t.Context(), longest); err != nil {
		t.Fatalf("Add(ID of MaxIDLen bytes): %v", err)
	}
	if ms, err := det.Match(t.Context(), s.Groups[1][1]); err != nil || len(ms) != 1 || ms[0].ID != longest.ID {
		t.Errorf("Match of a near-duplicate of the page kept under the longest ID = %d matches, %v", len(ms), err)
	}
}

// testOwn offers kept pages again under their own IDs, as a crawler retrying
// a call whose reply it lost does: see neardup.MatchAdder.
func testOwn(t *testing.T, s Suite) {
	det := mustNew(t, s)
	ma, ok := det.(neardup.MatchAdder)
	if !ok {
		t.Skip("not a MatchAdder")
	}
	a, b := s.Groups[0], s.Groups[1]
	if ms, added, err := ma.MatchOrAdd(t.Context(), a[0]); err != nil || !added || len(ms) != 0 {
		t.Fatalf("MatchOrAdd(%q) = %v, %v, %v; want added", a[0].ID, ms, added, err)
	}
	again := func(what string) {
		t.Helper()
		for _, d := range []*neardup.Document{a[0], copyDoc(a[0], a[0].ID)} {
			if ms, added, err := ma.MatchOrAdd(t.Context(), d); err != nil || !added || len(ms) != 0 {
				t.Errorf("%s: MatchOrAdd(%q) again = %v, %v, %v; want added, no matches", what, d.ID, ms, added, err)
			}
		}
		if ms, err := det.Match(t.Context(), a[0]); err != nil || len(ms) == 0 || ms[0].ID != a[0].ID || ms[0].Score != 0 {
			t.Errorf("%s: Match(%q) = %v, %v; want itself first, at 0", what, a[0].ID, ms, err)
		}
	}
	again("kept once")
	if l, ok := det.(lener); ok && l.Len() != 1 {
		t.Errorf("Len after offering a kept page again = %d, want 1", l.Len())
	}
	if rp, ok := det.(neardup.Replacer); ok {
		if ms, kept, err := rp.Replace(t.Context(), a[0]); err != nil || !kept || len(ms) != 0 {
			t.Errorf("Replace(%q) with its own page = %v, %v, %v; want kept, no matches", a[0].ID, ms, kept, err)
		}
		again("after Replace")
	}
	// A near-duplicate under another ID is a near-duplicate, not added.
	if ms, added, err := ma.MatchOrAdd(t.Context(), a[1]); err != nil || added || len(ms) != 1 || ms[0].ID != a[0].ID {
		t.Errorf("MatchOrAdd(%q) = %v, %v, %v; want a match of %q", a[1].ID, ms, added, err, a[0].ID)
	}
	// The kept ID with another page that matches nothing: ErrDuplicateID,
	// and that page is not kept.
	if ms, added, err := ma.MatchOrAdd(t.Context(), copyDoc(b[0], a[0].ID)); added || !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("MatchOrAdd(%q with another page) = %v, %v, %v; want ErrDuplicateID", a[0].ID, ms, added, err)
	}
	if ms, err := det.Match(t.Context(), b[1]); err != nil || len(ms) != 0 {
		t.Errorf("Match(%q) = %v, %v; want nothing kept", b[1].ID, ms, err)
	}
	// A near-duplicate kept by a plain Add (which checks nothing) changes
	// nothing for the kept page offered again.
	if err := det.Add(t.Context(), a[1]); err != nil {
		t.Fatalf("Add(%q): %v", a[1].ID, err)
	}
	again("with a near-duplicate added")
}

// checkMatches checks the invariants every result has.
func checkMatches(t *testing.T, s Suite, what string, ms []neardup.Match) {
	t.Helper()
	for i, m := range ms {
		if m.Measure != s.Measure {
			t.Errorf("%s: match %v has Measure %q, want %q", what, m, m.Measure, s.Measure)
		}
		if math.IsNaN(m.Score) || math.IsInf(m.Score, 0) || m.Score < 0 {
			t.Errorf("%s: match %v has Score %v, want finite and >= 0", what, m, m.Score)
		}
		if i > 0 && (ms[i-1].Score > m.Score || ms[i-1].Score == m.Score && ms[i-1].ID >= m.ID) {
			t.Errorf("%s: matches not sorted by (Score, ID) with each ID once: %v", what, ms)
		}
	}
}

// testGroups keeps the first document of every group in det and checks every
// document's matches.
func testGroups(t *testing.T, s Suite, det neardup.Detector) {
	keepFirsts(t, det, s.Groups)
	for _, g := range s.Groups {
		for i, d := range g {
			ms, err := det.Match(t.Context(), d)
			if err != nil {
				t.Fatalf("Match(%q): %v", d.ID, err)
			}
			checkMatches(t, s, "Match("+d.ID+")", ms)
			if len(ms) != 1 || ms[0].ID != g[0].ID {
				t.Errorf("Match(%q) = %v, want only %q", d.ID, ms, g[0].ID)
				continue
			}
			if i == 0 && ms[0].Score != 0 {
				t.Errorf("Match(%q) of the kept document itself scores %v, want 0", d.ID, ms[0].Score)
			}
		}
	}
}

func testVerify(t *testing.T, s Suite) {
	det := mustNew(t, s)
	v, ok := det.(neardup.Verifier)
	if !ok {
		t.Skip("not a Verifier")
	}
	keepFirsts(t, det, s.Groups)
	var all []neardup.Match
	for _, g := range s.Groups {
		all = append(all, neardup.Match{ID: g[0].ID, Score: -1}, neardup.Match{ID: g[1].ID + "-unknown"})
	}
	all = append(all, all...) // repeats
	for _, g := range s.Groups {
		for _, d := range g {
			want, err := det.Match(t.Context(), d)
			if err != nil {
				t.Fatalf("Match(%q): %v", d.ID, err)
			}
			got, err := v.Verify(t.Context(), d, want)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("Verify(%q, Match) = %v, %v; want %v", d.ID, got, err, want)
			}
			got, err = v.Verify(t.Context(), d, all)
			if err != nil {
				t.Fatalf("Verify(%q, all): %v", d.ID, err)
			}
			checkMatches(t, s, "Verify("+d.ID+")", got)
			for _, m := range got {
				if !slices.Contains(want, m) {
					t.Errorf("Verify(%q, all) returns %v, not in Match = %v", d.ID, m, want)
				}
			}
			if got, err := v.Verify(t.Context(), d, nil); err != nil || len(got) != 0 {
				t.Errorf("Verify(%q, nil) = %v, %v; want none", d.ID, got, err)
			}
		}
	}
}

func testRemove(t *testing.T, s Suite) {
	det := mustNew(t, s)
	r, ok := det.(neardup.Remover)
	if !ok {
		t.Skip("not a Remover")
	}
	keepFirsts(t, det, s.Groups)
	g := s.Groups[0]
	if err := r.Remove(t.Context(), g[0].ID); err != nil {
		t.Fatalf("Remove(%q): %v", g[0].ID, err)
	}
	if l, ok := det.(lener); ok && l.Len() != len(s.Groups)-1 {
		t.Errorf("Len after Remove = %d, want %d", l.Len(), len(s.Groups)-1)
	}
	for _, d := range g {
		if ms, err := det.Match(t.Context(), d); err != nil || len(ms) != 0 {
			t.Errorf("Match(%q) after removing its group's kept document = %v, %v; want none", d.ID, ms, err)
		}
	}
	if err := r.Remove(t.Context(), g[0].ID); !errors.Is(err, neardup.ErrUnknownID) {
		t.Errorf("second Remove(%q): err = %v, want ErrUnknownID", g[0].ID, err)
	}
	if err := det.Add(t.Context(), g[0]); err != nil {
		t.Fatalf("Add(%q) after Remove: %v", g[0].ID, err)
	}
	if ms, err := det.Match(t.Context(), g[1]); err != nil || len(ms) != 1 || ms[0].ID != g[0].ID {
		t.Errorf("Match(%q) after re-adding = %v, %v; want %q", g[1].ID, ms, err, g[0].ID)
	}
	// The other groups are untouched.
	for _, g := range s.Groups[1:] {
		if ms, err := det.Match(t.Context(), g[1]); err != nil || len(ms) != 1 || ms[0].ID != g[0].ID {
			t.Errorf("Match(%q) = %v, %v; want %q", g[1].ID, ms, err, g[0].ID)
		}
	}
}

func testReplace(t *testing.T, s Suite) {
	det := mustNew(t, s)
	rp, ok := det.(neardup.Replacer)
	if !ok {
		t.Skip("not a Replacer")
	}
	keepFirsts(t, det, s.Groups)
	a, b, c := s.Groups[0], s.Groups[1], s.Groups[2]
	// a's kept ID fetched again with a's second document: kept, in place.
	if ms, kept, err := rp.Replace(t.Context(), copyDoc(a[1], a[0].ID)); err != nil || !kept || len(ms) != 0 {
		t.Errorf("Replace(%q with a near copy) = %v, %v, %v; want kept", a[0].ID, ms, kept, err)
	}
	if ms, err := det.Match(t.Context(), a[2]); err != nil || len(ms) != 1 || ms[0].ID != a[0].ID {
		t.Errorf("Match(%q) after Replace = %v, %v; want %q", a[2].ID, ms, err, a[0].ID)
	}
	// a's kept ID fetched again as a copy of b's page: b's kept page
	// matches, and a's ID is no longer kept.
	ms, kept, err := rp.Replace(t.Context(), copyDoc(b[1], a[0].ID))
	if err != nil || kept || len(ms) != 1 || ms[0].ID != b[0].ID {
		t.Errorf("Replace(%q with a copy of %q) = %v, %v, %v; want not kept, matching %q", a[0].ID, b[0].ID, ms, kept, err, b[0].ID)
	}
	checkMatches(t, s, "Replace", ms)
	if ms, err := det.Match(t.Context(), a[1]); err != nil || len(ms) != 0 {
		t.Errorf("Match(%q) after its kept ID became a duplicate = %v, %v; want none", a[1].ID, ms, err)
	}
	if l, ok := det.(lener); ok && l.Len() != len(s.Groups)-1 {
		t.Errorf("Len after Replace = %d, want %d", l.Len(), len(s.Groups)-1)
	}
	// An ID not kept: Replace is MatchOrAdd.
	if ms, kept, err := rp.Replace(t.Context(), copyDoc(a[3], "detectortest-new")); err != nil || !kept || len(ms) != 0 {
		t.Errorf("Replace(a new ID, group %q now empty) = %v, %v, %v; want kept", a[0].ID, ms, kept, err)
	}
	if ms, kept, err := rp.Replace(t.Context(), copyDoc(c[1], "detectortest-new2")); err != nil || kept || len(ms) != 1 || ms[0].ID != c[0].ID {
		t.Errorf("Replace(a new ID, a copy of %q) = %v, %v, %v; want not kept", c[0].ID, ms, kept, err)
	}
	if _, _, err := rp.Replace(t.Context(), nil); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Replace(nil): err = %v, want ErrNilDocument", err)
	}
}

// testMatchOrAdd races goroutines offering their own copies of every document
// in their own order; exactly one document per group may be kept.
func testMatchOrAdd(t *testing.T, s Suite) {
	det := mustNew(t, s)
	ma, ok := det.(neardup.MatchAdder)
	if !ok {
		t.Skip("not a MatchAdder")
	}
	const workers = 4
	type item struct {
		group int
		doc   *neardup.Document
	}
	var mu sync.Mutex
	added := make([]int, len(s.Groups))
	var wg sync.WaitGroup
	for w := range workers {
		var items []item
		for gi, g := range s.Groups {
			for _, d := range g {
				items = append(items, item{gi, copyDoc(d, fmt.Sprintf("%s#%d", d.ID, w))})
			}
		}
		r := rand.New(rand.NewPCG(uint64(w), 99))
		r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, it := range items {
				ms, ok, err := ma.MatchOrAdd(t.Context(), it.doc)
				if err != nil {
					t.Errorf("MatchOrAdd(%q): %v", it.doc.ID, err)
					return
				}
				if ok == (len(ms) > 0) {
					t.Errorf("MatchOrAdd(%q) = %v, added %v", it.doc.ID, ms, ok)
				}
				if ok {
					mu.Lock()
					added[it.group]++
					mu.Unlock()
				}
				if _, err := det.Match(t.Context(), it.doc); err != nil {
					t.Errorf("Match(%q): %v", it.doc.ID, err)
				}
			}
		}()
	}
	wg.Wait()
	for gi, n := range added {
		if n != 1 {
			t.Errorf("group %d (first %q): %d documents kept, want exactly 1", gi, s.Groups[gi][0].ID, n)
		}
	}
	if l, ok := det.(lener); ok && l.Len() != len(s.Groups) {
		t.Errorf("Len = %d, want %d", l.Len(), len(s.Groups))
	}
}

func testStress(t *testing.T, s Suite) {
	det := mustNew(t, s)
	ma, ok1 := det.(neardup.MatchAdder)
	rp, ok2 := det.(neardup.Replacer)
	rm, ok3 := det.(neardup.Remover)
	if !ok1 || !ok2 || !ok3 {
		t.Skip("not a MatchAdder, Replacer and Remover")
	}
	const workers, ops, idsPerGroup = 4, 300, 3
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range ops {
				gi := r.IntN(len(s.Groups))
				g := s.Groups[gi]
				id := fmt.Sprintf("stress-g%d-%d", gi, r.IntN(idsPerGroup))
				d := copyDoc(g[r.IntN(len(g))], id)
				var err error
				switch r.IntN(3) {
				case 0:
					_, _, err = ma.MatchOrAdd(t.Context(), d)
				case 1:
					_, _, err = rp.Replace(t.Context(), d)
				default:
					if err = rm.Remove(t.Context(), id); errors.Is(err, neardup.ErrUnknownID) {
						err = nil
					}
				}
				if err != nil {
					t.Errorf("%s: %v", id, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for gi, g := range s.Groups {
		if ms, err := det.Match(t.Context(), g[0]); err != nil || len(ms) > 1 {
			t.Errorf("group %d: %v kept (err %v), want at most one", gi, ms, err)
		}
		if _, _, err := ma.MatchOrAdd(t.Context(), copyDoc(g[1], fmt.Sprintf("stress-final-%d", gi))); err != nil {
			t.Fatal(err)
		}
		if ms, err := det.Match(t.Context(), g[0]); err != nil || len(ms) != 1 {
			t.Errorf("group %d after a final MatchOrAdd: %v (err %v), want exactly one", gi, ms, err)
		}
	}
}

func testPersist(t *testing.T, s Suite) {
	det := mustNew(t, s)
	p, ok := det.(neardup.Persister)
	if !ok {
		t.Skip("not a Persister")
	}
	keepFirsts(t, det, s.Groups)
	var buf bytes.Buffer
	n, err := p.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v; wrote %d bytes", n, err, buf.Len())
	}
	snap := bytes.Clone(buf.Bytes())

	// Round trip: the same answers, and the loaded detector goes on working.
	back := mustNew(t, s)
	if n, err := back.(neardup.Persister).ReadFrom(bytes.NewReader(snap)); err != nil || n != int64(len(snap)) {
		t.Fatalf("ReadFrom = %d, %v; want %d, nil", n, err, len(snap))
	}
	sameAnswers(t, s, det, back)
	if l, ok := back.(lener); ok && l.Len() != len(s.Groups) {
		t.Errorf("Len after ReadFrom = %d, want %d", l.Len(), len(s.Groups))
	}
	extra := copyDoc(s.Groups[0][1], "detectortest-after-load")
	if err := back.Add(t.Context(), extra); err != nil {
		t.Errorf("Add after ReadFrom: %v", err)
	}
	if err := back.Add(t.Context(), s.Groups[0][0]); !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("Add of a loaded ID: err = %v, want ErrDuplicateID", err)
	}

	// A snapshot ends at its checksum: what follows it is not read.
	after := bytes.NewReader(append(bytes.Clone(snap), 'x'))
	if _, err := mustNew(t, s).(neardup.Persister).ReadFrom(after); err != nil {
		t.Errorf("ReadFrom with a byte after the snapshot: %v", err)
	}

	// Restore installs nothing until asked.
	empty := mustNew(t, s)
	install, _, err := empty.(neardup.Persister).Restore(bytes.NewReader(snap))
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if ms, err := empty.Match(t.Context(), s.Groups[0][1]); err != nil || len(ms) != 0 {
		t.Errorf("Match before install = %v, %v; want none", ms, err)
	}
	install()
	sameAnswers(t, s, det, empty)

	// A reader that fails keeps what it had: one document of its own.
	reader := mustNew(t, s)
	own := s.Groups[1]
	if err := reader.Add(t.Context(), own[0]); err != nil {
		t.Fatal(err)
	}
	unchanged := func(what string) {
		t.Helper()
		ms, err := reader.Match(t.Context(), own[1])
		if err != nil || len(ms) != 1 || ms[0].ID != own[0].ID {
			t.Fatalf("%s: reader changed: Match(%q) = %v, %v", what, own[1].ID, ms, err)
		}
		if ms, _ := reader.Match(t.Context(), s.Groups[0][1]); len(ms) != 0 {
			t.Fatalf("%s: reader half-loaded: Match(%q) = %v", what, s.Groups[0][1].ID, ms)
		}
	}
	rp := reader.(neardup.Persister)
	// Every prefix and every byte of a small snapshot; of a larger one the
	// first and last hundred bytes and an even spread between, fewer under
	// the race detector (each ReadFrom is then several times slower).
	truncations, flips := 1000, 400
	if race.Enabled {
		truncations, flips = 300, 250
	}
	for _, k := range offsets(len(snap), truncations) {
		if _, err := rp.ReadFrom(bytes.NewReader(snap[:k])); !errors.Is(err, neardup.ErrCorrupt) {
			t.Fatalf("ReadFrom of the first %d of %d bytes: err = %v, want ErrCorrupt", k, len(snap), err)
		}
		unchanged(fmt.Sprintf("truncated at %d", k))
	}
	bad := make([]byte, len(snap))
	for _, k := range offsets(len(snap), flips) {
		copy(bad, snap)
		bad[k] ^= 1 << (k % 8)
		if _, err := rp.ReadFrom(bytes.NewReader(bad)); err == nil {
			t.Fatalf("ReadFrom with byte %d of %d flipped: no error", k, len(snap))
		} else if !errors.Is(err, neardup.ErrCorrupt) && !errors.Is(err, neardup.ErrUnsupportedSnapshot) && !errors.Is(err, neardup.ErrSnapshotMismatch) {
			t.Fatalf("ReadFrom with byte %d flipped: err = %v, not a snapshot error", k, err)
		}
		unchanged(fmt.Sprintf("byte %d flipped", k))
	}
	if s.Other != nil {
		other, err := s.Other()
		if err != nil {
			t.Fatal(err)
		}
		var ob bytes.Buffer
		if _, err := other.(neardup.Persister).WriteTo(&ob); err != nil {
			t.Fatal(err)
		}
		if _, err := rp.ReadFrom(&ob); !errors.Is(err, neardup.ErrSnapshotMismatch) {
			t.Errorf("ReadFrom of a snapshot with other options: err = %v, want ErrSnapshotMismatch", err)
		}
		unchanged("other options")
	}
}

// sameAnswers checks that b answers every document of the groups as a does.
func sameAnswers(t *testing.T, s Suite, a, b neardup.Detector) {
	t.Helper()
	for _, g := range s.Groups {
		for _, d := range g {
			want, err1 := a.Match(t.Context(), d)
			got, err2 := b.Match(t.Context(), d)
			if err1 != nil || err2 != nil || !slices.Equal(got, want) {
				t.Errorf("Match(%q) after the round trip = %v, %v; before %v, %v", d.ID, got, err2, want, err1)
			}
		}
	}
}

// offsets returns up to max offsets in [0, n): every one when n is small,
// else the first and last hundred and an even spread between.
func offsets(n, max int) []int {
	if n <= max {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for i := 0; i < 100; i++ {
		out = append(out, i, n-1-i)
	}
	step := float64(n) / float64(max-200)
	for x := 100.0; int(x) < n-100; x += step {
		out = append(out, int(x))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func testZero(t *testing.T, s Suite) {
	det := s.Zero
	g := s.Groups[0]
	if s.ZeroErrs {
		if _, err := det.Match(t.Context(), g[0]); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("zero value: Match err = %v, want ErrInvalidOption", err)
		}
		if err := det.Add(t.Context(), g[0]); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("zero value: Add err = %v, want ErrInvalidOption", err)
		}
		return
	}
	if err := det.Add(t.Context(), g[0]); err != nil {
		t.Fatalf("zero value: Add(%q): %v", g[0].ID, err)
	}
	for _, d := range g {
		ms, err := det.Match(t.Context(), d)
		if err != nil || len(ms) == 0 || ms[0].ID != g[0].ID {
			t.Errorf("zero value: Match(%q) = %v, %v; want %q first", d.ID, ms, err, g[0].ID)
		}
		checkMatches(t, s, "zero value: Match("+d.ID+")", ms)
	}
}

// copyDoc returns a new document with d's page under another ID.
func copyDoc(d *neardup.Document, id string) *neardup.Document {
	return &neardup.Document{ID: id, Host: d.Host, Raw: d.Raw, Page: d.Page}
}

// Script selects the writing system of generated text.
type Script int

const (
	// Latin text: words of lower-case letters, sentences ending in '.'.
	Latin Script = iota
	// Han text: runs of CJK ideographs, sentences ending in '。'.
	Han
)

// GroupSpec describes generated near-duplicate groups.
type GroupSpec struct {
	Groups  int    // number of groups; zero means 6
	Members int    // documents per group; zero means 4
	Script  Script // Latin or Han
	// Sentences returns the number of sentences of group g's pages; nil
	// means 30 + 7g, so that groups differ in length.
	Sentences func(g int) int
	// Edits is the number of words (Latin) or characters (Han) each member
	// after the first changes, at random places; zero means 2.
	Edits int
	// Seed seeds the generator; the same spec gives the same documents.
	Seed uint64
}

// Groups generates documents in near-duplicate groups as plain text and
// preprocesses them with pipe (the zero Pipeline when nil): every group draws
// its words from its own random vocabulary, and the members after the first
// are copies with a few words changed.
func Groups(t testing.TB, pipe *preprocess.Pipeline, spec GroupSpec) [][]*neardup.Document {
	t.Helper()
	if pipe == nil {
		pipe = new(preprocess.Pipeline)
	}
	if spec.Groups == 0 {
		spec.Groups = 6
	}
	if spec.Members == 0 {
		spec.Members = 4
	}
	if spec.Sentences == nil {
		spec.Sentences = func(g int) int { return 30 + 7*g }
	}
	if spec.Edits == 0 {
		spec.Edits = 2
	}
	r := rand.New(rand.NewPCG(spec.Seed, 0x6e656172647570))
	groups := make([][]*neardup.Document, spec.Groups)
	for g := range groups {
		vocab := vocabulary(r, spec.Script, 400)
		base := sentences(r, vocab, spec.Sentences(g))
		for m := range spec.Members {
			words := base
			if m > 0 {
				words = edit(r, base, vocab, spec.Edits)
			}
			text := render(words, spec.Script)
			id := fmt.Sprintf("g%d-m%d", g, m)
			d, err := neardup.NewDocument(pipe, id, "https://example.test/"+id, "", []byte(text))
			if err != nil {
				t.Fatalf("detectortest: document %s: %v", id, err)
			}
			groups[g] = append(groups[g], d)
		}
	}
	return groups
}

// vocabulary returns n random words: 4-9 Latin letters, or 1-2 Han characters.
func vocabulary(r *rand.Rand, sc Script, n int) []string {
	words := make([]string, n)
	for i := range words {
		var w []rune
		if sc == Han {
			for range 1 + r.IntN(2) {
				w = append(w, rune(0x4E00+r.IntN(0x5000)))
			}
		} else {
			for range 4 + r.IntN(6) {
				w = append(w, rune('a'+r.IntN(26)))
			}
		}
		words[i] = string(w)
	}
	return words
}

// sentences returns n sentences of 8-15 words from vocab.
func sentences(r *rand.Rand, vocab []string, n int) [][]string {
	out := make([][]string, n)
	for i := range out {
		s := make([]string, 8+r.IntN(8))
		for j := range s {
			s[j] = vocab[r.IntN(len(vocab))]
		}
		out[i] = s
	}
	return out
}

// edit returns a copy of base with k words replaced at random.
func edit(r *rand.Rand, base [][]string, vocab []string, k int) [][]string {
	out := make([][]string, len(base))
	for i, s := range base {
		out[i] = slices.Clone(s)
	}
	for range k {
		s := out[r.IntN(len(out))]
		s[r.IntN(len(s))] = vocab[r.IntN(len(vocab))]
	}
	return out
}

// render joins sentences into text in the script's style.
func render(ss [][]string, sc Script) string {
	var b []byte
	for _, s := range ss {
		for j, w := range s {
			if sc == Latin && j > 0 {
				b = append(b, ' ')
			}
			if sc == Latin && j == 0 {
				w = string(w[0]-'a'+'A') + w[1:]
			}
			b = append(b, w...)
		}
		if sc == Han {
			b = append(b, "。"...)
		} else {
			b = append(b, ". "...)
		}
		b = append(b, '\n')
	}
	return string(b)
}
