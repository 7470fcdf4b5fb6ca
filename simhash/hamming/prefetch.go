package hamming

import "unsafe"

// Prefetching asks the CPU to start loading memory that a query will read
// soon, without waiting for it.
//
// Go has no prefetch intrinsic, and an ordinary load used as a "touch" is
// no substitute when the data is needed only several hundred instructions
// later: the load that misses the cache reaches the head of the reorder
// buffer long before its data arrives, and every instruction behind it waits.
// A prefetch instruction retires at once. On amd64 the functions issue
// PREFETCHT0; elsewhere they do nothing (programs stay correct, only
// slower). PREFETCHNTA, tried for a query's buckets, which are read once,
// was no faster on AMD and slower on Intel (docs/BENCHMARKS.md).
//
// A call costs a few nanoseconds (an assembly function), so code that
// prefetches many places at once collects them in a prefetchList and issues
// them with one call. A prefetch never faults, but callers pass only
// addresses inside their own slices, and a prefetchList holds addresses only
// as hints: it keeps nothing alive.

// lineSize is the cache line size the functions step by.
const lineSize = 64

// prefetchListSize is the number of addresses a prefetchList holds.
const prefetchListSize = 32

// prefetchList collects addresses to prefetch together with Flush. Its zero
// value is an empty list; addresses beyond prefetchListSize are dropped.
type prefetchList struct {
	n int
	a [prefetchListSize]uintptr
}

// elem adds the line of element i of n, of size bytes each, at s.
func (l *prefetchList) elem(s unsafe.Pointer, size uintptr, i, n int) {
	if uint(i) < uint(n) && l.n < prefetchListSize {
		l.a[l.n] = uintptr(s) + uintptr(i)*size
		l.n++
	}
}

// Span adds every line of the bytes of b from offset lo up to hi (at least
// the line holding b[lo]). Offsets outside b are clamped to it.
func (l *prefetchList) Span(b []byte, lo, hi int) {
	lo = max(lo, 0)
	hi = min(hi, len(b))
	if lo >= hi {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	first := (p + uintptr(lo)) &^ (lineSize - 1)
	for x := first; x < p+uintptr(hi) && l.n < prefetchListSize; x += lineSize {
		l.a[l.n] = x
		l.n++
	}
}

// Flush prefetches every address in the list and empties it.
func (l *prefetchList) Flush() {
	if l.n > 0 {
		prefetchAddrs(&l.a[0], l.n)
		l.n = 0
	}
}

// Len returns the number of addresses waiting in the list.
func (l *prefetchList) Len() int { return l.n }

// prefetchTo adds the line holding s[i] to l, if i is in range.
func prefetchTo[S ~[]E, E any](l *prefetchList, s S, i int) {
	if uint(i) < uint(len(s)) {
		l.elem(unsafe.Pointer(unsafe.SliceData(s)), unsafe.Sizeof(s[0]), i, len(s))
	}
}

// prefetchSpan prefetches the bytes of b from offset lo up to hi (at least
// the line holding b[lo]). Offsets outside b are clamped to it.
func prefetchSpan(b []byte, lo, hi int) {
	if p, n := clampSpan(b, lo, hi); n > 0 {
		prefetchLines(p, n)
	}
}

// clampSpan returns the address and length of the bytes of b from offset lo
// up to hi, clamped to b (length 0: none). (prefetchList.Span clamps in
// place: through clampSpan it measured 5.7 % slower in BenchmarkPrefetchList and
// QueryBatch 3.6 % slower at a million entries.)
func clampSpan(b []byte, lo, hi int) (unsafe.Pointer, uintptr) {
	lo = max(lo, 0)
	hi = min(hi, len(b))
	if lo >= hi {
		return nil, 0
	}
	return unsafe.Pointer(unsafe.SliceData(b[lo:])), uintptr(hi - lo)
}

// prefetchElem prefetches the line holding s[i], if i is in range.
func prefetchElem[S ~[]E, E any](s S, i int) {
	if uint(i) < uint(len(s)) {
		prefetchLines(unsafe.Pointer(&s[i]), 1)
	}
}
