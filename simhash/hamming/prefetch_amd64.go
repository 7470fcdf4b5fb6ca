//go:build amd64 && !purego

package hamming

import "unsafe"

// prefetchLines issues PREFETCHT0 for every cache line from p to p+n-1 (one
// line when n is 1 or less).
//
//go:noescape
func prefetchLines(p unsafe.Pointer, n uintptr)

// prefetchAddrs issues PREFETCHT0 for each of the n addresses at a.
//
//go:noescape
func prefetchAddrs(a *uintptr, n int)
