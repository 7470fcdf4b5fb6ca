//go:build !amd64

package prefetch

import "unsafe"

// lines does nothing on this architecture.
func lines(unsafe.Pointer, uintptr) {}

// addrs does nothing on this architecture.
func addrs(*uintptr, int) {}
