package sentence

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/preprocess"
)

// doc makes a document with n sentences.
func doc(id string, n int) *neardup.Document {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("Sentence %d.", i)
	}
	return &neardup.Document{ID: id, Page: &preprocess.Page{Text: strings.Join(s, " "), Sentences: s}}
}

// counts returns the distinct counts the detector's store keeps.
func counts(det *Detector) []int {
	var cs []int
	det.c().Read(func(s detector.Store[int]) { cs = append(cs, s.(*store).counts...) })
	return cs
}

func mustNew(t testing.TB, opts Options) *Detector {
	t.Helper()
	det, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return det
}

// TestPaperTables2And4: Table 2 keeps Wp1 = 6, Wp2 = 5, Wp3 = 4 sentences;
// Table 4's new page has 4 and T_s = 1. The paper keeps Wp2 and Wp3 and drops
// Wp1, which needs |S_d − S_k| ≤ T_s (the text's "< T_s" would keep only Wp3).
func TestPaperTables2And4(t *testing.T) {
	det := mustNew(t, Options{Threshold: 1, Relative: Absolute})
	for _, d := range []*neardup.Document{doc("Wp1", 6), doc("Wp2", 5), doc("Wp3", 4)} {
		if err := det.Add(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := det.Match(t.Context(), doc("Wp_new", 4))
	if err != nil {
		t.Fatal(err)
	}
	want := []neardup.Match{{ID: "Wp3", Score: 0, Measure: CountDifference}, {ID: "Wp2", Score: 1, Measure: CountDifference}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Match = %v, want %v", got, want)
	}
	// Verify gives the same answer from the whole repository as candidates.
	all := []neardup.Match{{ID: "Wp1"}, {ID: "Wp2"}, {ID: "Wp3"}}
	if v, err := det.Verify(t.Context(), doc("Wp_new", 4), all); err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("Verify = %v, %v; want %v", v, err, want)
	}
}

func TestNewOptions(t *testing.T) {
	for _, c := range []struct {
		in   Options
		want Options // Options()
		ts   int     // T_s in effect
	}{
		{Options{}, Options{Threshold: DefaultThreshold, Relative: DefaultRelative}, DefaultThreshold},
		{Options{Threshold: SameCount}, Options{Threshold: SameCount, Relative: DefaultRelative}, 0},
		{Options{Threshold: 1, Relative: Absolute}, Options{Threshold: 1, Relative: Absolute}, 1},
		{Options{Threshold: 7, Relative: 0.3}, Options{Threshold: 7, Relative: 0.3}, 7},
	} {
		det, err := New(c.in)
		if err != nil || det.Options() != c.want || det.opts.Threshold != c.ts {
			t.Fatalf("New(%+v): Options() %+v, T_s %d, %v; want %+v, T_s %d", c.in, det.Options(), det.opts.Threshold, err, c.want, c.ts)
		}
		// The options in effect make the same detector again.
		if again, err := New(det.Options()); err != nil || again.opts != det.opts {
			t.Errorf("New(%+v) resolves to %+v, %v; want %+v", det.Options(), again.opts, err, det.opts)
		}
	}
	for _, o := range []Options{{Threshold: -2}, {Relative: 1.5}} {
		if _, err := New(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v) error = %v, want ErrInvalidOption", o, err)
		}
	}
}

func TestErrors(t *testing.T) {
	det := mustNew(t, Options{})
	if _, err := det.Match(t.Context(), nil); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Match(nil) = %v", err)
	}
	if err := det.Add(t.Context(), &neardup.Document{ID: "x"}); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Add(no page) = %v", err)
	}
	if err := det.Add(t.Context(), doc("zero", 0)); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Add(0 sentences) = %v", err)
	}
	if _, err := det.Verify(t.Context(), doc("zero", 0), nil); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Verify(0 sentences) = %v", err)
	}
	if err := det.Add(t.Context(), doc("a", 3)); err != nil {
		t.Fatal(err)
	}
	if err := det.Add(t.Context(), doc("a", 9)); !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("Add(dup) = %v", err)
	}
	if err := det.Remove(t.Context(), "b"); !errors.Is(err, neardup.ErrUnknownID) {
		t.Errorf("Remove(unknown) = %v", err)
	}
	if err := det.Remove(t.Context(), "a"); err != nil || det.Len() != 0 || len(counts(det)) != 0 {
		t.Errorf("Remove(a) = %v; Len %d, counts %v", err, det.Len(), counts(det))
	}
}

// TestAgainstScan compares the index with a scan of every kept page, through
// adds and removes.
func TestAgainstScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, ts := range []int{0, 1, 3} {
		det := mustNew(t, Options{Threshold: cmp.Or(ts, SameCount), Relative: Absolute})
		tsv := det.opts.Threshold
		kept := map[string]int{}
		for i := 0; i < 500; i++ {
			n := 1 + r.IntN(30)
			d := doc(fmt.Sprintf("d%03d", i), n)
			var want []neardup.Match
			for id, s := range kept {
				if abs(s-n) <= tsv {
					want = append(want, neardup.Match{ID: id, Score: float64(abs(s - n)), Measure: CountDifference})
				}
			}
			neardup.SortMatches(want)
			got, err := det.Match(t.Context(), d)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("T_s %d, %s: Match = %v, %v; want %v", tsv, d.ID, got, err, want)
			}
			if err := det.Add(t.Context(), d); err != nil {
				t.Fatal(err)
			}
			kept[d.ID] = n
			if r.IntN(3) == 0 {
				for id := range kept {
					if err := det.Remove(t.Context(), id); err != nil {
						t.Fatal(err)
					}
					delete(kept, id)
					break
				}
			}
		}
		distinct := map[int]bool{}
		for _, s := range kept {
			distinct[s] = true
		}
		if len(counts(det)) != len(distinct) || det.Len() != len(kept) {
			t.Fatalf("counts %v for %d distinct; Len %d, want %d", counts(det), len(distinct), det.Len(), len(kept))
		}
	}
}

