package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/snapshot"
	"github.com/neardup/neardup/simhash"
)

// TestPartitionerKModes: a KModes fitted on a sample, as the Partitioner of a
// Detector of sentence → SimHash cascades (Kumar and Govindarajulu), passes
// the conformance suite (its snapshot carries the KModes's).
func TestPartitionerKModes(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 21, Groups: 8})
	var firsts []*neardup.Document
	for _, g := range groups {
		firsts = append(firsts, g[0])
	}
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprint("p=", p), func(t *testing.T) {
			newKM := func() *KModes {
				km := mustNew(t, KModesOptions{K: 4, Probes: p})
				if err := km.Fit(firsts); err != nil {
					t.Fatal(err)
				}
				return km
			}
			km := newKM()
			for gi, g := range groups {
				first, _ := home(km, g[0])
				for _, d := range g[1:] {
					if j, err := home(km, d); err != nil || j != first {
						t.Fatalf("group %d: home of %s = %d, %v; its first is in %d", gi, d.ID, j, err, first)
					}
				}
			}
			detectortest.Run(t, detectortest.Suite{
				New: func() (neardup.Detector, error) {
					return New(Options{Partitioner: newKM(), NewDetector: func(int, int) (neardup.Detector, error) { return newCascade(0) }})
				},
				Groups:  groups,
				Measure: simhash.Bits,
			})
		})
	}
}

// manyGroups returns n generated near-duplicate groups of 3 pages.
func manyGroups(t *testing.T, n int, seed uint64) [][]*neardup.Document {
	return detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: seed, Groups: n, Members: 3})
}

// checkKept checks that every kept first page of groups matches itself, that
// every second page matches its first, and, unless incremental, that each
// kept page's place is among the places its keywords are compared within.
func checkKept(t *testing.T, det *Detector, groups [][]*neardup.Document, incremental bool) {
	t.Helper()
	for _, g := range groups {
		ms, err := det.Match(t.Context(), g[1])
		if err != nil || len(ms) != 1 || ms[0].ID != g[0].ID {
			t.Errorf("Match(%s) = %v, %v; want %s", g[1].ID, ms, err, g[0].ID)
		}
		home, ok := placeOf(det, g[0].ID)
		ps, err := probesOf(det, g[0])
		if !ok || err != nil {
			t.Fatalf("Home(%s) = %v, %v; Probes: %v", g[0].ID, home, ok, err)
		}
		if !incremental && !slices.Contains(ps, home) {
			t.Errorf("page %s is kept in %+v, but compared within %v", g[0].ID, home, ps)
		}
	}
}

