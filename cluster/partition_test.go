package cluster

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/simhash"
)

// byWord sends a page to the part of its first keyword's first letter
// ('a' → 0, ...), and probes the parts listed in also.
type byWord struct{ also []int }

func (p byWord) Partition(d *neardup.Document) ([]int, error) {
	if len(d.Page.Terms) == 0 {
		return nil, nil
	}
	return append([]int{int(d.Page.Terms[0].Text[0] - 'a')}, p.also...), nil
}

func fixedNew(t *testing.T, p byWord) *Detector {
	t.Helper()
	det, err := New(Options{Partitioner: p, NewDetector: func(int, int) (neardup.Detector, error) { return simhash.New(simhash.Options{}) }})
	if err != nil {
		t.Fatal(err)
	}
	return det
}

// With a Partitioner a page is kept in its first part and compared within
// every part it is given; nothing is fitted, and Refit does nothing.
func TestPartitionerParts(t *testing.T) {
	ctx := t.Context()
	det := fixedNew(t, byWord{})
	for _, d := range []*neardup.Document{kwDoc("a1", "apple", "pie"), kwDoc("c1", "cherry", "tart")} {
		if _, added, err := det.MatchOrAdd(ctx, d); err != nil || !added {
			t.Fatalf("MatchOrAdd(%s) = %v, %v", d.ID, added, err)
		}
	}
	if p, ok := placeOf(det, "c1"); !ok || p != (place{0, 2}) {
		t.Errorf("c1 kept at %+v, %v; want part 2", p, ok)
	}
	if ms, err := det.Match(ctx, kwDoc("c2", "cherry", "tart")); err != nil || len(ms) != 1 || ms[0].ID != "c1" {
		t.Errorf("Match(copy of c1) = %v, %v", ms, err)
	}
	// A copy of c1 sent to part 0 only misses it; probing part 2 finds it.
	moved := kwDoc("c3", "apple", "cherry", "tart")
	ms0, _ := det.Match(ctx, moved)
	probing := fixedNew(t, byWord{also: []int{2, 2}})
	if err := probing.Add(ctx, kwDoc("c1", "cherry", "tart")); err != nil {
		t.Fatal(err)
	}
	ms1, err := probing.Match(ctx, kwDoc("c1x", "cherry", "tart"))
	if err != nil || len(ms1) != 1 {
		t.Errorf("probing Match = %v, %v; want c1 once (part 2 probed twice)", ms1, err)
	}
	if slices.ContainsFunc(ms0, func(m neardup.Match) bool { return m.ID == "c1" && m.Score > 0 }) {
		t.Errorf("a page of part 0 matched c1 of part 2 without probing it: %v", ms0)
	}
	if err := det.Refit(ctx); err != nil {
		t.Errorf("Refit = %v", err)
	}
	st := det.Stats()
	if st.Fits != 0 || st.Documents != 2 || len(st.Sizes) != 1 || !slices.Equal(st.Sizes[0], []int{1, 0, 1}) {
		t.Errorf("Stats = %+v; want no fit, sizes [1 0 1]", st)
	}
}

// A part out of range, no part, and options that fit beside a Partitioner
// are errors; a page placed in no part is never kept.
func TestPartitionerErrors(t *testing.T) {
	ctx := t.Context()
	det := fixedNew(t, byWord{})
	if err := det.Add(ctx, kwDoc("none")); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Add of a page with no part: %v, want ErrNoFeatures", err)
	}
	bad := fixedNew(t, byWord{also: []int{-1}})
	if _, _, err := bad.MatchOrAdd(ctx, kwDoc("a", "apple")); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("part -1: %v, want ErrInvalidOption", err)
	}
	huge := fixedNew(t, byWord{also: []int{maxParts}})
	if _, err := huge.Match(ctx, kwDoc("a", "apple")); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("part %d: %v, want ErrInvalidOption", maxParts, err)
	}
	if bad.Len() != 0 || huge.Len() != 0 || det.Len() != 0 {
		t.Errorf("pages kept after errors: %d %d %d", bad.Len(), huge.Len(), det.Len())
	}
	nd := func(int, int) (neardup.Detector, error) { return simhash.New(simhash.Options{}) }
	for name, o := range map[string]Options{
		"KModes":      {Partitioner: byWord{}, NewDetector: nd, KModes: KModesOptions{K: 4}},
		"FitAt":       {Partitioner: byWord{}, NewDetector: nd, FitAt: 10},
		"Growth":      {Partitioner: byWord{}, NewDetector: nd, Growth: 3},
		"Incremental": {Partitioner: byWord{}, NewDetector: nd, Incremental: true},
		"no detector": {Partitioner: byWord{}},
	} {
		if _, err := New(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("%s beside a Partitioner: %v, want ErrInvalidOption", name, err)
		}
	}
	if _, err := New(fixedNew(t, byWord{}).Options()); err != nil {
		t.Errorf("New(det.Options()) = %v", err)
	}
}

// A snapshot of a partitioned Detector reads back into one with the same
// Partitioner type, not into a fitted one.
func TestPartitionerSnapshot(t *testing.T) {
	ctx := t.Context()
	det := fixedNew(t, byWord{})
	for _, d := range []*neardup.Document{kwDoc("a1", "apple", "pie"), kwDoc("d1", "date", "cake")} {
		if err := det.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if _, err := det.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	back := fixedNew(t, byWord{})
	if _, err := back.ReadFrom(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatal(err)
	}
	if ms, err := back.Match(ctx, kwDoc("d2", "date", "cake")); err != nil || len(ms) != 1 || ms[0].ID != "d1" {
		t.Errorf("Match after ReadFrom = %v, %v", ms, err)
	}
	if p, ok := placeOf(back, "d1"); !ok || p != (place{0, 3}) {
		t.Errorf("d1 read back at %+v, %v; want part 3", p, ok)
	}
	fitted, err := New(Options{NewDetector: func(int, int) (neardup.Detector, error) { return simhash.New(simhash.Options{}) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fitted.ReadFrom(bytes.NewReader(b.Bytes())); !errors.Is(err, neardup.ErrSnapshotMismatch) {
		t.Errorf("a fitted Detector read a partitioned snapshot: %v, want ErrSnapshotMismatch", err)
	}
}
