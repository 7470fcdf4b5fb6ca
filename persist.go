package neardup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/neardup/neardup/internal/snapshot"
)

// Errors of snapshots (see Persister). Test them with errors.Is.
var (
	// ErrCorrupt reports a snapshot that is truncated, fails its checksum or
	// does not parse.
	ErrCorrupt = snapshot.ErrCorrupt
	// ErrUnsupportedSnapshot reports a snapshot of a format version this code
	// cannot read, or of another kind of detector.
	ErrUnsupportedSnapshot = snapshot.ErrVersion
	// ErrSnapshotMismatch reports a snapshot written with options other than
	// the reader's; the message names them.
	ErrSnapshotMismatch = snapshot.ErrMismatch
)

// Persister is implemented by detectors whose kept documents can be saved
// and read back, so that a crawler's repository survives a restart. The
// format is versioned and checksummed (docs/format.md): a header with the
// kind of detector and the options that give its features their meaning, the
// kept IDs with their features, and a CRC-32.
//
// WriteTo writes a snapshot of one instant; Adds may go on meanwhile.
// ReadFrom replaces everything the detector keeps with a snapshot, or, when
// the snapshot is truncated, corrupt, of another version or kind, or written
// with other options, returns an error (ErrCorrupt, ErrUnsupportedSnapshot,
// ErrSnapshotMismatch) and changes nothing. Restore reads like ReadFrom but
// installs the state only when the returned function is called, so that a
// composite (a Cascade, a cluster.Detector) installs all of its parts or none.
//
// A snapshot holds features, not pages: read it back into a detector whose
// documents come from the same preprocessing.
type Persister interface {
	io.WriterTo
	io.ReaderFrom
	Restore(r io.Reader) (install func(), n int64, err error)
}

// SaveFile writes a snapshot of p to the file name atomically: to a temporary
// file in the same directory, synced, then renamed over name (and the
// directory synced), so that a crash leaves either the old file or the new
// one, never a torn one.
//
// When name is a symbolic link, the snapshot replaces the file it points to
// (the link stays a link; a dangling link's target is created). The new file
// keeps the permission bits of the file it replaces (not its owner or other
// attributes); a file that did not exist is created with mode 0644 less the
// process's umask.
func SaveFile(name string, p io.WriterTo) (err error) {
	name, err = resolveLinks(name)
	if err != nil {
		return errorf("neardup: SaveFile: %w", err)
	}
	var perm fs.FileMode
	keepPerm := false
	if fi, err := os.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			return errorf("neardup: SaveFile %s: not a regular file (%v)", name, fi.Mode().Type())
		}
		perm, keepPerm = fi.Mode().Perm(), true
	}
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, "."+base+".tmp-")
	if err != nil {
		return errorf("neardup: SaveFile: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if keepPerm {
		if err = f.Chmod(perm); err != nil {
			return errorf("neardup: SaveFile %s: %w", name, err)
		}
	}
	if _, err = p.WriteTo(f); err != nil {
		return errorf("neardup: SaveFile %s: %w", name, err)
	}
	if err = f.Sync(); err != nil {
		return errorf("neardup: SaveFile %s: %w", name, err)
	}
	if err = f.Close(); err != nil {
		return errorf("neardup: SaveFile %s: %w", name, err)
	}
	if err = os.Rename(f.Name(), name); err != nil {
		return errorf("neardup: SaveFile %s: %w", name, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: some file systems cannot sync a directory
		d.Close()
	}
	return nil
}

// maxLinks bounds the symbolic links resolveLinks follows (Linux's limit).
const maxLinks = 40

// resolveLinks follows name while it is a symbolic link and returns the
// path it ends at, which need not exist.
func resolveLinks(name string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(name)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil // not a link (or not there yet): write here
		}
		target, err := os.Readlink(name)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(name), target)
		}
		name = target
	}
	return "", fmt.Errorf("%s: more than %d symbolic links", name, maxLinks)
}

