package cluster

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/neardup/neardup"
)

// threeTopics is a hand-made keyword set of three topics, three documents
// each, every document three keywords of its topic's five.
func threeTopics() []*neardup.Document {
	return []*neardup.Document{
		kwDoc("fruit0", "apple", "banana", "cherry"),
		kwDoc("fruit1", "apple", "banana", "grape"),
		kwDoc("fruit2", "banana", "cherry", "lemon"),
		kwDoc("car0", "engine", "wheel", "brake"),
		kwDoc("car1", "engine", "wheel", "clutch"),
		kwDoc("car2", "wheel", "brake", "piston"),
		kwDoc("sky0", "star", "moon", "comet"),
		kwDoc("sky1", "star", "moon", "orbit"),
		kwDoc("sky2", "moon", "comet", "planet"),
	}
}

// TestFitThreeTopics works the hand-made set through by hand. Cao's
// densities (Σ df / (n·|x|), n = 9): fruit0, car0 and sky0 have 7/27, the
// others 6/27, so fruit0 is the first centre; car0 and sky0 are at cosine
// dissimilarity 1 from it and win the density × distance products in turn.
// The first pass puts every document with its topic; the modes become each
// topic's three most frequent keywords (banana 3, then apple and cherry at 2,
// apple first by first appearance), equal to the centres, so the second pass
// moves nothing. Each cluster costs 1 − 2/3 for each of its two documents
// that share two of the mode's three keywords: 2 in all (simple matching:
// |A Δ M| = 2 for six documents, 12).
func TestFitThreeTopics(t *testing.T) {
	for _, tc := range []struct {
		sim  Similarity
		cost float64
	}{{Cosine, 2}, {Matching, 12}} {
		t.Run(tc.sim.String(), func(t *testing.T) {
			km := mustNew(t, KModesOptions{K: 3, Keywords: 3, ModeKeywords: 3, Similarity: tc.sim})
			if err := km.Fit(threeTopics()); err != nil {
				t.Fatal(err)
			}
			st := km.Stats()
			if got, want := st.Labels, []int{0, 0, 0, 1, 1, 1, 2, 2, 2}; !slices.Equal(got, want) {
				t.Errorf("Labels = %v, want %v", got, want)
			}
			if !st.Converged || st.Iterations != 2 {
				t.Errorf("Converged %v after %d passes, want true after 2", st.Converged, st.Iterations)
			}
			if math.Abs(st.Cost-tc.cost) > 1e-12 {
				t.Errorf("Cost = %v, want %v", st.Cost, tc.cost)
			}
			for j, want := range [][]string{{"banana", "apple", "cherry"}, {"wheel", "engine", "brake"}, {"moon", "star", "comet"}} {
				if got := st.Modes[j]; !slices.Equal(got, want) {
					t.Errorf("Modes[%d] = %v, want %v", j, got, want)
				}
			}
			if len(st.Sizes) != 1 || !slices.Equal(st.Sizes[0], []int{3, 3, 3}) || st.Documents != 9 || st.Fits != 1 {
				t.Errorf("Sizes = %v, %d documents, %d fits; want [[3 3 3]], 9, 1", st.Sizes, st.Documents, st.Fits)
			}
			// A new page about the sky with one unknown keyword.
			ps, err := km.Partition(kwDoc("new", "comet", "orbit", "telescope"))
			if err != nil || !slices.Equal(ps, []int{2}) {
				t.Errorf("Partition(comet orbit telescope) = %v, %v; want [2]", ps, err)
			}
		})
	}
}

