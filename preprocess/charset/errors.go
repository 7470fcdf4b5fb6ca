package charset

import "errors"

// Sentinel errors returned (wrapped, with detail) by Decode and
// DecodeKeepControls. Test for them with errors.Is.
var (
	// ErrUndecodable reports bytes that read as text but of which more than
	// MaxUndecodable cannot be decoded in the encoding Decode chose (rare,
	// since the legacy single-byte encodings decode every byte: a few bytes
	// that no encoding reads well). Every error wrapping ErrNotText matches
	// ErrUndecodable too, so code that tests for ErrUndecodable alone
	// refuses every page that is not text; test for ErrNotText first to tell
	// the two apart.
	ErrUndecodable = errors.New("charset: undecodable text")

	// ErrNotText reports input that is not text at all, whatever its bytes
	// could be decoded as: a Content-Type whose media type is not a text
	// type, the magic number of a binary format (PDF, gzip, JPEG, ...),
	// compressed or random data, more than MaxControl control bytes, or
	// UTF-16 that decodes to implausible characters (see Decode).
	// errors.Is(err, ErrUndecodable) is also true for it.
	ErrNotText error = notText{}
)

// notText is ErrNotText's type: a comparable value that is also
// ErrUndecodable for errors.Is.
type notText struct{}

func (notText) Error() string { return "charset: not text" }

// Is makes errors.Is(ErrNotText, ErrUndecodable) true: what is not text
// cannot be decoded either, and callers that test for ErrUndecodable alone
// (preprocess.ErrInvalidUTF8 is the same value) refuse it too.
func (notText) Is(target error) bool { return target == ErrUndecodable }
