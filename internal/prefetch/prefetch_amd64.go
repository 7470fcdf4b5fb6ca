package prefetch

import "unsafe"

// lines issues PREFETCHT0 for every cache line from p to p+n-1 (one line when
// n is 1 or less).
//
//go:noescape
func lines(p unsafe.Pointer, n uintptr)