// TestFitAmbiguous is a set of documents (keywords w1, w2, ...; C = {w1, w2,
// w6, w7}) with one document between two topics. k = 2, m = 4. Densities (Σ df / 20): C = {1,2,6,7} has 12, the
// others 9, so C is the first centre; A, B, D and E are all at cosine
// dissimilarity 1/2 from it with the same density, and A (the lowest index)
// is the second. Pass 1: A, B → cluster 1; C, D, E → cluster 0. Modes: {6,
// 7, 8, 1} (6 and 7 in three documents, 8 in two, then 1 the lowest of the
// codes in one) and {1, 2, 3, 4}. Pass 2: C shares three codes with mode 0
// and two with mode 1, so nothing moves. Cost: 0 + 4 × (1 − 3/4) = 1.
func TestFitAmbiguous(t *testing.T) {
	items := [][]uint32{{1, 2, 3, 4}, {1, 2, 3, 5}, {1, 2, 6, 7}, {6, 7, 8, 9}, {6, 7, 8, 10}}
	km := mustNew(t, KModesOptions{K: 2, Keywords: 4, ModeKeywords: 4})
	if err := km.Fit(codeDocs(items)); err != nil {
		t.Fatal(err)
	}
	st := km.Stats()
	if got, want := st.Labels, []int{1, 1, 0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("Labels = %v, want %v", got, want)
	}
	if got, want := st.Modes[0], codeWords(6, 7, 8, 1); !slices.Equal(got, want) {
		t.Errorf("Modes[0] = %v, want %v", got, want)
	}
	if got, want := st.Modes[1], codeWords(1, 2, 3, 4); !slices.Equal(got, want) {
		t.Errorf("Modes[1] = %v, want %v", got, want)
	}
	if math.Abs(st.Cost-1) > 1e-12 || !st.Converged || st.Iterations != 2 {
		t.Errorf("Cost %v, converged %v after %d; want 1, true after 2", st.Cost, st.Converged, st.Iterations)
	}
	// Keywords the fit never saw share nothing: ties go to cluster 0.
	if j, err := home(km, kwDoc("unknown", codeWords(100, 101)...)); err != nil || j != 0 {
		t.Errorf("home of unknown = %d, %v; want 0", j, err)
	}
	if ps, err := km.nearest(kwDoc("n", codeWords(1, 2, 3, 99)...), 2); err != nil || !slices.Equal(ps, []int{1, 0}) {
		t.Errorf("nearest 2 = %v, %v; want [1 0]", ps, err)
	}
}

// TestFitRecoversTopics fits noisy items from known topics and checks that
// each cluster is one topic, for both initialisations and similarities, with
// modes as large as the items (a mode of the default 200 keywords is larger
// than these topics' vocabularies of 30 and may hold two of them).
func TestFitRecoversTopics(t *testing.T) {
	items, topic := topics(1, 600, 6, 10, 0.2)
	for _, o := range []KModesOptions{
		{K: 6, Keywords: 10, ModeKeywords: 10},
		{K: 6, Keywords: 10, ModeKeywords: 30},
		{K: 6, Keywords: 10, Similarity: Matching},
		{K: 6, Keywords: 10, ModeKeywords: 10, Init: Huang, Seed: 3},
		{K: 6, Keywords: 10, Init: Huang, Seed: 3, Similarity: Matching},
	} {
		km := mustNew(t, o)
		if err := km.Fit(codeDocs(items)); err != nil {
			t.Fatal(err)
		}
		// purity: the share of items in their cluster's majority topic
		votes := map[[2]int]int{}
		st := km.Stats()
		for i, j := range st.Labels {
			votes[[2]int{j, topic[i]}]++
		}
		best := make([]int, 6)
		for jt, n := range votes {
			best[jt[0]] = max(best[jt[0]], n)
		}
		pure := 0
		for _, n := range best {
			pure += n
		}
		if purity := float64(pure) / float64(len(items)); purity < 0.95 || !st.Converged {
			t.Errorf("%v/%v: purity %.3f, converged %v after %d passes; want ≥ 0.95, converged", o.Init, o.Similarity, purity, st.Converged, st.Iterations)
		}
	}
}

