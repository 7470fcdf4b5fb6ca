//go:build amd64 && !purego

package prefetch

import "unsafe"

// lines issues PREFETCHT0 for every cache line from p to p+n-1 (one line when
// n is 1 or less).
//
//go:noescape
func lines(p unsafe.Pointer, n uintptr)

// addrs issues PREFETCHT0 for each of the n addresses at a.
//
//go:noescape
func addrs(a *uintptr, n int)
