//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutUmask: the -out file and a new -state file get mode 0666 less the
// umask, as os.Create gives, so that another user (an indexer) can read
// them when the umask allows it; an -out file that exists keeps its mode.
// Catches os.CreateTemp's 0600 and SaveFile's 0644.
func TestOutUmask(t *testing.T) {
	old := syscall.Umask(0o002) // the process's: no test of this package runs in parallel
	defer syscall.Umask(old)
	pages := samplePages(t, "g00004")
	_, jsonl, _ := writePages(t, pages)
	dir := t.TempDir()
	out, state := filepath.Join(dir, "kept.jsonl"), filepath.Join(dir, "s.snap")
	if code, _, log := runCLI(t, nil, "-out", out, "-state", state, jsonl); code != 0 {
		t.Fatalf("exit status %d:\n%s", code, log)
	}
	for _, f := range []string{out, state} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o664 {
			t.Errorf("%s: mode %v (%v), want %v", filepath.Base(f), fi.Mode().Perm(), err, fs.FileMode(0o664))
		}
	}
	// An -out file that exists keeps its mode, as os.Create keeps it.
	if err := os.Chmod(out, 0o640); err != nil {
		t.Fatal(err)
	}
	if code, _, log := runCLI(t, nil, "-out", out, jsonl); code != 0 {
		t.Fatalf("exit status %d:\n%s", code, log)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("existing -out: mode %v (%v), want 0640", fi.Mode().Perm(), err)
	}
}