// TestDeterminism: the same options, seed and items give the same fit,
// whatever the number of workers; Huang with another seed draws otherwise.
func TestDeterminism(t *testing.T) {
	items, _ := topics(2, 800, 10, 8, 0.4)
	docs := codeDocs(items)
	type result struct {
		labels []int
		cost   float64
		modes  [][]string
	}
	fitOnce := func(o KModesOptions) result {
		km := mustNew(t, o)
		if err := km.Fit(docs); err != nil {
			t.Fatal(err)
		}
		st := km.Stats()
		return result{labels: st.Labels, cost: st.Cost, modes: st.Modes}
	}
	same := func(a, b result) bool {
		return slices.Equal(a.labels, b.labels) && a.cost == b.cost &&
			slices.EqualFunc(a.modes, b.modes, func(x, y []string) bool { return slices.Equal(x, y) })
	}
	for _, o := range []KModesOptions{{K: 10, Keywords: 8}, {K: 10, Keywords: 8, Init: Huang, Seed: 42, NInit: 6}} {
		first := fitOnce(o)
		for _, w := range []int{1, 2, 5} {
			o.Workers = w
			if again := fitOnce(o); !same(first, again) {
				t.Errorf("%v: fit with %d workers differs from the first", o.Init, w)
			}
		}
	}
	a := fitOnce(KModesOptions{K: 10, Keywords: 8, Init: Huang, Seed: 1, NInit: 1})
	b := fitOnce(KModesOptions{K: 10, Keywords: 8, Init: Huang, Seed: 2, NInit: 1})
	if same(a, b) {
		t.Errorf("Huang with seeds 1 and 2 gave the same fit: the seed is not used")
	}
	// More Huang runs never give a higher cost than their first run alone.
	one := fitOnce(KModesOptions{K: 10, Keywords: 8, Init: Huang, Seed: 7, NInit: 1})
	ten := fitOnce(KModesOptions{K: 10, Keywords: 8, Init: Huang, Seed: 7, NInit: 10})
	if ten.cost > one.cost {
		t.Errorf("Huang NInit 10 cost %v > NInit 1 cost %v", ten.cost, one.cost)
	}
}

// TestHomeAgreesWithFit: every fitted document's home is its label, for
// converged fits and for fits stopped by the iteration cap, and its p most
// similar clusters are the start of its ranking of all k.
func TestHomeAgreesWithFit(t *testing.T) {
	items, _ := topics(5, 500, 8, 6, 0.5) // noisy: ties and moves
	docs := codeDocs(items)
	for _, o := range []KModesOptions{
		{K: 8, Keywords: 6},
		{K: 8, Keywords: 6, Similarity: Matching},
		{K: 8, Keywords: 6, Init: Huang, Seed: 9, NInit: 3},
		{K: 8, Keywords: 6, MaxIter: 1},
		{K: 8, Keywords: 6, MaxIter: 2, Similarity: Matching},
		{K: 13, Keywords: 4}, // f below the items' size
	} {
		km := mustNew(t, o)
		if err := km.Fit(docs); err != nil {
			t.Fatal(err)
		}
		st := km.Stats()
		labels := st.Labels
		for i, d := range docs {
			if j, err := home(km, d); err != nil || j != labels[i] {
				t.Fatalf("%+v: home of %s = %d, %v; Fit's label %d", o, d.ID, j, err, labels[i])
			}
			all, err := km.nearest(d, o.K)
			if err != nil || len(all) != o.K || all[0] != labels[i] {
				t.Fatalf("%+v: nearest(%s, k) = %v, %v; want %d first", o, d.ID, all, err, labels[i])
			}
			for p := 1; p < o.K; p++ { // selection for small p, a sort for large
				if ps, _ := km.nearest(d, p); !slices.Equal(ps, all[:p]) {
					t.Fatalf("%+v: nearest(%s, %d) = %v, not the start of %v", o, d.ID, p, ps, all)
				}
			}
		}
		if o.MaxIter == 0 && !st.Converged {
			t.Errorf("%+v: not converged after %d passes", o, st.Iterations)
		}
		if o.MaxIter > 0 && st.Iterations > o.MaxIter {
			t.Errorf("%+v: %d passes", o, st.Iterations)
		}
	}
}

