package detector

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/docid"
	"github.com/neardup/neardup/internal/snapshot"
)

// mapStore keeps uint64 features in a map; nothing is near anything.
type mapStore map[Handle]uint64

func (s mapStore) Search(uint64, []Found) []Found       { return nil }
func (s mapStore) Score(uint64, Handle) (float64, bool) { return 1, false }
func (s mapStore) Insert(h Handle, f uint64) error      { s[h] = f; return nil }
func (s mapStore) Delete(h Handle) error                { delete(s, h); return nil }
func (s mapStore) Feature(h Handle) uint64              { return s[h] }

// doc and match stand for neardup.Document and neardup.Match, which this
// package does not import.
type (
	doc   struct{ id string }
	match struct {
		id   string
		dist float64
	}
)

func testCore() *Core[uint64, doc, match] {
	return NewCore(Config[uint64, doc, match]{
		Name:      "test",
		Check:     func(d *doc) error { return nil },
		ID:        func(d *doc) string { return d.id },
		Match:     func(id string, dist float64) match { return match{id, dist} },
		Candidate: func(m match) string { return m.id },
		Extract:   func(*doc) (uint64, error) { return 1, nil },
		NewStore:  func() Store[uint64] { return mapStore{} },
		Kind:      "detector.test",
		Encode:    func(sw *snapshot.Writer, f uint64) { sw.Uint64(f) },
		Decode:    func(sr *snapshot.Reader) uint64 { return sr.Uint64() },
	})
}

// snapshotOf writes a snapshot of testCore's kind keeping ids, as WriteTo
// writes one, whatever the IDs.
func snapshotOf(t *testing.T, ids ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	sw := snapshot.NewWriter(&b, "detector.test", nil)
	sw.Uvarint(uint64(len(ids)))
	for i, id := range ids {
		sw.Text(id)
		sw.Uint64(uint64(i))
	}
	if _, err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRestoreIDs: a snapshot keeping an ID that Add refuses (empty, longer
// than neardup.MaxIDLen) or one ID twice is corrupt, and nothing of it is
// installed; a valid one installs. Dropping the ID check in Restore fails
// the first two cases.
func TestRestoreIDs(t *testing.T) {
	c := testCore()
	if _, err := c.ReadFrom(bytes.NewReader(snapshotOf(t, "a", strings.Repeat("x", docid.MaxLen)))); err != nil {
		t.Fatalf("valid snapshot: %v", err)
	}
	for name, ids := range map[string][]string{
		"empty":    {"a", ""},
		"too long": {strings.Repeat("y", docid.MaxLen+1)},
		"twice":    {"b", "b"},
	} {
		_, err := c.ReadFrom(bytes.NewReader(snapshotOf(t, ids...)))
		if !errors.Is(err, snapshot.ErrCorrupt) {
			t.Errorf("%s: ReadFrom = %v, want snapshot.ErrCorrupt", name, err)
		}
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("%s: error of %d bytes quotes a whole ID: %.100s…", name, len(err.Error()), err)
		}
	}
	if n := c.Len(); n != 2 {
		t.Errorf("after the corrupt snapshots Len = %d, want the valid one's 2", n)
	}
}
