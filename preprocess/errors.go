package preprocess

import "errors"

// Sentinel errors returned (wrapped, with detail) by New and the Process
// methods. Test for them with errors.Is.
var (
	// ErrEmpty reports a page with no visible text: nil or empty input,
	// whitespace only, or HTML whose visible text is empty once script,
	// style, comments and markup are removed.
	ErrEmpty = errors.New("preprocess: no visible text")

	// ErrInvalidUTF8 reports input that is not valid UTF-8 (and, for HTML,
	// declares no charset that the pipeline can decode cheaply).
	ErrInvalidUTF8 = errors.New("preprocess: invalid UTF-8")

	// ErrTooLarge reports input longer than Options.MaxBytes.
	ErrTooLarge = errors.New("preprocess: page too large")

	// ErrInvalidOption reports an Options value that New rejects.
	ErrInvalidOption = errors.New("preprocess: invalid option")
)