// TestModesAreTopKeywords: after a converged fit, each mode is the f
// keywords most frequent among its cluster's items (count descending, then
// first appearance), and the cost is the sum of the items' dissimilarities.
func TestModesAreTopKeywords(t *testing.T) {
	items, _ := topics(8, 400, 5, 7, 0.3)
	km := mustNew(t, KModesOptions{K: 5, Keywords: 7, ModeKeywords: 7})
	if err := km.Fit(codeDocs(items)); err != nil {
		t.Fatal(err)
	}
	st := km.Stats()
	if !st.Converged {
		t.Fatal("not converged")
	}
	labels := st.Labels
	first := map[uint32]int{} // code -> order of first appearance
	for _, it := range items {
		for _, c := range it {
			if _, ok := first[c]; !ok {
				first[c] = len(first)
			}
		}
	}
	cost := 0.0
	for j := range 5 {
		counts := map[uint32]int{}
		for i, l := range labels {
			if l == j {
				for _, c := range items[i] {
					counts[c]++
				}
			}
		}
		var codes []uint32
		for c := range counts {
			codes = append(codes, c)
		}
		slices.SortFunc(codes, func(a, b uint32) int {
			if counts[a] != counts[b] {
				return counts[b] - counts[a]
			}
			return first[a] - first[b]
		})
		want := codes[:7]
		if got := st.Modes[j]; !slices.Equal(got, codeWords(want...)) {
			t.Errorf("Modes[%d] = %v, want %v", j, got, codeWords(want...))
		}
		for i, l := range labels {
			if l == j {
				inter := 0
				for _, c := range items[i] {
					if slices.Contains(want, c) {
						inter++
					}
				}
				cost += 1 - float64(inter)/math.Sqrt(float64(len(items[i])*7))
			}
		}
	}
	if math.Abs(cost-st.Cost) > 1e-9 {
		t.Errorf("Cost = %v, recomputed %v", st.Cost, cost)
	}
}

// TestUpdate: Update folds items into the modes one at a time, and the modes
// stay exactly the top keywords of everything the clusters hold.
func TestUpdate(t *testing.T) {
	items, _ := topics(11, 300, 4, 6, 0.3)
	more, _ := topics(12, 200, 4, 6, 0.6)
	km := mustNew(t, KModesOptions{K: 4, Keywords: 6, ModeKeywords: 6})
	if err := km.Fit(codeDocs(items)); err != nil {
		t.Fatal(err)
	}
	members := make([][][]uint32, 4)
	for i, j := range km.Stats().Labels {
		members[j] = append(members[j], items[i])
	}
	for i, d := range codeDocs(more) {
		want, _ := home(km, d)
		j, err := km.Update(d)
		if err != nil || j != want {
			t.Fatalf("Update = %d, %v; Partition said %d", j, err, want)
		}
		members[j] = append(members[j], more[i])
	}
	// Recompute every mode from scratch on a fresh fit of nothing but the
	// counts: the top 6 codes by count, ties by first appearance.
	ids := map[uint32]int{}
	for _, set := range [][][]uint32{items, more} {
		for _, it := range set {
			for _, c := range it {
				if _, ok := ids[c]; !ok {
					ids[c] = len(ids)
				}
			}
		}
	}
	for j, ms := range members {
		counts := map[uint32]int{}
		for _, it := range ms {
			for _, c := range it {
				counts[c]++
			}
		}
		var codes []uint32
		for c := range counts {
			codes = append(codes, c)
		}
		slices.SortFunc(codes, func(a, b uint32) int {
			if counts[a] != counts[b] {
				return counts[b] - counts[a]
			}
			return ids[a] - ids[b]
		})
		st := km.Stats()
		if got, want := st.Modes[j], codeWords(codes[:6]...); !slices.Equal(got, want) {
			t.Errorf("after updates Modes[%d] = %v, want %v", j, got, want)
		}
		if st.Sizes[0][j] != len(ms) {
			t.Errorf("Sizes[0][%d] = %d, want %d", j, st.Sizes[0][j], len(ms))
		}
	}
	// Update of documents on a KModes fitted on documents.
	kd := mustNew(t, KModesOptions{K: 3, Keywords: 3, ModeKeywords: 3})
	if err := kd.Fit(threeTopics()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if j, err := kd.Update(kwDoc("x", "moon", "telescope", "lens")); err != nil || j != 2 {
			t.Fatalf("Update = %d, %v; want 2", j, err)
		}
	}
	// telescope and lens now count 3, as many as moon: they enter the mode
	// in place of comet (2) and star (2).
	if got := kd.Stats().Modes[2]; !slices.Equal(got, []string{"moon", "telescope", "lens"}) {
		t.Errorf("Modes[2] after updates = %v, want [moon telescope lens]", got)
	}
}

