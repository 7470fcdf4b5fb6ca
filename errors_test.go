package neardup_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/simhash"
)

// One ErrInvalidOption: the root's and preprocess's are the same value, so an
// errors.Is test for either matches the errors of both packages.
func TestErrInvalidOptionShared(t *testing.T) {
	_, perr := preprocess.New(preprocess.Options{MaxBytes: -1})
	_, rerr := neardup.NewCascade()
	for _, err := range []error{perr, rerr} {
		if !errors.Is(err, neardup.ErrInvalidOption) || !errors.Is(err, preprocess.ErrInvalidOption) {
			t.Errorf("%v: errors.Is gives %v for neardup's, %v for preprocess's ErrInvalidOption, want both",
				err, errors.Is(err, neardup.ErrInvalidOption), errors.Is(err, preprocess.ErrInvalidOption))
		}
	}
	if msg := perr.Error(); !strings.HasPrefix(msg, "preprocess: MaxBytes -1") || !strings.HasSuffix(msg, ": neardup: invalid option") {
		t.Errorf("preprocess.New error %q, want \"preprocess: MaxBytes -1 ...: neardup: invalid option\"", msg)
	}
}

// The root package's errors name it once, whatever they wrap: its own
// sentinels, a snapshot error, an error of a nested Cascade.
func TestErrorsNamePackageOnce(t *testing.T) {
	inner, _ := neardup.NewCascade(newText(10), verifyOnly{newText(10)})
	outer, _ := neardup.NewCascade(newText(10), inner)
	pd, _ := partitioned(lenPartitioner{}, func(int) (neardup.Detector, error) { return newText(10), nil })
	w, _ := neardup.NewWindow(newText(10), neardup.WindowOptions{})
	_, _, replaceErr := outer.Replace(t.Context(), doc("a", "text"))
	_ = pd.Add(t.Context(), doc("a", "x"))
	fp, _ := simhash.New(simhash.Options{})
	saved, _ := neardup.NewCascade(fp)
	_, readErr := saved.ReadFrom(bytes.NewReader([]byte("not a snapshot")))
	corrupt := filepath.Join(t.TempDir(), "corrupt.snap")
	_ = neardup.SaveFile(corrupt, bytes.NewBufferString("not a snapshot"))
	for _, tc := range []struct {
		err  error
		want error
	}{
		{replaceErr, neardup.ErrInvalidOption},
		{readErr, neardup.ErrCorrupt},
		{neardup.LoadFile(corrupt, saved), neardup.ErrCorrupt},
		{pd.Remove(t.Context(), "nobody"), neardup.ErrUnknownID},
		{w.Remove(t.Context(), "nobody"), neardup.ErrUnknownID},
		{neardup.Check(&neardup.Document{ID: "x"}), neardup.ErrNilDocument},
		{pd.Add(t.Context(), doc("a", "x")), neardup.ErrDuplicateID},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("error %v, want one wrapping %v", tc.err, tc.want)
			continue
		}
		if n := strings.Count(tc.err.Error(), "neardup:"); n != 1 {
			t.Errorf("error %q names the package %d times, want once", tc.err, n)
		}
	}
}
