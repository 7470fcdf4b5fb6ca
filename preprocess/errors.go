package preprocess

import (
	"errors"

	"github.com/neardup/neardup/internal/sentinel"
	"github.com/neardup/neardup/preprocess/charset"
)

// Sentinel errors returned (wrapped, with detail) by New and the Process
// methods. Test for them with errors.Is.
var (
	// ErrEmpty reports a page with no visible text: nil or empty input,
	// whitespace only, or HTML whose visible text is empty once script,
	// style, comments and markup are removed.
	ErrEmpty = errors.New("preprocess: no visible text")

	// ErrInvalidUTF8 reports input that cannot be read as text: more than
	// charset.MaxUndecodable of it cannot be decoded in the encoding
	// charset.Decode chose. It is charset.ErrUndecodable, so errors.Is
	// matches either name. Every error wrapping ErrNotText matches
	// ErrInvalidUTF8 too, so code that tests for ErrInvalidUTF8 alone still
	// refuses every page that is not text; test for ErrNotText first to
	// tell the two apart.
	ErrInvalidUTF8 = charset.ErrUndecodable

	// ErrNotText reports input that is not text at all, whatever its bytes
	// could be decoded as: a Content-Type whose media type is not a text
	// type, the magic number of a binary format (PDF, gzip, JPEG, ...),
	// compressed or random data, more than charset.MaxControl control
	// bytes, or UTF-16 that decodes to implausible characters (see
	// charset.Decode). It is charset.ErrNotText.
	// errors.Is(err, ErrInvalidUTF8) is also true for it.
	ErrNotText = charset.ErrNotText

	// ErrTooLarge reports input longer than Options.MaxBytes.
	ErrTooLarge = errors.New("preprocess: page too large")

	// ErrInvalidOption reports an Options value that New rejects. It is the
	// same value as neardup.ErrInvalidOption.
	ErrInvalidOption = sentinel.ErrInvalidOption
)