func sizesEqual(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

// TestRefit: without a Source the first fit moves the pages kept so far and
// the later fits start generations; pages kept before and after are all
// found, each where its generation's model sends its keywords; Stats counts
// fits, generations and sizes, and no page is held after the first fit.
func TestRefit(t *testing.T) {
	groups := manyGroups(t, 40, 22)
	for _, incremental := range []bool{false, true} {
		det, err := New(Options{NewDetector: cascades, KModes: KModesOptions{K: 5}, FitAt: 8, Incremental: incremental})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range groups {
			if ms, added, err := det.MatchOrAdd(t.Context(), g[0]); err != nil || !added {
				t.Fatalf("MatchOrAdd(%s) = %v, %v, %v", g[0].ID, ms, added, err)
			}
			if i == 6 && det.Stats().Retained != 7 {
				t.Errorf("before the first fit: %+v, want 7 pages retained", det.Stats())
			}
			if i == 20 {
				checkKept(t, det, groups[:21], incremental)
			}
		}
		st := det.Stats()
		// fits at 8 (moving the 8 pages), 16 and 32 (new generations)
		if st.Fits != 3 || st.NextFit != 64 || st.Documents != 40 || st.Retained != 0 || st.RefitErr != nil || !st.Converged {
			t.Errorf("Stats = %+v; want 3 fits, next at 64, 40 documents, none retained", st)
		}
		if len(st.Sizes) != 3 || sum(st.Sizes) != 40 || sum(st.Sizes[:1]) != 16 || sum(st.Sizes[1:2]) != 16 {
			t.Errorf("Sizes = %v, want 3 generations of 16, 16 and 8 pages", st.Sizes)
		}
		checkKept(t, det, groups, incremental)
		// An explicit refit starts a fourth generation; a second one,
		// with no page added, replaces it.
		for range 2 {
			if err := det.Refit(t.Context()); err != nil {
				t.Fatal(err)
			}
			if st := det.Stats(); len(st.Sizes) != 4 || len(st.Sizes[3]) != 5 || sum(st.Sizes[3:]) != 0 {
				t.Errorf("after Refit: Sizes = %v, want an empty fourth generation of 5 clusters", st.Sizes)
			}
		}
		checkKept(t, det, groups, incremental)
		// Remove the pages of the first two generations; the rest are
		// still found; a refit drops the generations left empty.
		for _, g := range groups {
			if home, _ := placeOf(det, g[0].ID); home.gen < 2 {
				if err := det.Remove(t.Context(), g[0].ID); err != nil {
					t.Fatal(err)
				}
				if ms, err := det.Match(t.Context(), g[1]); err != nil || len(ms) != 0 {
					t.Errorf("Match(%s) after Remove = %v, %v", g[1].ID, ms, err)
				}
			}
		}
		left := groups[32:]
		checkKept(t, det, left, incremental)
		if err := det.Refit(t.Context()); err != nil {
			t.Fatal(err)
		}
		checkKept(t, det, left, incremental)
		if st := det.Stats(); st.Documents != 8 || st.Fits != 6 || len(st.Sizes) != 2 || sum(st.Sizes[:1]) != 8 {
			t.Errorf("after removes and a refit: %+v; want the generation of the 8 pages left and a new one", st)
		}
	}
}

func sum(xs [][]int) int {
	s := 0
	for _, g := range xs {
		for _, x := range g {
			s += x
		}
	}
	return s
}

// TestSource: with a Source the Detector holds no page and every refit
// moves every page (one generation); a Source that fails leaves the
// Detector as it was.
func TestSource(t *testing.T) {
	groups := manyGroups(t, 24, 23)
	byID := map[string]*neardup.Document{}
	for _, g := range groups {
		byID[g[0].ID] = g[0]
	}
	calls := 0
	var fail error
	source := func(id string) (*neardup.Document, error) {
		calls++
		if fail != nil {
			return nil, fail
		}
		return byID[id], nil
	}
	det, err := New(Options{NewDetector: cascades, KModes: KModesOptions{K: 4}, FitAt: -1, Source: source})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if err := det.Add(t.Context(), g[0]); err != nil {
			t.Fatal(err)
		}
	}
	if st := det.Stats(); st.Fits != 0 || st.Retained != 0 || st.NextFit != 0 {
		t.Errorf("before Refit: %+v; want no fit, nothing retained", st)
	}
	for i := range 2 {
		if err := det.Refit(t.Context()); err != nil || calls != (i+1)*len(groups) {
			t.Fatalf("Refit: %v, %d calls of Source", err, calls)
		}
		if st := det.Stats(); len(st.Sizes) != 1 || sum(st.Sizes) != len(groups) {
			t.Errorf("after Refit with a Source: Sizes = %v, want one generation of every page", st.Sizes)
		}
	}
	checkKept(t, det, groups, false)
	before := det.Stats()
	fail = errors.New("page store down")
	if err := det.Refit(t.Context()); !errors.Is(err, fail) {
		t.Errorf("Refit with a failing Source: err = %v", err)
	}
	if after := det.Stats(); after.Fits != before.Fits || !sizesEqual(after.Sizes, before.Sizes) {
		t.Errorf("failed Refit changed the Detector: %+v, was %+v", after, before)
	}
	checkKept(t, det, groups, false)
	fail = nil
	byID[groups[0][0].ID] = groups[1][0] // the store answers with another page
	if err := det.Refit(t.Context()); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("Refit with a Source returning another page: err = %v", err)
	}
}

