package hamming

import "syscall"

// adviseHuge asks Linux to back the 2 MB-aligned part of b with transparent
// huge pages: a query's random loads over tens of megabytes then miss the
// TLB far less often. Errors are ignored; it is only advice.
func adviseHuge(b []byte) {
	const huge = 2 << 20
	if len(b) < 2*huge {
		return
	}
	_ = syscall.Madvise(b, 14 /* MADV_HUGEPAGE */)
}
