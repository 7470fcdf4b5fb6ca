package hamming

import "testing"

// The functions have no visible effect; these tests check that they accept
// every range a caller may pass, empty and clamped ones included, without
// faulting, and that a prefetchList counts and drops what it should.
func TestPrefetchSpanRanges(t *testing.T) {
	b := make([]byte, 1000)
	for _, r := range [][2]int{{0, 0}, {0, 1}, {0, 1000}, {63, 65}, {999, 1000}, {-5, 10}, {990, 5000}, {500, 400}, {1000, 1000}} {
		prefetchSpan(b, r[0], r[1])
	}
	prefetchSpan(nil, 0, 10)
	s32 := make([]uint32, 10)
	prefetchElem(s32, 0)
	prefetchElem(s32, 9)
	prefetchElem(s32, 10)
	prefetchElem(s32, -1)
	var s64 []uint64
	prefetchElem(s64, 0)
}

func TestPrefetchList(t *testing.T) {
	var l prefetchList
	l.Flush() // empty: nothing to do
	b := make([]byte, 4096)
	l.Span(b, 0, 1)
	l.Span(b, 60, 70) // two lines when b is line-aligned, else one or two
	l.Span(b, 100, 100)
	l.Span(b, -10, 0)
	if n := l.Len(); n < 2 || n > 3 {
		t.Errorf("Len after spans = %d, want 2 or 3", n)
	}
	s := make([]uint64, 8)
	prefetchTo(&l, s, 7)
	prefetchTo(&l, s, 8)
	prefetchTo(&l, s, -1)
	var empty []uint32
	prefetchTo(&l, empty, 0)
	if n := l.Len(); n < 3 || n > 4 {
		t.Errorf("Len after Add = %d, want 3 or 4", n)
	}
	l.Flush()
	if l.Len() != 0 {
		t.Errorf("Len after Flush = %d", l.Len())
	}
	l.Span(b, 0, len(b)) // 64 or 65 lines: the list keeps prefetchListSize
	prefetchTo(&l, s, 0)
	if l.Len() != prefetchListSize {
		t.Errorf("Len of a full list = %d, want %d", l.Len(), prefetchListSize)
	}
	l.Flush()
}

// BenchmarkPrefetchSpan measures the cost of prefetching one 96-byte bucket (two or
// three lines) that is already cached: the overhead a caller pays per call.
func BenchmarkPrefetchSpan(b *testing.B) {
	buf := make([]byte, 4096)
	for i := 0; b.Loop(); i++ {
		lo := (i * 96) & 2047
		prefetchSpan(buf, lo, lo+96)
	}
}

// BenchmarkPrefetchList measures a prefetchList of 12 places (a query's directory entries,
// chain heads and buckets) flushed with one call.
func BenchmarkPrefetchList(b *testing.B) {
	buf := make([]byte, 4096)
	dir := make([]uint32, 1024)
	var l prefetchList
	for i := 0; b.Loop(); i++ {
		for t := range 4 {
			prefetchTo(&l, dir, (i*7+t*131)&1023)
			lo := (i*96 + t*512) & 2047
			l.Span(buf, lo, lo+96)
		}
		l.Flush()
	}
}

// BenchmarkMemory measures what the simhash index's query pipelines are
// built around, one op per cache line read at random from a 64 MB array
// (beyond any cache):
//
//	chase     each load's address comes from the one before: the latency
//	          of a miss, what a single query pays per round of misses
//	plain     independent loads, no prefetch: what out-of-order execution
//	          alone overlaps
//	prefetch  independent loads, each prefetched 16 lines ahead: the
//	          throughput of misses, what a batch of queries pays per line
//
// At about 20 lines per random query at a million entries, the lines
// alone cost about 20 times "prefetch" per batched query and two or three
// "chase" rounds per single one; the figures are in docs/BENCHMARKS.md.
func BenchmarkMemory(b *testing.B) {
	const (
		words = 64 << 20 / 8
		lines = words / 8 // a power of two
		ahead = 16
	)
	s := make([]uint64, words)
	// line returns the i-th line of a fixed random sequence
	line := func(i int) int {
		x := uint64(i) * 0x9e3779b97f4a7c15
		x ^= x >> 29
		x *= 0xbf58476d1ce4e5b9
		return int(x>>32) & (lines - 1)
	}
	// the chase visits every line once per cycle: s[8*p] holds 8*next
	order := make([]int, lines)
	for i := range order {
		order[i] = i
	}
	for i := lines - 1; i > 0; i-- {
		j := line(i) % (i + 1)
		order[i], order[j] = order[j], order[i]
	}
	for i, p := range order {
		s[8*p] = uint64(8 * order[(i+1)%lines])
	}
	var sink uint64
	b.Run("chase", func(b *testing.B) {
		p := uint64(0)
		for b.Loop() {
			p = s[p]
		}
		sink += p
	})
	b.Run("plain", func(b *testing.B) {
		sum := uint64(0)
		for i := 0; b.Loop(); i++ {
			sum += s[8*line(i)]
		}
		sink += sum
	})
	b.Run("prefetch", func(b *testing.B) {
		sum := uint64(0)
		for i := 0; b.Loop(); i++ {
			prefetchElem(s, 8*line(i+ahead))
			sum += s[8*line(i)]
		}
		sink += sum
	})
	if sink == 1 {
		b.Log(sink) // keeps the loads
	}
}