// TestSnapshotRefit: a Detector read from a snapshot answers as before and
// goes on fitting: its pages are not in the snapshot, so without a Source a
// refit starts a generation; with one it moves them.
func TestSnapshotRefit(t *testing.T) {
	groups := manyGroups(t, 30, 24)
	det, err := New(Options{NewDetector: cascades, KModes: KModesOptions{K: 4}, FitAt: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if err := det.Add(t.Context(), g[0]); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := det.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, _ := New(Options{NewDetector: cascades, KModes: KModesOptions{K: 4}, FitAt: 10})
	if _, err := loaded.ReadFrom(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	checkKept(t, loaded, groups, false)
	st, want := loaded.Stats(), det.Stats()
	if st.Retained != 0 || st.Fits != want.Fits || st.NextFit != want.NextFit || !sizesEqual(st.Sizes, want.Sizes) || st.Cost != want.Cost {
		t.Errorf("loaded Stats = %+v, saved %+v", st, want)
	}
	// Adding up to the next fit: a new generation.
	extra := manyGroups(t, 40, 25)
	for _, g := range extra[:st.NextFit-st.Documents] {
		if err := loaded.Add(t.Context(), &neardup.Document{ID: "extra-" + g[0].ID, Page: g[0].Page}); err != nil {
			t.Fatal(err)
		}
	}
	if st2 := loaded.Stats(); st2.RefitErr != nil || st2.Fits != st.Fits+1 || len(st2.Sizes) != len(st.Sizes)+1 {
		t.Errorf("after the automatic refit of a loaded Detector: %+v", st2)
	}
	checkKept(t, loaded, groups, false)
	// With a Source the same snapshot refits into one generation.
	byID := map[string]*neardup.Document{}
	for _, g := range groups {
		byID[g[0].ID] = g[0]
	}
	withSource, _ := New(Options{NewDetector: cascades, KModes: KModesOptions{K: 4}, FitAt: 10, Source: func(id string) (*neardup.Document, error) { return byID[id], nil }})
	if _, err := withSource.ReadFrom(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := withSource.Refit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := withSource.Stats(); len(st.Sizes) != 1 {
		t.Errorf("Refit with a Source: %d generations, want 1", len(st.Sizes))
	}
	checkKept(t, withSource, groups, false)
}

// TestKModesSnapshot: a KModes read back assigns and updates as the saved
// one; a snapshot of a fit on integer codes (which older versions wrote) is
// refused as unsupported.
func TestKModesSnapshot(t *testing.T) {
	items, _ := topics(31, 300, 5, 6, 0.4)
	docs := codeDocs(items)
	km := mustNew(t, KModesOptions{K: 5, Keywords: 6})
	if err := km.Fit(docs); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := km.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back := mustNew(t, KModesOptions{K: 5, Keywords: 6})
	if _, err := back.ReadFrom(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if st, want := back.Stats(), km.Stats(); !reflect.DeepEqual(st, want) {
		t.Errorf("read back: Stats %+v, saved %+v", st, want)
	}
	for i, d := range docs {
		a, _ := home(km, d)
		b, _ := home(back, d)
		if a != b {
			t.Fatalf("document %d: assigned %d, read back %d", i, a, b)
		}
	}
	// Updates go on identically.
	more, _ := topics(32, 50, 5, 6, 0.6)
	for _, d := range codeDocs(more) {
		a, _ := km.Update(d)
		b, _ := back.Update(d)
		if a != b {
			t.Fatal("Update differs after a round trip")
		}
	}
	if st, want := back.Stats(), km.Stats(); !reflect.DeepEqual(st, want) {
		t.Errorf("after updates: Stats %+v, read back %+v", want, st)
	}
	// Other options: a mismatch, and nothing changes.
	other := mustNew(t, KModesOptions{K: 6, Keywords: 6})
	if _, err := other.ReadFrom(bytes.NewReader(buf.Bytes())); !errors.Is(err, neardup.ErrSnapshotMismatch) || other.Stats().Fits > 0 {
		t.Errorf("ReadFrom with another K: err = %v, Stats %+v", err, other.Stats())
	}
	// Every truncation is an error.
	for n := 0; n < buf.Len(); n += 1 + buf.Len()/300 {
		if _, err := mustNew(t, KModesOptions{K: 5, Keywords: 6}).ReadFrom(bytes.NewReader(buf.Bytes()[:n])); !errors.Is(err, neardup.ErrCorrupt) {
			t.Fatalf("ReadFrom of %d of %d bytes: err = %v", n, buf.Len(), err)
		}
	}
	// A fit on codes: fitted 1, byCodes 1, then what no longer parses.
	o, _ := KModesOptions{K: 5, Keywords: 6}.resolve()
	buf.Reset()
	sw := snapshot.NewWriter(&buf, "cluster.KModes", o.params())
	sw.Uvarint(1)
	sw.Uvarint(1)
	sw.Uvarint(1)
	sw.Uvarint(42)
	if _, err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := back.ReadFrom(&buf); !errors.Is(err, neardup.ErrUnsupportedSnapshot) || !slices.Equal(back.Stats().Modes[0], km.Stats().Modes[0]) {
		t.Errorf("ReadFrom of a fit on codes: err = %v, want ErrUnsupportedSnapshot and no change", err)
	}
	// An unfitted KModes round-trips as unfitted.
	var zero, unfitted KModes
	buf.Reset()
	if _, err := zero.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := unfitted.ReadFrom(&buf); err != nil || !reflect.DeepEqual(unfitted.Stats(), Stats{}) {
		t.Errorf("unfitted round trip: %v, Stats %+v", err, unfitted.Stats())
	}
}

// twinPages returns an original page and a near-duplicate of it that differ
// only in which three of their keywords are the most frequent: topic "a"
// words for the original, topic "b" words for the twin. Their SimHash
// fingerprints, dominated by the 40 shared terms, stay close.
func twinPages() (orig, twin *neardup.Document) {
	shared := make([]string, 40)
	for i := range shared {
		shared[i] = fmt.Sprintf("common%02d", i)
	}
	mk := func(id string, top []string, low []string) *neardup.Document {
		d := kwDoc(id)
		p := d.Page
		p.Terms = nil
		for _, w := range top {
			p.Terms = append(p.Terms, termOf(w, 12))
		}
		for _, w := range shared {
			p.Terms = append(p.Terms, termOf(w, 10))
		}
		for _, w := range low {
			p.Terms = append(p.Terms, termOf(w, 9))
		}
		for range 20 {
			p.Sentences = append(p.Sentences, "s.")
		}
		return d
	}
	a := []string{"alpha", "apex", "arrow"}
	b := []string{"beta", "basin", "brook"}
	return mk("orig", a, b), mk("twin", b, a)
}

// TestMultiProbe: a near-duplicate whose keywords put it in another cluster
// than its original is missed with p = 1 and found with p = 2.
func TestMultiProbe(t *testing.T) {
	orig, twin := twinPages()
	var fill []*neardup.Document
	for i := range 10 { // two topics around the twins' top keywords
		fill = append(fill,
			kwDoc(fmt.Sprintf("a%d", i), "alpha", "apex", "arrow", fmt.Sprintf("ax%d", i)),
			kwDoc(fmt.Sprintf("b%d", i), "beta", "basin", "brook", fmt.Sprintf("bx%d", i)))
	}
	for _, p := range []int{1, 2} {
		det, err := New(Options{NewDetector: cascades, KModes: KModesOptions{K: 2, Keywords: 3, Probes: p}, FitAt: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range append(fill, orig) {
			if err := det.Add(t.Context(), d); err != nil {
				t.Fatal(err)
			}
		}
		if err := det.Refit(t.Context()); err != nil {
			t.Fatal(err)
		}
		home, _ := placeOf(det, orig.ID)
		ps, _ := probesOf(det, twin)
		if ps[0] == home {
			t.Fatalf("the twin's home %v is its original's: the test does not test", ps[0])
		}
		ms, err := det.Match(t.Context(), twin)
		if err != nil {
			t.Fatal(err)
		}
		found := len(ms) == 1 && ms[0].ID == orig.ID
		if found != (p == 2) {
			t.Errorf("p = %d: Match(twin) = %v (original in %v, twin probes %v)", p, ms, home, ps)
		}
		vs, err := det.Verify(t.Context(), twin, []neardup.Match{{ID: orig.ID}})
		if err != nil || (len(vs) == 1) != (p == 2) {
			t.Errorf("p = %d: Verify(twin, original) = %v, %v", p, vs, err)
		}
	}
}

// TestDetectorOptions checks the defaults Options reports, that NewDetector
// is required, and that Never turns the automatic fits off.
func TestDetectorOptions(t *testing.T) {
	if _, err := New(Options{}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("New without NewDetector: err = %v, want ErrInvalidOption", err)
	}
	det, err := New(Options{NewDetector: cascades})
	if err != nil {
		t.Fatal(err)
	}
	if o := det.Options(); o.FitAt != DefaultFitAt || o.Growth != DefaultGrowth || o.KModes.K != DefaultK || o.KModes.Keywords != DefaultKeywords {
		t.Errorf("Options() = %+v, want the defaults", o)
	}
	never, err := New(Options{NewDetector: cascades, KModes: KModesOptions{K: 2}, FitAt: Never, Growth: Never})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range codeDocs(func() [][]uint32 { it, _ := topics(3, 40, 2, 4, 0.1); return it }()) {
		if err := never.Add(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	if st := never.Stats(); st.Fits != 0 {
		t.Errorf("FitAt Never: %d fits after 40 pages, want 0", st.Fits)
	}
}
