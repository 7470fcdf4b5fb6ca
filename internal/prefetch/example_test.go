package prefetch_test

import (
	"fmt"

	"github.com/neardup/neardup/internal/prefetch"
)

// A lookup in two steps (a directory entry, then the bucket it points to)
// over a batch of keys: the directory entries of all keys are prefetched
// first, then the buckets, so that the memory waits overlap instead of
// adding up.
func Example() {
	dir := []uint32{0, 2, 5, 9}
	data := make([]byte, 4096)
	keys := []int{2, 0, 1}

	var pl prefetch.List
	for _, k := range keys {
		prefetch.Add(&pl, dir, k)
	}
	pl.Flush()
	for _, k := range keys {
		pl.Span(data, int(dir[k])*64, int(dir[k+1])*64)
	}
	pl.Flush()

	sum := 0
	for _, k := range keys {
		sum += int(dir[k+1] - dir[k])
	}
	fmt.Println(sum, pl.Len())
	// Output: 9 0
}
