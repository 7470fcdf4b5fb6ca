// Package docid holds the rules every detector applies to document IDs, for
// package neardup (which exports them as ErrInvalidID and MaxIDLen) and for
// the detectors and fleet backends, which import neardup: an ID is 1 to
// MaxLen bytes, and an error message quotes at most a prefix of it. Host
// is the host of a document's URL, as NewDocument sets it.
package docid

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLen is neardup.MaxIDLen.
const MaxLen = 2048

// ErrInvalid is neardup.ErrInvalidID.
var ErrInvalid = errors.New("neardup: invalid document id")

// quoted is the most bytes of an ID an error message quotes.
const quoted = 64

// Quote returns id quoted (as %q does) for an error message: whole when it
// is at most 64 bytes, else its first 64 bytes (cut at a character
// boundary) and "…" after the closing quote.
func Quote(id string) string {
	if len(id) <= quoted {
		return strconv.Quote(id)
	}
	n := quoted
	for n > quoted-utf8.UTFMax && !utf8.RuneStart(id[n]) {
		n--
	}
	return strconv.Quote(id[:n]) + "…"
}

// Check returns nil when id may be kept, else an error wrapping ErrInvalid
// that says why (empty, or more than MaxLen bytes), for the caller to wrap
// with its own prefix.
func Check(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", ErrInvalid)
	case len(id) > MaxLen:
		return fmt.Errorf("%w: %d bytes, more than %d", ErrInvalid, len(id), MaxLen)
	}
	return nil
}

// Host returns the lower-cased host name of rawURL without its port, or ""
// when rawURL has none.
func Host(rawURL string) string {
	if rawURL == "" {
		return ""
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
