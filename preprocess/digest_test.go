package preprocess

import (
	"errors"
	"testing"
)

// TestDigestNil: Digest of a nil page without an error does not panic and
// differs from the digests of an empty page and of an error.
func TestDigestNil(t *testing.T) {
	d := Digest(nil, nil)
	if d == Digest(&Page{}, nil) || d == Digest(nil, errors.New("x")) || len(d) != 64 {
		t.Errorf("Digest(nil, nil) = %q: not a digest of its own", d)
	}
}