// TestRemoveKeepsModesExact exercises the model's remove path directly.
func TestRemoveKeepsModesExact(t *testing.T) {
	items, _ := topics(13, 200, 3, 5, 0.5)
	v := newVocab[uint32]()
	var its []item
	for _, it := range items {
		its = append(its, v.internItem(it))
	}
	md := fit(newFitData(its, v.len()), KModesOptions{K: 3, Keywords: 5}.mustFitConfig(t, 3))
	// Remove every other item, then check each mode against a recompute.
	for i := 0; i < len(its); i += 2 {
		md.remove(int(md.labels[i]), its[i].ids)
	}
	for j := range md.centres {
		got := md.modeByRank(j)
		md.recompute(j)
		if want := md.modeByRank(j); !slices.Equal(got, want) {
			t.Errorf("cluster %d: mode after removes %v, recomputed %v", j, got, want)
		}
	}
}

func (o KModesOptions) mustFitConfig(t *testing.T, k int) fitConfig {
	t.Helper()
	r, err := o.resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r.fitConfig(k)
}

func TestBadInput(t *testing.T) {
	for _, o := range []KModesOptions{
		{K: -1}, {Keywords: -1}, {K: 2, Probes: 3}, {Probes: -1}, {NInit: 2}, {NInit: -1},
		{Init: Huang, NInit: -2}, {MaxIter: -1}, {Similarity: 7}, {Init: 9}, {Workers: -1},
	} {
		if _, err := NewKModes(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("NewKModes(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
	if _, err := New(Options{NewDetector: cascades, Growth: 0.5}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("New(Growth 0.5): err = %v", err)
	}
	if _, err := New(Options{NewDetector: cascades, KModes: KModesOptions{K: -3}}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("New(K -3): err = %v", err)
	}
	if _, err := New(Options{NewDetector: func(int, int) (neardup.Detector, error) { return nil, nil }}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("New(NewDetector returning nil): err = %v", err)
	}

	km := mustNew(t, KModesOptions{K: 4, Keywords: 3})
	docs := threeTopics()
	if _, err := km.Partition(docs[0]); !errors.Is(err, ErrNotFitted) {
		t.Errorf("Partition before Fit: err = %v, want ErrNotFitted", err)
	}
	if err := km.Fit(docs[:3]); !errors.Is(err, ErrTooFew) || !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("Fit of 3 documents with k = 4: err = %v, want ErrTooFew", err)
	}
	same := []*neardup.Document{docs[0], docs[0], docs[0], docs[1], kwDoc("x", "cherry", "apple", "banana")}
	if err := km.Fit(same); !errors.Is(err, ErrTooFew) {
		t.Errorf("Fit of 5 documents with 2 distinct keyword sets, k = 4: err = %v, want ErrTooFew", err)
	}
	if err := km.Fit(nil); !errors.Is(err, ErrTooFew) {
		t.Errorf("Fit(nil): err = %v, want ErrTooFew", err)
	}
	empty := kwDoc("empty")
	if err := km.Fit(append(docs[:4:4], empty)); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Fit with a document without keywords: err = %v, want ErrNoFeatures", err)
	}
	if err := km.Fit(append(docs[:4:4], nil)); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Fit with a nil document: err = %v, want ErrNilDocument", err)
	}
	if km.Stats().Fits > 0 {
		t.Fatal("failed fits left a model")
	}
	if err := km.Fit(docs); err != nil {
		t.Fatal(err)
	}
	if _, err := km.Partition(empty); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Partition(no keywords): err = %v, want ErrNoFeatures", err)
	}
	if _, err := km.Partition(nil); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Partition(nil): err = %v, want ErrNilDocument", err)
	}
	if _, err := KeywordsOf(docs[0], 0); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("KeywordsOf(f = 0): err = %v, want ErrInvalidOption", err)
	}
	// The zero KModes fits with the defaults (k = DefaultK > 4 documents: ErrTooFew).
	var zero KModes
	if err := zero.Fit(codeDocs([][]uint32{{1}, {2}, {3}, {4}})); !errors.Is(err, ErrTooFew) {
		t.Errorf("zero KModes Fit of 4 documents: err = %v, want ErrTooFew (k = %d)", err, DefaultK)
	}
	if st := zero.Stats(); !reflect.DeepEqual(st, Stats{}) {
		t.Errorf("zero KModes reports a model: %+v", st)
	}
}

