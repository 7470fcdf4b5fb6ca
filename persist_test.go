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
		if err := det.Add(t.Context(), g[0]); err != nil {
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
	if ms, err := back.Match(t.Context(), groups[2][1]); err != nil || len(ms) != 1 || ms[0].ID != groups[2][0].ID {
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
func TestNewDocumentContentType(t *testing.T) {
	var pipe preprocess.Pipeline
	sjis := []byte("<p>\x83e\x83X\x83g\x82\xcc\x83y\x81[\x83W\x82\xc5\x82\xb7\x81B</p>") // テストのページです。
	d, err := neardup.NewDocument(&pipe, "a", "https://a.example/x", "text/html; charset=Shift_JIS", sjis)
	if err != nil || !strings.Contains(d.Page.Text, "テスト") || d.Host != "a.example" {
		t.Fatalf("NewDocument = %+v, %v", d, err)
	}
	if _, err := neardup.NewDocument(nil, "a", "", "", sjis); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("nil analyzer: err = %v", err)
	}
	if _, err := neardup.NewDocument(&pipe, "a", "", "", []byte{0, 1, 2, 3, 4, 5, 6, 7}); !errors.Is(err, preprocess.ErrInvalidUTF8) {
		t.Errorf("binary: err = %v", err)
	}
}

// TestWithSettings: a snapshot records the preprocessing settings; other
// settings, a bare snapshot and damage are refused and change nothing.
func TestWithSettings(t *testing.T) {
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 7})
	det, _ := simhash.New(simhash.Options{})
	for _, g := range groups {
		if err := det.Add(t.Context(), g[0]); err != nil {
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

// SaveFile through a symbolic link replaces the link's target, keeps the
// link, and keeps the target's permission bits; a new file gets 0644 less
// the umask.
func TestSaveFileLinkAndMode(t *testing.T) {
	det, _ := simhash.New(simhash.Options{})
	for _, g := range detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 7}) {
		if err := det.Add(t.Context(), g[0]); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.snap")
	if err := neardup.SaveFile(fresh, det); err != nil {
		t.Fatal(err)
	}
	// what 0644 less the umask is here
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wantMode := mustStat(t, probe).Mode().Perm()
	os.Remove(probe)
	if got := mustStat(t, fresh).Mode().Perm(); got != wantMode {
		t.Errorf("a new snapshot file: mode %v, want %v (0644 less the umask)", got, wantMode)
	}

	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "data", "state.snap")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o640); err != nil { // whatever the umask
		t.Fatal(err)
	}
	link := filepath.Join(dir, "state.snap")
	if err := os.Symlink(filepath.Join("data", "state.snap"), link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := neardup.SaveFile(link, det); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("after SaveFile through it, %s is no longer a link: %v, %v", link, fi.Mode(), err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("the link's target has mode %v, want its old 0640", fi.Mode().Perm())
	}
	back := new(simhash.Detector)
	if err := neardup.LoadFile(target, back); err != nil || back.Len() != det.Len() {
		t.Errorf("the target after SaveFile through the link: %d kept, %v; want %d", back.Len(), err, det.Len())
	}
	for _, e := range mustReadDir(t, filepath.Join(dir, "data")) {
		if e.Name() != "state.snap" {
			t.Errorf("stray file %s beside the target", e.Name())
		}
	}

	// A dangling link: its target is created.
	dangling := filepath.Join(dir, "dangling.snap")
	if err := os.Symlink(filepath.Join("data", "new.snap"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := neardup.SaveFile(dangling, det); err != nil {
		t.Fatal(err)
	}
	if err := neardup.LoadFile(filepath.Join(dir, "data", "new.snap"), new(simhash.Detector)); err != nil {
		t.Errorf("a dangling link's target after SaveFile: %v", err)
	}
}

func mustStat(t *testing.T, name string) fs.FileInfo {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func mustReadDir(t *testing.T, dir string) []fs.DirEntry {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// LoadFile returns a read error as it is, and ErrCorrupt only for a file
// that reads whole but does not parse.
func TestLoadFileErrors(t *testing.T) {
	det, _ := simhash.New(simhash.Options{})
	for _, g := range detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 8}) {
		if err := det.Add(t.Context(), g[0]); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "state.snap")
	if err := neardup.SaveFile(name, det); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}

	// a directory opens but does not read: an I/O error, not corruption
	err = neardup.LoadFile(dir, new(simhash.Detector))
	if err == nil || errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("LoadFile of a directory: %v, want the read error, not ErrCorrupt", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Errorf("LoadFile of a directory: %v, want the *fs.PathError of the read", err)
	}

	// truncated: corruption
	if err := os.WriteFile(name, full[:len(full)-9], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := neardup.LoadFile(name, new(simhash.Detector)); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("LoadFile of a truncated snapshot: %v, want ErrCorrupt", err)
	}
}
