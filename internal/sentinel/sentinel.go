// Package sentinel holds errors that package neardup exports (ErrX is
// sentinel.ErrX) for packages that cannot import neardup: one neardup imports,
// or one kept free of it (simhash/hamming). Such a package aliases them, as
// neardup aliases the errors of internal/snapshot, so that errors.Is(err,
// neardup.ErrInvalidOption) holds for its errors too.
package sentinel

import "errors"

var (
	// ErrInvalidOption is neardup.ErrInvalidOption.
	ErrInvalidOption = errors.New("neardup: invalid option")
	// ErrDuplicateID is neardup.ErrDuplicateID.
	ErrDuplicateID = errors.New("neardup: duplicate document id")
	// ErrUnknownID is neardup.ErrUnknownID.
	ErrUnknownID = errors.New("neardup: unknown document id")
)
