//go:build !linux

package hamming

// adviseHuge is a no-op outside Linux.
func adviseHuge([]byte) {}
