// Package sentinel holds the sentinel errors that packages which cannot
// import one another share: each aliases them (var ErrInvalidOption =
// sentinel.ErrInvalidOption), so that errors.Is matches an error of any of
// them against the sentinel of any other.
//
// A message carries no package name: the package that wraps a sentinel
// names itself ("preprocess: invalid option: MaxBytes -1 < 0").
package sentinel

import "errors"

// ErrInvalidOption reports a constructor option outside its documented range.
// neardup.ErrInvalidOption and preprocess.ErrInvalidOption are this value.
var ErrInvalidOption = errors.New("invalid option")
