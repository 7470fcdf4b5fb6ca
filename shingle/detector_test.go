package shingle

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"

	"github.com/neardup/neardup/internal/race"
)

func TestOptions(t *testing.T) {
	bad := []Options{
		{M: -1, Form: Equation}, {M: MaxM + 1, Form: Equation}, {Threshold: -0.1, Form: Equation}, {Threshold: math.NaN(), Form: Equation},
		{Threshold: math.Inf(1), Form: Equation}, {Form: Form(7)},
		{Form: Normalized, Threshold: 1.01}, {Form: Normalized, Threshold: -1},
		{MaxPostings: -2}, {MaxPostings: 1<<24 + 1},
	}
	for _, o := range bad {
		if _, err := New(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidOption", o, err)
		}
		if _, err := Dedup(t.Context(), nil, o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("Dedup(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
	dt, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dt.Options(), (Options{M: 4, Threshold: DefaultThreshold, Form: Normalized, MaxPatterns: DefaultMaxPatterns, MaxPostings: DefaultMaxPostings}); got != want {
		t.Errorf("defaults = %+v, want %+v", got, want)
	}
	for _, f := range []Form{Equation, TableForm} {
		dt, _ = New(Options{Form: f})
		if got, want := dt.Options(), (Options{M: 4, Threshold: PaperThreshold, Form: f, MaxPatterns: DefaultMaxPatterns, MaxPostings: DefaultMaxPostings}); got != want {
			t.Errorf("%v defaults = %+v, want %+v", f, got, want)
		}
	}
	for _, o := range []Options{{M: 1, Form: Equation}, {M: MaxM, Form: Equation}, {Threshold: 25, Form: Equation}, {Form: TableForm}, {Form: Normalized, Threshold: 1}, {MaxPostings: NoLimit}, {MaxPostings: 1}} {
		if _, err := New(o); err != nil {
			t.Errorf("New(%+v): %v", o, err)
		}
	}
	if _, err := NewVector([]string{"a"}, 0); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("NewVector m = 0: err = %v", err)
	}
	if _, err := FromCounts(2, []PatternCount{{Pattern: []string{"a", "b", "c"}, Count: 1}}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("FromCounts with a 3-shingle, m = 2: err = %v", err)
	}
	if _, err := FromCounts(2, []PatternCount{{Pattern: []string{"a"}, Count: 0}}); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("FromCounts all zero: err = %v", err)
	}
}

func TestBadDocuments(t *testing.T) {
	dt, _ := New(Options{Form: Equation})
	cases := []struct {
		name string
		d    *neardup.Document
		want error
	}{
		{"nil", nil, neardup.ErrNilDocument},
		{"no page", &neardup.Document{ID: "x"}, neardup.ErrNilDocument},
		{"no tokens", doc("empty"), neardup.ErrNoFeatures},
	}
	for _, c := range cases {
		if _, err := dt.Match(t.Context(), c.d); !errors.Is(err, c.want) {
			t.Errorf("%s: Match err = %v, want %v", c.name, err, c.want)
		}
		if err := dt.Add(t.Context(), c.d); !errors.Is(err, c.want) {
			t.Errorf("%s: Add err = %v, want %v", c.name, err, c.want)
		}
		if _, _, err := dt.MatchOrAdd(t.Context(), c.d); !errors.Is(err, c.want) {
			t.Errorf("%s: MatchOrAdd err = %v, want %v", c.name, err, c.want)
		}
		if _, err := dt.Verify(t.Context(), c.d, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: Verify err = %v, want %v", c.name, err, c.want)
		}
		if _, err := Dedup(t.Context(), []*neardup.Document{c.d}, Options{Form: Equation}); !errors.Is(err, c.want) {
			t.Errorf("%s: Dedup err = %v, want %v", c.name, err, c.want)
		}
	}
	_, err := dt.Match(t.Context(), doc("empty"))
	if want := `shingle: document "empty": shingle: no tokens: neardup: document has no features`; err.Error() != want {
		t.Errorf("error text = %q, want %q", err, want)
	}
}

// TestShortDocuments: a page with fewer tokens than M has only the groups
// k ≤ len(tokens), each still weighted k/M.
func TestShortDocuments(t *testing.T) {
	v, err := NewVector([]string{"a", "b"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 3 {
		t.Errorf("2 tokens, M = 4: %d patterns, want 3 (a, b, a b)", v.Len())
	}
	if v.GroupSum(3) != 0 || v.GroupSum(4) != 0 {
		t.Errorf("groups 3, 4 of a 2-token page: %v, %v, want 0", v.GroupSum(3), v.GroupSum(4))
	}
	w := 1 / math.Sqrt(3)
	if got, want := v.GroupSum(1), 2*w/4; math.Abs(got-want) > 1e-6 {
		t.Errorf("GroupSum(1) = %v, want %v", got, want)
	}
	if got, want := v.GroupSum(2), w/2; math.Abs(got-want) > 1e-6 {
		t.Errorf("GroupSum(2) = %v, want %v", got, want)
	}
	// One token: a single unigram of weight 1, term 1/M.
	a, _ := NewVector([]string{"a"}, 4)
	b, _ := NewVector([]string{"b"}, 4)
	if got := Dissimilarity(a, b, Equation); math.Abs(got-0.5) > 1e-6 {
		t.Errorf("D(a, b) = %v, want 0.5", got)
	}
	// Short pages are found by the detector even when they share nothing.
	dt, _ := New(Options{M: 8, Threshold: 0.3, Form: Equation})
	if err := dt.Add(t.Context(), doc("a", "a")); err != nil {
		t.Fatal(err)
	}
	ms, err := dt.Match(t.Context(), doc("b", "b"))
	if err != nil || len(ms) != 1 || ms[0].ID != "a" || math.Abs(ms[0].Score-0.25) > 1e-6 {
		t.Errorf("M = 8, threshold 0.3: Match = %v, %v; want a at 0.25", ms, err)
	}
}

// TestDissimilarityInvalid: nil vectors, vectors of different M and an
// unknown Form give +Inf (never NaN, which compares false both ways).
func TestDissimilarityInvalid(t *testing.T) {
	a, _ := NewVector([]string{"a"}, 3)
	b, _ := NewVector([]string{"a"}, 4)
	for _, c := range []struct {
		x, y *Vector
		f    Form
	}{{a, b, Equation}, {nil, a, Equation}, {nil, nil, Equation}, {nil, nil, TableForm}, {nil, nil, Normalized},
		{a, a, Form(9)}, {a, b, Normalized}, {a, nil, Normalized}} {
		if got := Dissimilarity(c.x, c.y, c.f); !math.IsInf(got, 1) {
			t.Errorf("Dissimilarity(%p, %p, %v) = %v, want +Inf", c.x, c.y, c.f, got)
		}
	}
}

func TestDetector(t *testing.T) {
	base := testdataWords(t, "pageinspect.html", 0)
	edited := testdataWords(t, "pageinspect-edited.html", 0)
	other := words("the quick brown fox jumps over the lazy dog")
	v1, _ := NewVector(base, 4)
	v2, _ := NewVector(edited, 4)
	d12 := Dissimilarity(v1, v2, Equation)
	t.Logf("pageinspect vs edited copy: %d, %d tokens, Eq. (1) = %.3f", len(base), len(edited), d12)

	dt, err := New(Options{Threshold: d12 + 0.01, Form: Equation, MaxPatterns: NoLimit})
	if err != nil {
		t.Fatal(err)
	}
	ms, added, err := dt.MatchOrAdd(t.Context(), doc("base", base...))
	if err != nil || !added || len(ms) != 0 {
		t.Fatalf("first MatchOrAdd = %v, %v, %v", ms, added, err)
	}
	if err := dt.Add(t.Context(), doc("base", base...)); !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("second Add: err = %v, want ErrDuplicateID", err)
	}
	if err := dt.Add(t.Context(), doc("other", other...)); err != nil {
		t.Fatal(err)
	}
	e := doc("edited", edited...)
	ms, added, err = dt.MatchOrAdd(t.Context(), e)
	if err != nil || added || len(ms) != 1 || ms[0].ID != "base" || math.Abs(ms[0].Score-d12) > 1e-9 {
		t.Errorf("MatchOrAdd(edited) = %v, %v, %v; want base at %.3f", ms, added, err, d12)
	}
	vs, err := dt.Verify(t.Context(), e, []neardup.Match{{ID: "other"}, {ID: "base"}, {ID: "base"}, {ID: "nope"}})
	if err != nil || len(vs) != 1 || vs[0].ID != "base" {
		t.Errorf("Verify = %v, %v; want [base]", vs, err)
	}
	if err := dt.Remove(t.Context(), "base"); err != nil {
		t.Fatal(err)
	}
	if err := dt.Remove(t.Context(), "base"); !errors.Is(err, neardup.ErrUnknownID) {
		t.Errorf("second Remove: err = %v, want ErrUnknownID", err)
	}
	if ms, _ := dt.Match(t.Context(), e); len(ms) != 0 {
		t.Errorf("Match after Remove = %v, want none", ms)
	}
	if dt.Len() != 1 {
		t.Errorf("Len = %d, want 1", dt.Len())
	}
	if len(storeOf(dt).index) == 0 {
		t.Errorf("index empty with one document kept")
	}
	_ = dt.Remove(t.Context(), "other")
	if len(storeOf(dt).index) != 0 || len(storeOf(dt).short) != 0 {
		t.Errorf("index not empty after removing everything: %d keys, %d short", len(storeOf(dt).index), len(storeOf(dt).short))
	}
}

// exhaustive returns, for every i, the j < i within the threshold, sorted.
func exhaustive(vs []*Vector, o Options) [][]int {
	out := make([][]int, len(vs))
	for i := range vs {
		for j := range i {
			if Dissimilarity(vs[i], vs[j], o.Form) < o.Threshold {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// TestIndexExact: with Form Equation and Normalized the prefix index finds
// exactly the pairs that comparing every pair finds, on synthetic pages of
// many lengths (including pages shorter than M and pages lighter than the
// threshold).
func TestIndexExact(t *testing.T) {
	n := 300
	if race.Enabled {
		n = 150 // the exhaustive check is quadratic
	}
	pages := synthetic(1, n, 1, 300)
	for _, o := range []Options{
		{M: 4, Threshold: 0.2, Form: Equation}, {M: 4, Threshold: 1, Form: Equation}, {M: 4, Threshold: 3, Form: Equation},
		{M: 2, Threshold: 0.5, Form: Equation}, {M: 8, Threshold: 0.35, Form: Equation},
		{M: 4, Form: Normalized}, {M: 4, Threshold: 0.6, Form: Normalized},
		{M: 2, Threshold: 0.9, Form: Normalized},
	} {
		o.MaxPatterns, o.MaxPostings = NoLimit, NoLimit // the exact method
		o, _ := o.resolve()
		t.Run(fmt.Sprintf("%v_M%d_T%g", o.Form, o.M, o.Threshold), func(t *testing.T) {
			vs := make([]*Vector, len(pages))
			dt, _ := New(o)
			got := make([][]int, len(pages))
			for i, p := range pages {
				vs[i], _ = NewVector(p, o.M)
				ms, err := dt.Match(t.Context(), doc(fmt.Sprint(i), p...))
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range ms {
					var j int
					fmt.Sscan(m.ID, &j)
					got[i] = append(got[i], j)
				}
				slices.Sort(got[i])
				_ = dt.Add(t.Context(), doc(fmt.Sprint(i), p...))
			}
			want := exhaustive(vs, o)
			pairs := 0
			for i := range want {
				pairs += len(want[i])
				if !slices.Equal(got[i], want[i]) {
					t.Errorf("page %d: index finds %v, exhaustive %v", i, got[i], want[i])
				}
			}
			t.Logf("%d pairs below the threshold, all found", pairs)
			if pairs == 0 {
				t.Errorf("no pair below the threshold: the test proves nothing")
			}
		})
	}
}

func TestConcurrent(t *testing.T) {
	pages := synthetic(2, 200, 20, 200)
	dt, _ := New(Options{Threshold: 1, Form: Equation})
	var wg sync.WaitGroup
	var mu sync.Mutex
	kept := map[string]bool{}
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(pages); i += 4 {
				id := fmt.Sprint(i)
				d := doc(id, pages[i]...)
				_, added, err := dt.MatchOrAdd(t.Context(), d)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := dt.Match(t.Context(), d); err != nil {
					t.Error(err)
				}
				mu.Lock()
				kept[id] = added
				mu.Unlock()
				if i%7 == 0 && added {
					_ = dt.Remove(t.Context(), id)
					mu.Lock()
					kept[id] = false
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	// No two kept pages are near-duplicates: MatchOrAdd is atomic.
	var ids []string
	for id, k := range kept {
		if k {
			ids = append(ids, id)
		}
	}
	if dt.Len() != len(ids) {
		t.Errorf("Len = %d, want %d", dt.Len(), len(ids))
	}
	for _, a := range ids {
		for _, b := range ids {
			var i, j int
			fmt.Sscan(a, &i)
			fmt.Sscan(b, &j)
			if i < j {
				va, _ := NewVector(pages[i], 4)
				vb, _ := NewVector(pages[j], 4)
				if d := Dissimilarity(va, vb, Equation); d < 1 {
					t.Errorf("kept %d and %d at %.3f", i, j, d)
				}
			}
		}
	}
}

// TestNormalizedPrefixExact is the property behind the Normalized index: for
// every pair with D_n < t, the first pattern the two share (in key order)
// lies in both prefixes of weight 2t·S/(1+t). Pages are short (1..12 tokens
// of a 6-word vocabulary, so D_n covers (0, 1]) or near-duplicates of longer
// random pages; each pair is checked against exhaustive comparison through a
// Detector, and the test reports how much of the prefix bound the pairs
// needed (a ratio near 1 means the bound is nearly tight: a prefix much
// shorter would miss pairs).
func TestNormalizedPrefixExact(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	var pages [][]string
	for range 250 {
		ts := make([]string, 1+r.IntN(12))
		for i := range ts {
			ts[i] = fmt.Sprint("v", r.IntN(6))
		}
		pages = append(pages, ts)
	}
	pages = append(pages, synthetic(5, 150, 20, 200)...)
	for _, m := range []int{1, 4} {
		for _, th := range []float64{0.05, 0.2, DefaultThreshold, 0.6, 1} {
			o := Options{M: m, Threshold: th, Form: Normalized, MaxPatterns: NoLimit, MaxPostings: NoLimit}
			vs := make([]*Vector, len(pages))
			for i, p := range pages {
				vs[i], _ = NewVector(p, m)
			}
			want := exhaustive(vs, o)
			dt, _ := New(o)
			pairs, worst := 0, 0.0
			for i, v := range vs {
				var got []int
				for _, x := range storeOf(dt).Search(v, nil) {
					got = append(got, int(x.H))
				}
				slices.Sort(got)
				if !slices.Equal(got, want[i]) {
					t.Errorf("M %d, t %g, page %d: index finds %v, exhaustive %v", m, th, i, got, want[i])
				}
				for _, j := range want[i] {
					pairs++
					wi, wj := firstSharedWeight(v, vs[j]), firstSharedWeight(vs[j], v)
					worst = max(worst, wi/o.prefixWeight(v), wj/o.prefixWeight(vs[j]))
				}
				_ = storeOf(dt).Insert(detector.Handle(i), v)
			}
			t.Logf("M %d, t %g: %d pairs, all found; largest weight before the first shared key / prefix bound = %.3f", m, th, pairs, worst)
			if worst >= 1 {
				t.Errorf("M %d, t %g: a pair's first shared key lies beyond a prefix (%.3f of the bound)", m, th, worst)
			}
		}
	}
}

// firstSharedWeight returns the weight of a's keys before the first key it
// shares with b (+Inf when none): that key is in a's prefix iff this weight
// is below the prefix bound.
func firstSharedWeight(a, b *Vector) float64 {
	var sum float64
	for i, key := range a.keys {
		if _, ok := slices.BinarySearch(b.keys, key); ok {
			return sum
		}
		sum += float64(a.s[i])
	}
	return math.Inf(1)
}

// TestSample: a kept page with more than MaxPatterns patterns keeps the
// MaxPatterns of smallest hash; its estimated dissimilarity to an edited
// copy stays within 0.03 of the exact one, on both sides of the decision;
// and a snapshot carries the sample (its cut and its page's totals).
func TestSample(t *testing.T) {
	base := testdataWords(t, "pageinspect.html", 0)
	edited := testdataWords(t, "pageinspect-edited.html", 0)
	v1, _ := NewVector(base, 4)
	v2, _ := NewVector(edited, 4)
	if s := v1.sample(v1.Len()); s != v1 {
		t.Error("a sample as large as the vector is not the vector")
	}
	for _, p := range []int{64, 256, 512, 2048} {
		s := v1.sample(p)
		if s.Len() != p || !s.sampled() || s.total != v1.total {
			t.Fatalf("sample(%d): %d patterns, sampled %v, total %v (page %v)", p, s.Len(), s.sampled(), s.total, v1.total)
		}
		for _, key := range s.keys {
			if hashOf(key) > s.cut {
				t.Fatalf("sample(%d) holds a key above its cut", p)
			}
		}
		for _, key := range v1.keys {
			if _, in := slices.BinarySearch(s.keys, key); in != (hashOf(key) <= s.cut) {
				t.Fatalf("sample(%d) is not the patterns below its cut", p)
			}
		}
		for _, f := range []Form{Normalized, Equation} {
			exact, est := Dissimilarity(v1, v2, f), Dissimilarity(s, v2, f)
			scale := 1.0
			if f == Equation {
				scale = v1.total + v2.total
			}
			if math.Abs(exact-est)/scale > 0.03 {
				t.Errorf("sample(%d), %v: estimate %.4f, exact %.4f", p, f, est, exact)
			}
			if both := Dissimilarity(s, v2.sample(p), f); math.Abs(both-est)/scale > 0.03 {
				t.Errorf("sample(%d), %v: two samples give %.4f, one %.4f", p, f, both, est)
			}
		}
	}

	dt, _ := New(Options{}) // MaxPatterns 512
	if err := dt.Add(t.Context(), doc("base", base...)); err != nil {
		t.Fatal(err)
	}
	if kept := storeOf(dt).Feature(0); !kept.sampled() || kept.Len() != DefaultMaxPatterns {
		t.Fatalf("kept vector: sampled %v, %d patterns", kept.sampled(), kept.Len())
	}
	want, err := dt.Match(t.Context(), doc("edited", edited...))
	if err != nil || len(want) != 1 {
		t.Fatalf("Match(edited) = %v, %v", want, err)
	}
	t.Logf("edited copy: exact %.4f, from the kept sample %.4f", Dissimilarity(v1, v2, Normalized), want[0].Score)
	var buf bytes.Buffer
	if _, err := dt.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, _ := New(Options{})
	if _, err := back.ReadFrom(&buf); err != nil {
		t.Fatal(err)
	}
	if got, err := back.Match(t.Context(), doc("edited", edited...)); err != nil || !slices.Equal(got, want) {
		t.Errorf("after a round trip Match = %v, %v; want %v", got, err, want)
	}
	exact, _ := New(Options{MaxPatterns: NoLimit})
	buf.Reset()
	dt.WriteTo(&buf)
	if _, err := exact.ReadFrom(&buf); !errors.Is(err, neardup.ErrSnapshotMismatch) {
		t.Errorf("a sampled snapshot read by an exact detector: %v", err)
	}
	if _, err := New(Options{MaxPatterns: 15}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("MaxPatterns 15: %v", err)
	}
}

// TestLookup checks that Lookup gives back the vector a page was kept with,
// and nothing for an ID that is not kept.
func TestLookup(t *testing.T) {
	dt, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := doc("a", "the", "quick", "brown", "fox", "jumps")
	if err := dt.Add(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	want, err := VectorOf(d, DefaultM)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := dt.Lookup("a")
	if !ok || got.Len() != want.Len() || Dissimilarity(got, want, Equation) != 0 {
		t.Errorf("Lookup(a) = %v, %v; want the page's vector of %d patterns", got, ok, want.Len())
	}
	if _, ok := dt.Lookup("b"); ok {
		t.Error("Lookup(b) found a page that was never kept")
	}
}

// TestMaxPostings: pages of one site share its template, which fills the
// indexed prefixes; with the default MaxPostings a new page of the site is
// compared with a bounded number of them, not with all, and still finds its
// near-duplicate through the patterns of its own content.
func TestMaxPostings(t *testing.T) {
	template := synthetic(3, 1, 100, 100)[0]
	page := func(i int) []string { // the template, then an article of its own
		p := slices.Clip(template)
		for j := range 300 {
			p = append(p, fmt.Sprintf("a%d.%d", i, j))
		}
		return p
	}
	for _, c := range []struct {
		o           Options
		least, most int64 // kept pages compared with the edited page
	}{
		// A template pattern near the end of the prefixes is in the
		// prefixes of some pages only: a few lists of the template stay
		// short and are looked up.
		{Options{}, 1, 2 * DefaultMaxPostings},
		{Options{MaxPostings: NoLimit}, 400, 400},
	} {
		dt, err := New(c.o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 400 {
			if err := dt.Add(t.Context(), doc(fmt.Sprint(i), page(i)...)); err != nil {
				t.Fatal(err)
			}
		}
		limit := dt.Options().MaxPostings
		// Page 7 with a word changed shares all but a few patterns with it.
		edited := page(7)
		edited[len(edited)-3] = "changed"
		before := dt.Comparisons()
		ms, err := dt.Match(t.Context(), doc("edited", edited...))
		if err != nil {
			t.Fatal(err)
		}
		n := dt.Comparisons() - before
		if len(ms) != 1 || ms[0].ID != "7" {
			t.Errorf("MaxPostings %d: %d matches, want page 7 alone: %.50v", limit, len(ms), ms)
		}
		if n < c.least || n > c.most {
			t.Errorf("MaxPostings %d: compared with %d kept pages, want %d..%d", limit, n, c.least, c.most)
		}
		// A new article of the site matches none.
		before = dt.Comparisons()
		if ms, err := dt.Match(t.Context(), doc("new", page(400)...)); err != nil || len(ms) != 0 {
			t.Errorf("MaxPostings %d: a new article has %d matches (%v)", limit, len(ms), err)
		}
		if n := dt.Comparisons() - before; n > c.most {
			t.Errorf("MaxPostings %d: a new article compared with %d kept pages, want at most %d", limit, n, c.most)
		}
	}
}

// TestMaxPostingsCopies: a page kept more than MaxPostings times (by Add)
// makes every pattern of its prefix common; a copy of it still finds
// MaxPostings of the kept copies.
func TestMaxPostingsCopies(t *testing.T) {
	dt, _ := New(Options{})
	page := synthetic(5, 1, 200, 200)[0]
	for i := range 3 * DefaultMaxPostings {
		if err := dt.Add(t.Context(), doc(fmt.Sprint(i), page...)); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := dt.Match(t.Context(), doc("copy", page...))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != DefaultMaxPostings || ms[0].Score != 0 {
		t.Errorf("a copy of a page kept %d times: %d matches (first %v), want %d at 0", 3*DefaultMaxPostings, len(ms), ms[:min(1, len(ms))], DefaultMaxPostings)
	}
}

// estimateMerge is estimate as one merge over every pattern of both
// vectors, skipping none.
func estimateMerge(a, b *Vector, f Form) float64 {
	tau := min(a.cut, b.cut)
	var sa, sb, shared float64
	i, j := 0, 0
	for i < len(a.keys) || j < len(b.keys) {
		var x, y uint64 = math.MaxUint64, math.MaxUint64
		if i < len(a.keys) {
			x = a.keys[i]
		}
		if j < len(b.keys) {
			y = b.keys[j]
		}
		if x <= y {
			if hashOf(x) <= tau {
				sa += float64(a.s[i])
				if x == y {
					shared += float64(min(a.s[i], b.s[j]))
				}
			}
			i++
		}
		if y <= x {
			if hashOf(y) <= tau {
				sb += float64(b.s[j])
			}
			j++
		}
	}
	d := max(0, (sa+sb-2*shared)/(sa+sb))
	if f == Equation {
		return d * (a.total + b.total)
	}
	return d
}

// TestEstimateSkips: estimate, which skips the patterns of each k group
// past the cut, gives exactly what one merge over every pattern gives, for
// whole vectors against samples and samples against samples, near and far.
func TestEstimateSkips(t *testing.T) {
	pages := synthetic(9, 60, 20, 900) // a third are edited copies
	var whole, samples []*Vector
	for _, p := range pages {
		v, _ := NewVector(p, DefaultM)
		whole = append(whole, v)
		samples = append(samples, v.sample(64))
	}
	sampled := 0
	for i := range pages {
		for j := range pages {
			for _, pair := range [][2]*Vector{{whole[i], samples[j]}, {samples[i], samples[j]}, {samples[i], whole[j]}} {
				a, b := pair[0], pair[1]
				if !a.sampled() && !b.sampled() {
					continue
				}
				sampled++
				for _, f := range []Form{Normalized, Equation} {
					if got, want := estimate(a, b, f), estimateMerge(a, b, f); got != want {
						t.Fatalf("pages %d, %d, %v: estimate %v, one merge %v", i, j, f, got, want)
					}
				}
			}
		}
	}
	if sampled < len(pages)*len(pages) {
		t.Errorf("only %d pairs with a sample: the test proves little", sampled)
	}
}
