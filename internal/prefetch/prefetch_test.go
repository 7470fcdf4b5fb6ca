package prefetch

import "testing"

// The functions have no visible effect; these tests check that they accept
// every range a caller may pass, empty and clamped ones included, without
// faulting.
func TestSpanRanges(t *testing.T) {
	b := make([]byte, 1000)
	for _, r := range [][2]int{{0, 0}, {0, 1}, {0, 1000}, {63, 65}, {999, 1000}, {-5, 10}, {990, 5000}, {500, 400}, {1000, 1000}} {
		Span(b, r[0], r[1])
	}
	Span(nil, 0, 10)
	s32 := make([]uint32, 10)
	Elem(s32, 0)
	Elem(s32, 9)
	Elem(s32, 10)
	Elem(s32, -1)
	var s64 []uint64
	Elem(s64, 0)
}

// BenchmarkSpan measures the cost of prefetching one 96-byte bucket (two or
// three lines) that is already cached: the overhead a caller pays per call.
func BenchmarkSpan(b *testing.B) {
	buf := make([]byte, 4096)
	for i := 0; b.Loop(); i++ {
		lo := (i * 96) & 2047
		Span(buf, lo, lo+96)
	}
}
