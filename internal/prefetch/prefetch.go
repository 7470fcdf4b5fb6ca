// Package prefetch asks the CPU to start loading memory that code will read
// soon, without waiting for it.
//
// Go has no prefetch intrinsic, and an ordinary load used as a "touch" is
// no substitute when the data is needed only several hundred instructions
// later: the load that misses the cache reaches the head of the reorder
// buffer long before its data arrives, and every instruction behind it waits.
// A prefetch instruction retires at once. On amd64 the functions issue
// PREFETCHT0 for every cache line of the range; elsewhere they do nothing
// (programs stay correct, only slower).
//
// A prefetch never faults, but callers pass only addresses inside their own
// slices.
package prefetch

import "unsafe"

// LineSize is the cache line size the functions step by.
const LineSize = 64

// Span prefetches the bytes of b from offset lo up to hi (at least the line
// holding b[lo]). Offsets outside b are clamped to it.
func Span(b []byte, lo, hi int) {
	if lo < 0 {
		lo = 0
	}
	hi = min(hi, len(b))
	if lo >= hi {
		return
	}
	lines(unsafe.Pointer(unsafe.SliceData(b[lo:])), uintptr(hi-lo))
}

// Elem prefetches the line holding s[i], if i is in range.
func Elem[S ~[]E, E any](s S, i int) {
	if uint(i) < uint(len(s)) {
		lines(unsafe.Pointer(&s[i]), 1)
	}
}
