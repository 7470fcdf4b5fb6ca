package simhash

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/snapshot"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/simhash/hamming"
)

func doc(id string, terms ...preprocess.Term) *neardup.Document {
	return &neardup.Document{ID: id, Page: &preprocess.Page{Terms: terms}}
}

// wordsDoc makes a document whose terms are the given words, each once.
func wordsDoc(id string, words ...string) *neardup.Document {
	terms := make([]preprocess.Term, len(words))
	for i, w := range words {
		terms[i] = preprocess.Term{Text: w, Count: 1}
	}
	return doc(id, terms...)
}

func TestNewOptions(t *testing.T) {
	for _, c := range []struct {
		in, want int // want is Options().MaxDistance
		ok       bool
	}{
		{0, DefaultMaxDistance, true}, {Identical, Identical, true}, {1, 1, true}, {64, 64, true},
		{65, 0, false}, {-2, 0, false},
	} {
		det, err := New(Options{MaxDistance: c.in})
		if !c.ok {
			if !errors.Is(err, neardup.ErrInvalidOption) {
				t.Errorf("New(%d) error = %v, want ErrInvalidOption", c.in, err)
			} else if n := strings.Count(err.Error(), "simhash:"); n != 1 {
				t.Errorf("New(%d): %q names the package %d times", c.in, err, n)
			}
			continue
		}
		if err != nil || det.Options().MaxDistance != c.want {
			t.Fatalf("New(%d): Options().MaxDistance %d, %v; want %d", c.in, det.Options().MaxDistance, err, c.want)
		}
		// The options in effect make the same detector again.
		if again, err := New(det.Options()); err != nil || again.Options() != det.Options() || again.opts != det.opts {
			t.Errorf("New(%+v) = %+v, %v; want the same options", det.Options(), again.Options(), err)
		}
	}
	for name, o := range map[string]Options{
		"negative ExpectedSize":       {ExpectedSize: -1},
		"negative IndexBytesPerEntry": {IndexBytesPerEntry: -1},
		"budget no layout fits":       {IndexBytesPerEntry: 4},
	} {
		_, err := New(o)
		if !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("%s: error = %v, want ErrInvalidOption", name, err)
		} else if n := strings.Count(err.Error(), "simhash:"); n != 1 {
			t.Errorf("%s: %q names the package %d times", name, err, n)
		}
	}
	// At 100,000 pages the default budget buys exact-block tables at
	// T_B = 3 and fewer probes at T_B = 8 than hamming's default of 48 bytes.
	for _, tb := range []int{3, 8} {
		o := Options{MaxDistance: tb, ExpectedSize: 100_000}
		def, err := newIndex(Options{MaxDistance: tb, ExpectedSize: 100_000, IndexBytesPerEntry: DefaultIndexBytesPerEntry})
		if err != nil {
			t.Fatal(err)
		}
		o.IndexBytesPerEntry = 48
		small, err := newIndex(o)
		if err != nil {
			t.Fatal(err)
		}
		p, q := def.Plan(), small.Plan()
		if tb == 3 && p.Radius != 0 || p.ProbesPerQuery >= q.ProbesPerQuery {
			t.Errorf("T_B = %d at 100,000 pages: default budget %v; 48 bytes %v", tb, p, q)
		}
	}
	// The default budget bends for tiny repositories instead of failing.
	if _, err := New(Options{ExpectedSize: 1}); err != nil {
		t.Errorf("ExpectedSize 1: %v", err)
	}
}

func mustNew(t testing.TB, opts Options) *Detector {
	t.Helper()
	det, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return det
}

func TestDetectorErrors(t *testing.T) {
	det := mustNew(t, Options{})
	if _, err := det.Match(t.Context(), nil); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Match(nil) = %v", err)
	}
	if err := det.Add(t.Context(), &neardup.Document{ID: "x"}); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Add(no page) = %v", err)
	}
	if err := det.Add(t.Context(), doc("empty")); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Add(no terms) = %v", err)
	}
	if err := det.Add(t.Context(), wordsDoc("a", "x")); err != nil {
		t.Fatal(err)
	}
	if err := det.Add(t.Context(), wordsDoc("a", "y")); !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("Add(dup) = %v", err)
	}
	if err := det.Remove(t.Context(), "nope"); !errors.Is(err, neardup.ErrUnknownID) {
		t.Errorf("Remove(unknown) = %v", err)
	}
	if err := det.Remove(t.Context(), "a"); err != nil || det.Len() != 0 {
		t.Errorf("Remove(a) = %v, Len %d", err, det.Len())
	}
}

// linear is the obvious oracle: every kept fingerprint within T_B.
func linear(kept map[string]Fingerprint, fp Fingerprint, tb int) []neardup.Match {
	var ms []neardup.Match
	for id, g := range kept {
		if d := Distance(fp, g); d <= tb {
			ms = append(ms, neardup.Match{ID: id, Score: float64(d), Measure: Bits})
		}
	}
	neardup.SortMatches(ms)
	return ms
}

// The detector answers exactly as a scan, through the Index (T_B ≤
// hamming.MaxDistance) and through its own scan (larger T_B), across removals
// that move entries between index ids.
func TestDetectorAgainstOracle(t *testing.T) {
	for _, tb := range []int{0, 3, 6, 8, hamming.MaxDistance, 20} {
		t.Run(fmt.Sprint("T_B=", tb), func(t *testing.T) { detectorAgainstOracle(t, tb) })
	}
}

