package sentinel_test

import (
	"errors"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/simhash/hamming"
)

// An index's invalid option is neardup's, though package hamming does not
// import neardup.
func Example() {
	_, err := hamming.New(hamming.Options{MaxDistance: 17})
	fmt.Println(errors.Is(err, neardup.ErrInvalidOption))
	fmt.Println(err)
	// Output:
	// true
	// hamming: New: MaxDistance 17 not in 0..16: neardup: invalid option
}
