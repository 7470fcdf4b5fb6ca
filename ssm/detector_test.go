package ssm

import (
	"bytes"
	"errors"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
)

// TestIndexComparesSharers: a new page is compared only with the kept pages
// that share a top keyword with it, each once however many it shares.
func TestIndexComparesSharers(t *testing.T) {
	det, _ := New(Options{Cutoff: 50}) // every pair here is within 50
	for _, d := range []*neardup.Document{
		page(t, "two-shared", 10, "alpha", "beta", "gamma"),
		page(t, "one-shared", 10, "alpha", "delta", "epsilon"),
		page(t, "none", 10, "zeta", "eta", "theta"),
	} {
		if err := det.Add(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	q := page(t, "q", 10, "alpha", "beta", "iota")
	if _, err := det.Match(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	if got := det.Comparisons(); got != 2 {
		t.Errorf("Comparisons = %d, want 2 (the two pages sharing a keyword, once each)", got)
	}
	// Verify drops a candidate that shares no keyword, though its SSM (8.47)
	// is below the cut-off.
	if s := SSM(mustTableOf(t, q), mustTableOf(t, page(t, "none", 10, "zeta", "eta", "theta"))); s >= 50 {
		t.Fatalf("SSM(q, none) = %v", s)
	}
	ms, err := det.Verify(t.Context(), q, []neardup.Match{{ID: "none"}, {ID: "two-shared"}})
	if err != nil || len(ms) != 1 || ms[0].ID != "two-shared" {
		t.Errorf("Verify = %v, %v; want only two-shared", ms, err)
	}
	if err := det.Remove(t.Context(), "two-shared"); err != nil {
		t.Fatal(err)
	}
	if ms, _ := det.Match(t.Context(), q); len(ms) != 1 || ms[0].ID != "one-shared" {
		t.Errorf("after Remove: Match = %v", ms)
	}
}

// TestPartitionedSnapshot: a Partitioned snapshot of ssm detectors reads back
// into one with the same domains and sizes (any margin), and not into one
// with other vocabularies.
func TestPartitionedSnapshot(t *testing.T) {
	newPD := func(p *Partitioner) *cluster.Detector {
		pd, err := cluster.New(cluster.Options{Partitioner: p, NewDetector: func(int, int) (neardup.Detector, error) { return New(Options{}) }})
		if err != nil {
			t.Fatal(err)
		}
		return pd
	}
	a := newPD(testPartitioner(t, 0))
	kept := page(t, "kept", 100, "code", "bug", "lake")
	if err := a.Add(t.Context(), kept); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := a.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	b := newPD(testPartitioner(t, 4096))
	if _, err := b.ReadFrom(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatalf("ReadFrom (same domains, other margin): %v", err)
	}
	if ms, err := b.Match(t.Context(), page(t, "again", 120, "code", "bug", "lake")); err != nil || len(ms) != 1 || ms[0].ID != "kept" {
		t.Errorf("after ReadFrom: Match = %v, %v", ms, err)
	}
	other, err := NewPartitioner(PartitionOptions{Domains: []Domain{{Name: "x", Keywords: []string{"code"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newPD(other).ReadFrom(bytes.NewReader(buf.Bytes())); !errors.Is(err, neardup.ErrSnapshotMismatch) {
		t.Errorf("ReadFrom (other domains): err = %v, want ErrSnapshotMismatch", err)
	}
}

func mustTableOf(t *testing.T, d *neardup.Document) Table {
	t.Helper()
	tab, err := TableOf(d, DefaultN)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}
