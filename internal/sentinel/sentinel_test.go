package sentinel_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/sentinel"
	"github.com/neardup/neardup/simhash/hamming"
)

// TestShared checks that neardup and hamming export the same errors, so
// that errors.Is(err, neardup.ErrInvalidOption) holds for both.
func TestShared(t *testing.T) {
	for _, c := range []struct{ own, root, hamming error }{
		{sentinel.ErrInvalidOption, neardup.ErrInvalidOption, hamming.ErrInvalidOption},
		{sentinel.ErrDuplicateID, neardup.ErrDuplicateID, hamming.ErrDuplicateID},
		{sentinel.ErrUnknownID, neardup.ErrUnknownID, hamming.ErrUnknownID},
	} {
		wrapped := fmt.Errorf("hamming: New: %w", c.hamming)
		if c.root != c.own || c.hamming != c.own || !errors.Is(wrapped, c.root) {
			t.Errorf("%v: neardup's is %v, hamming's %v", c.own, c.root, c.hamming)
		}
	}
}