func detectorAgainstOracle(t *testing.T, tb int) {
	r := rand.New(rand.NewPCG(5, 6))
	det := mustNew(t, Options{MaxDistance: cmp.Or(tb, Identical), ExpectedSize: 64})
	var indexed bool
	det.c().Read(func(s detector.Store[Fingerprint]) { indexed = s.(*store).ix != nil })
	if indexed != (tb <= hamming.MaxDistance) {
		t.Fatalf("T_B = %d: index in use = %v", tb, indexed)
	}
	kept := map[string]Fingerprint{}
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = randWord(r)
	}
	randDoc := func(id string) *neardup.Document {
		var terms []preprocess.Term
		for _, w := range vocab[:8+r.IntN(4)] { // overlapping vocabularies: near fingerprints
			terms = append(terms, preprocess.Term{Text: w, Count: 1 + r.IntN(3)})
		}
		terms = append(terms, preprocess.Term{Text: vocab[r.IntN(len(vocab))], Count: 1})
		return doc(id, terms...)
	}
	for i := 0; i < 400; i++ {
		id := fmt.Sprintf("d%03d", i)
		d := randDoc(id)
		fp, _ := Of(d)
		got, err := det.Match(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		if want := linear(kept, fp, tb); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Match = %v, want %v", id, got, want)
		}
		// Verify over every kept ID equals Match.
		var all []neardup.Match
		for k := range kept {
			all = append(all, neardup.Match{ID: k, Score: -1})
		}
		all = append(all, neardup.Match{ID: "never-added"})
		if v, _ := det.Verify(t.Context(), d, all); !reflect.DeepEqual(v, got) {
			t.Fatalf("%s: Verify = %v, Match = %v", id, v, got)
		}
		if err := det.Add(t.Context(), d); err != nil {
			t.Fatal(err)
		}
		kept[id] = fp
		if r.IntN(5) == 0 { // remove a random kept document
			for k := range kept {
				if err := det.Remove(t.Context(), k); err != nil {
					t.Fatal(err)
				}
				delete(kept, k)
				break
			}
		}
		if det.Len() != len(kept) {
			t.Fatalf("Len = %d, want %d", det.Len(), len(kept))
		}
	}
	for k, fp := range kept {
		if g, ok := det.Lookup(k); !ok || g != fp {
			t.Fatalf("Lookup(%s) = %v, %v", k, g, ok)
		}
	}
}

// TestDetectorPaperTables3And5 replays the paper's second filter with the
// printed fingerprints of Wp2, Wp3 (Table 3) and Wp_new (Table 5).
func TestDetectorPaperTables3And5(t *testing.T) {
	for _, c := range []struct {
		tb   int
		want []neardup.Match
	}{
		{3, []neardup.Match{{ID: "Wp2", Score: 3, Measure: Bits}}},
		{2, nil}, // the paper's conclusion ("not a near duplicate") needs T_B ≤ 2
		{27, []neardup.Match{{ID: "Wp2", Score: 3, Measure: Bits}, {ID: "Wp3", Score: 27, Measure: Bits}}},
	} {
		det := mustNew(t, Options{MaxDistance: c.tb})
		_ = det.AddFingerprint("Wp2", mustParse(t, tableWp2))
		_ = det.AddFingerprint("Wp3", mustParse(t, tableWp3))
		core := det.c()
		if got := core.MatchFeature(mustParse(t, tableWpNew)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("T_B = %d: matches %v, want %v", c.tb, got, c.want)
		}
	}
}

func TestDetectorConcurrent(t *testing.T) {
	det := mustNew(t, Options{})
	var wg sync.WaitGroup
	var added atomic.Int32
	const workers = 8
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				// Every worker offers the same page under its own ID: only one
				// MatchOrAdd may keep it.
				same := wordsDoc(fmt.Sprintf("same-w%d-%d", w, i), "page", fmt.Sprint(i), "shared", "text")
				if _, ok, err := det.MatchOrAdd(t.Context(), same); err != nil {
					t.Error(err)
				} else if ok {
					added.Add(1)
				}
				own := wordsDoc(fmt.Sprintf("own-w%d-%d", w, i), fmt.Sprintf("w%d", w), fmt.Sprint(i), "x", "y", "z")
				if _, err := det.Match(t.Context(), own); err != nil {
					t.Error(err)
				}
				_ = det.Add(t.Context(), own) // may be a near-duplicate of another; Add keeps it anyway
				if i%10 == 0 {
					_ = det.Remove(t.Context(), own.ID)
				}
			}
		}()
	}
	wg.Wait()
	// The copies of page i all have one fingerprint, so at most one of them
	// may be kept, whichever worker won.
	perPage := map[string]int{}
	kept := 0
	var buf bytes.Buffer // the kept IDs, from a snapshot
	if _, err := det.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	for _, id := range snapshotIDs(t, buf.Bytes()) {
		var w, i int
		if _, err := fmt.Sscanf(id, "same-w%d-%d", &w, &i); err == nil {
			perPage[fmt.Sprint(i)]++
			kept++
		}
	}
	for i, n := range perPage {
		if n > 1 {
			t.Errorf("page %s kept %d times", i, n)
		}
	}
	if int(added.Load()) != kept {
		t.Errorf("MatchOrAdd reported %d adds, %d kept", added.Load(), kept)
	}
}

// snapshotIDs returns the IDs in a simhash.Detector snapshot.
func snapshotIDs(t *testing.T, snap []byte) []string {
	t.Helper()
	sr, err := snapshot.NewReader(bytes.NewReader(snap), "simhash.Detector", []snapshot.Param{{Name: "MaxDistance", Value: strconv.Itoa(DefaultMaxDistance)}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for n := sr.Count(); uint64(len(ids)) < n && sr.Err() == nil; {
		ids = append(ids, sr.Text())
		sr.Uint64()
	}
	if _, err := sr.Close(); err != nil {
		t.Fatal(err)
	}
	return ids
}