func TestConcurrent(t *testing.T) {
	det := mustNew(t, Options{Threshold: SameCount, Relative: Absolute})
	var wg sync.WaitGroup
	var mu sync.Mutex
	added := map[int]int{}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= 50; i++ {
				d := doc(fmt.Sprintf("w%d-%d", w, i), i)
				if _, ok, err := det.MatchOrAdd(t.Context(), d); err != nil {
					t.Error(err)
				} else if ok {
					mu.Lock()
					added[i]++
					mu.Unlock()
				}
				if _, err := det.Match(t.Context(), doc("probe", i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for i := 1; i <= 50; i++ {
		if added[i] != 1 {
			t.Errorf("count %d kept %d times, want once", i, added[i])
		}
	}
}

// BenchmarkDetectorMatch measures Match in a repository of 100,000 pages
// with 1 to 200 sentences, for a page of 100: with T_s = 24 and the
// relative tolerance off ("absolute", about 24,500 candidates) and with the
// defaults (T_s = 24, Relative 0.6: counts 40 to 250, about 80,000).
func BenchmarkDetectorMatch(b *testing.B) {
	for _, c := range []struct {
		name string
		opts Options
	}{{"absolute", Options{Relative: Absolute}}, {"default", Options{}}} {
		b.Run(c.name, func(b *testing.B) {
			det := mustNew(b, c.opts)
			r := rand.New(rand.NewPCG(1, 1))
			for i := 0; i < 100000; i++ {
				if err := det.Add(b.Context(), doc(fmt.Sprint(i), 1+r.IntN(200))); err != nil {
					b.Fatal(err)
				}
			}
			q := doc("q", 100)
			b.ReportAllocs()
			var n int
			for b.Loop() {
				ms, err := det.Match(b.Context(), q)
				if err != nil {
					b.Fatal(err)
				}
				n = len(ms)
			}
			b.ReportMetric(float64(n), "candidates")
		})
	}
}

// Relative widens the tolerance to ⌊Relative·max(S_d, S_k)⌋ for long pages,
// symmetrically, and never narrows it below T_s.
func TestRelativeTolerance(t *testing.T) {
	det := mustNew(t, Options{Threshold: 2, Relative: 0.1})
	for _, c := range []struct {
		a, b int
		want bool
	}{
		{1, 3, true}, {1, 4, false}, {20, 22, true}, {20, 23, false},
		{100, 90, true}, {100, 89, false}, {100, 111, true}, {100, 112, false},
		{1000, 900, true}, {1000, 1111, true}, {1000, 1112, false},
	} {
		if got := det.Near(c.a, c.b); got != c.want || det.Near(c.b, c.a) != c.want {
			t.Errorf("Near(%d, %d) = %v, want %v (both ways)", c.a, c.b, got, c.want)
		}
	}
	for _, d := range []*neardup.Document{doc("far", 89), doc("near", 91), doc("short", 3), doc("long", 111), doc("too long", 112)} {
		if err := det.Add(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := det.Match(t.Context(), doc("new", 100)) // 91 and 111 in, 89 and 112 out
	if err != nil {
		t.Fatal(err)
	}
	want := []neardup.Match{{ID: "near", Score: 9, Measure: CountDifference}, {ID: "long", Score: 11, Measure: CountDifference}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Match = %v, want %v", got, want)
	}
	all := []neardup.Match{{ID: "far"}, {ID: "near"}, {ID: "short"}, {ID: "long"}, {ID: "too long"}}
	if v, _ := det.Verify(t.Context(), doc("new", 100), all); !reflect.DeepEqual(v, got) {
		t.Errorf("Verify = %v, want %v", v, got)
	}
	// The range query agrees with Near for every pair of small counts.
	for _, r := range []float64{Absolute, 0.05, 0.3, 0.5, 0.99, 1} {
		det := mustNew(t, Options{Threshold: 1, Relative: r})
		for b := 1; b <= 300; b++ {
			_ = det.Add(t.Context(), doc(fmt.Sprint(b), b))
		}
		for a := 1; a <= 200; a++ {
			ms, _ := det.Match(t.Context(), doc("q", a))
			got := map[string]bool{}
			for _, m := range ms {
				got[m.ID] = true
			}
			for b := 1; b <= 300; b++ {
				if got[fmt.Sprint(b)] != det.Near(a, b) {
					t.Fatalf("Relative %v: Match(%d) finds %d: %v, Near says %v", r, a, b, got[fmt.Sprint(b)], det.Near(a, b))
				}
			}
		}
	}
	for _, bad := range []float64{1.5, math.NaN()} {
		_, err := New(Options{Relative: bad})
		if !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("Relative %v: err = %v, want ErrInvalidOption", bad, err)
		} else if n := strings.Count(err.Error(), "sentence:"); n != 1 {
			t.Errorf("Relative %v: %q names the package %d times", bad, err, n)
		}
	}
}
