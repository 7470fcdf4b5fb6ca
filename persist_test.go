package neardup_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/simhash"
)

func TestSaveLoadFile(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 6})
	det, _ := simhash.New(simhash.Options{})
	for _, g := range groups {
		if err := det.Add(g[0]); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "state.snap")
	if err := neardup.LoadFile(name, new(simhash.Detector)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadFile of a missing file: err = %v, want fs.ErrNotExist", err)
	}
	if err := neardup.SaveFile(name, det); err != nil {
		t.Fatal(err)
	}
	if err := neardup.SaveFile(name, det); err != nil { // over an existing file
		t.Fatal(err)
	}
	back := new(simhash.Detector)
	if err := neardup.LoadFile(name, back); err != nil {
		t.Fatal(err)
	}
	if back.Len() != len(groups) {
		t.Errorf("Len after LoadFile = %d, want %d", back.Len(), len(groups))
	}
	if ms, err := back.Match(groups[2][1]); err != nil || len(ms) != 1 || ms[0].ID != groups[2][0].ID {
		t.Errorf("Match after LoadFile = %v, %v", ms, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after two saves, want the snapshot alone", len(entries))
	}
	// A failed save leaves the old file and no temporary one.
	if err := neardup.SaveFile(name, failingWriter{}); err == nil {
		t.Error("SaveFile of a failing WriterTo: no error")
	}
	if err := neardup.LoadFile(name, new(simhash.Detector)); err != nil {
		t.Errorf("the snapshot after a failed save: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed save left %d entries", len(entries))
	}
	if err := neardup.SaveFile(filepath.Join(dir, "no", "such", "dir"), det); err == nil {
		t.Error("SaveFile into a missing directory: no error")
	}
}

type failingWriter struct{}

func (failingWriter) WriteTo(w io.Writer) (int64, error) {
	w.Write([]byte("partial"))
	return 7, errors.New("disk on fire")
}

// A page fetched with its Content-Type is decoded by the header's charset.
func TestNewDocumentContent(t *testing.T) {
	var pipe preprocess.Pipeline
	sjis := []byte("<p>\x83e\x83X\x83g\x82\xcc\x83y\x81[\x83W\x82\xc5\x82\xb7\x81B</p>") // テストのページです。
	d, err := neardup.NewDocumentContent(&pipe, "a", "https://a.example/x", "text/html; charset=Shift_JIS", sjis)
	if err != nil || !strings.Contains(d.Page.Text, "テスト") || d.Host != "a.example" {
		t.Fatalf("NewDocumentContent = %+v, %v", d, err)
	}
	if _, err := neardup.NewDocumentContent(nil, "a", "", "", sjis); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("nil analyzer: err = %v", err)
	}
	if _, err := neardup.NewDocumentContent(&pipe, "a", "", "", []byte{0, 1, 2, 3, 4, 5, 6, 7}); !errors.Is(err, preprocess.ErrInvalidUTF8) {
		t.Errorf("binary: err = %v", err)
	}
}

// TestWithSettings: a snapshot records the preprocessing settings; other
// settings, a bare snapshot and damage are refused and change nothing.
func TestWithSettings(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 7})
	det, _ := simhash.New(simhash.Options{})
	for _, g := range groups {
		if err := det.Add(g[0]); err != nil {
			t.Fatal(err)
		}
	}
	var stemmed preprocess.Pipeline
	unstemmed, _ := preprocess.New(preprocess.Options{NoStem: true})
	var buf strings.Builder
	if _, err := neardup.WithSettings(det, stemmed.Settings()).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	snap := buf.String()

	back := new(simhash.Detector)
	if _, err := neardup.WithSettings(back, stemmed.Settings()).ReadFrom(strings.NewReader(snap)); err != nil {
		t.Fatal(err)
	}
	if back.Len() != len(groups) {
		t.Errorf("Len after ReadFrom = %d, want %d", back.Len(), len(groups))
	}

	other := new(simhash.Detector)
	_, err := neardup.WithSettings(other, unstemmed.Settings()).ReadFrom(strings.NewReader(snap))
	if !errors.Is(err, neardup.ErrSnapshotMismatch) || !strings.Contains(err.Error(), "stem=true") || other.Len() != 0 {
		t.Errorf("other settings: err = %v, Len %d; want ErrSnapshotMismatch naming them, nothing kept", err, other.Len())
	}
	var bare strings.Builder
	det.WriteTo(&bare)
	if _, err := neardup.WithSettings(other, stemmed.Settings()).ReadFrom(strings.NewReader(bare.String())); !errors.Is(err, neardup.ErrUnsupportedSnapshot) || other.Len() != 0 {
		t.Errorf("a snapshot without settings: err = %v, Len %d", err, other.Len())
	}
	for _, n := range []int{0, 10, len(snap) / 2, len(snap) - 1} {
		if _, err := neardup.WithSettings(other, stemmed.Settings()).ReadFrom(strings.NewReader(snap[:n])); !errors.Is(err, neardup.ErrCorrupt) || other.Len() != 0 {
			t.Errorf("truncated at %d: err = %v, Len %d", n, err, other.Len())
		}
	}
	if _, err := neardup.WithSettings(nil, "").WriteTo(io.Discard); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("nil Persister: %v", err)
	}
}
