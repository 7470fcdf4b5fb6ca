// Package prefetch asks the CPU to start loading memory that code will read
// soon, without waiting for it.
//
// Go has no prefetch intrinsic, and an ordinary load used as a "touch" is
// no substitute when the data is needed only several hundred instructions
// later: the load that misses the cache reaches the head of the reorder
// buffer long before its data arrives, and every instruction behind it waits.
// A prefetch instruction retires at once. On amd64 the functions issue
// PREFETCHT0; elsewhere they do nothing (programs stay correct, only
// slower). (PREFETCHNTA, tried for a query's buckets, which are read once:
// on AMD Zen 4 within 2 % of PREFETCHT0, on Intel Xeon (Sapphire Rapids
// class) 22 % slower for single random queries of the simhash index.)
//
// A call costs a few nanoseconds (an assembly function), so callers that
// prefetch many places at once collect them in a List and issue them with
// one call.
//
// A prefetch never faults, but callers pass only addresses inside their own
// slices, and a List holds addresses only as hints: it keeps nothing alive.
package prefetch

import "unsafe"

// LineSize is the cache line size the functions step by.
const LineSize = 64

// ListSize is the number of addresses a List holds.
const ListSize = 32

// List collects addresses to prefetch together with Flush. Its zero value is
// an empty list; addresses beyond ListSize are dropped.
type List struct {
	n int
	a [ListSize]uintptr
}

// elem adds the line of element i of n, of size bytes each, at s.
func (l *List) elem(s unsafe.Pointer, size uintptr, i, n int) {
	if uint(i) < uint(n) && l.n < ListSize {
		l.a[l.n] = uintptr(s) + uintptr(i)*size
		l.n++
	}
}

// Span adds every line of the bytes of b from offset lo up to hi (at least
// the line holding b[lo]). Offsets outside b are clamped to it.
func (l *List) Span(b []byte, lo, hi int) {
	lo = max(lo, 0)
	hi = min(hi, len(b))
	if lo >= hi {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	first := (p + uintptr(lo)) &^ (LineSize - 1)
	for x := first; x < p+uintptr(hi) && l.n < ListSize; x += LineSize {
		l.a[l.n] = x
		l.n++
	}
}

// Flush prefetches every address in the list and empties it.
func (l *List) Flush() {
	if l.n > 0 {
		addrs(&l.a[0], l.n)
		l.n = 0
	}
}

// Len returns the number of addresses waiting in the list.
func (l *List) Len() int { return l.n }

// Add adds the line holding s[i] to l, if i is in range.
func Add[S ~[]E, E any](l *List, s S, i int) {
	if uint(i) < uint(len(s)) {
		l.elem(unsafe.Pointer(unsafe.SliceData(s)), unsafe.Sizeof(s[0]), i, len(s))
	}
}

// Span prefetches the bytes of b from offset lo up to hi (at least the line
// holding b[lo]). Offsets outside b are clamped to it.
func Span(b []byte, lo, hi int) {
	if p, n := clamp(b, lo, hi); n > 0 {
		lines(p, n)
	}
}

// clamp returns the address and length of the bytes of b from offset lo up
// to hi, clamped to b (length 0: none). (List.Span clamps in place: through
// clamp it measured 5.7 % slower in BenchmarkList and QueryBatch 3.6 %
// slower at a million entries.)
func clamp(b []byte, lo, hi int) (unsafe.Pointer, uintptr) {
	lo = max(lo, 0)
	hi = min(hi, len(b))
	if lo >= hi {
		return nil, 0
	}
	return unsafe.Pointer(unsafe.SliceData(b[lo:])), uintptr(hi - lo)
}

// Elem prefetches the line holding s[i], if i is in range.
func Elem[S ~[]E, E any](s S, i int) {
	if uint(i) < uint(len(s)) {
		lines(unsafe.Pointer(&s[i]), 1)
	}
}