// TestPaperTables1And4 clusters the keywords of Kumar and Govindarajulu's
// worked example (Table 1: WP1-WP3; Table 4: Wp_new), which the paper
// prints without a clustering, worked through by hand with k = 2 and
// f = 10: learn is in all three pages, adapt, knowledge, system and paper in
// WP1 and WP2. Densities (Σ df / 30): WP1 and WP2 16/30, WP3 12/30; WP1 is
// the first centre, and WP3 (dissimilarity 0.9 × 12/30) beats WP2 (0.5 ×
// 16/30) for the second. WP2 shares five keywords with WP1, one with WP3,
// and joins WP1; the mode of {WP1, WP2} is the five shared keywords plus
// WP1's other five (seen first), so the second pass moves nothing. Cost:
// WP2's 1 − 5/10. Wp_new shares only "system", with the first cluster.
func TestPaperTables1And4(t *testing.T) {
	docs := []*neardup.Document{
		kwDoc("WP1", "adapt", "learn", "base", "architecture", "knowledge", "reusable", "intelligent", "system", "present", "paper"),
		kwDoc("WP2", "power", "paper", "learn", "system", "adapt", "education", "knowledge", "crossroad", "emerge", "field"),
		kwDoc("WP3", "learn", "track", "user", "content", "real", "time", "fine", "grain", "environ", "order"),
	}
	km := mustNew(t, KModesOptions{K: 2, Keywords: 10, ModeKeywords: 10, Probes: 2})
	if err := km.Fit(docs); err != nil {
		t.Fatal(err)
	}
	st := km.Stats()
	if got := st.Labels; !slices.Equal(got, []int{0, 0, 1}) {
		t.Errorf("Labels = %v, want [0 0 1]", got)
	}
	if !st.Converged || st.Iterations != 2 || math.Abs(st.Cost-0.5) > 1e-12 {
		t.Errorf("converged %v after %d passes, cost %v; want true, 2, 0.5", st.Converged, st.Iterations, st.Cost)
	}
	want := []string{"adapt", "learn", "knowledge", "system", "paper", "base", "architecture", "reusable", "intelligent", "present"}
	if got := st.Modes[0]; !slices.Equal(got, want) {
		t.Errorf("Modes[0] = %v, want %v", got, want)
	}
	wpNew := kwDoc("Wp_new", "queri", "expans", "method", "summer", "problem", "feedback", "system", "unique", "monument", "show")
	if ps, err := km.Partition(wpNew); err != nil || !slices.Equal(ps, []int{0, 1}) {
		t.Errorf("Partition(Wp_new) with p = 2: %v, %v; want [0 1]", ps, err)
	}
}
