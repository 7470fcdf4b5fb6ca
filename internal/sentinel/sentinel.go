// Package sentinel holds errors that package neardup exports (ErrX is
// sentinel.X) for packages that cannot import neardup: one neardup imports,
// or one kept free of it (simhash/hamming). Such a package aliases them, as
// neardup aliases the errors of internal/snapshot, so that errors.Is(err,
// neardup.ErrInvalidOption) holds for its errors too.
package sentinel

import "errors"

var (
	// InvalidOption is neardup.ErrInvalidOption.
	InvalidOption = errors.New("neardup: invalid option")
	// DuplicateID is neardup.ErrDuplicateID.
	DuplicateID = errors.New("neardup: duplicate document id")
	// UnknownID is neardup.ErrUnknownID.
	UnknownID = errors.New("neardup: unknown document id")
)
