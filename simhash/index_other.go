//go:build !linux

package simhash

// adviseHuge is a no-op outside Linux.
func adviseHuge([]byte) {}