// createTemp is os.CreateTemp with mode 0644 (less the umask) instead of
// 0600, so that a new snapshot file is readable as other files are.
func createTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("creating a temporary file in %s: %w", dir, fs.ErrExist)
}

// LoadFile reads the snapshot in the file name into p (p.ReadFrom). A
// failure to open or read the file is returned as it is, wrapped: a missing
// file gives an error for which errors.Is(err, fs.ErrNotExist) holds, so a
// crawler's first run can tell "nothing saved yet" from a damaged file, and
// a read error (a directory, a failing disk) is not reported as ErrCorrupt.
// A file that reads whole but is truncated or damaged gives ErrCorrupt.
func LoadFile(name string, p io.ReaderFrom) error {
	f, err := os.Open(name)
	if err != nil {
		return errorf("neardup: LoadFile: %w", err)
	}
	defer f.Close()
	r := &readErrs{r: f}
	if _, err := p.ReadFrom(r); err != nil {
		if r.err != nil {
			return errorf("neardup: LoadFile %s: %w", name, r.err)
		}
		return errorf("neardup: LoadFile %s: %w", name, err)
	}
	return nil
}

// readErrs remembers the first error other than io.EOF that r returned, so
// that LoadFile can tell a failed read from a snapshot that does not parse.
type readErrs struct {
	r   io.Reader
	err error
}

func (e *readErrs) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// restoreNow is ReadFrom for a Persister's Restore: read, then install.
func restoreNow(restore func(io.Reader) (func(), int64, error), r io.Reader) (int64, error) {
	install, n, err := restore(r)
	if err == nil {
		install()
	}
	return n, err
}

// persisterOf returns d as a Persister, or an error naming it.
func persisterOf(what string, d Detector) (Persister, error) {
	p, ok := d.(Persister)
	if !ok {
		return nil, errorf("neardup: %s (%T) cannot be saved: %w", what, d, errors.ErrUnsupported)
	}
	return p, nil
}

// WithSettings returns a Persister that saves and reads p's snapshots
// together with settings, a description of where p's features come from
// (the preprocessing of its documents: preprocess.Pipeline.Settings). A
// snapshot made with other settings is refused with ErrSnapshotMismatch,
// naming both, and p is left as it was: features from another analysis
// (another stemmer, other stop words, another version of this library's
// tokenizer) would otherwise be compared with new pages' as if they were
// alike.
//
//	state := neardup.WithSettings(det, pipe.Settings())
//	err := neardup.LoadFile("state.snap", state)
//	// ... crawl with det and pipe ...
//	err = neardup.SaveFile("state.snap", state)
func WithSettings(p Persister, settings string) Persister {
	return withSettings{p: p, params: []snapshot.Param{{Name: "Settings", Value: settings}}}
}

type withSettings struct {
	p      Persister
	params []snapshot.Param
}

func (w withSettings) WriteTo(wr io.Writer) (int64, error) {
	if w.p == nil {
		return 0, errorf("neardup: WithSettings of a nil Persister: %w", ErrInvalidOption)
	}
	sw := snapshot.NewWriter(wr, "neardup.WithSettings", w.params)
	if _, err := w.p.WriteTo(sw.Nested()); err != nil {
		return 0, err
	}
	return sw.Close()
}

func (w withSettings) ReadFrom(r io.Reader) (int64, error) { return restoreNow(w.Restore, r) }

func (w withSettings) Restore(r io.Reader) (install func(), n int64, err error) {
	if w.p == nil {
		return nil, 0, errorf("neardup: WithSettings of a nil Persister: %w", ErrInvalidOption)
	}
	sr, err := snapshot.NewReader(r, "neardup.WithSettings", w.params)
	if err != nil {
		return nil, 0, err
	}
	install, _, err = w.p.Restore(sr)
	if err != nil {
		return nil, 0, err
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, err
	}
	return install, n, nil
}
