//go:build !amd64 || purego

package prefetch

import "unsafe"

// lines does nothing where there is no assembly (other architectures, the
// purego build tag).
func lines(unsafe.Pointer, uintptr) {}

// addrs does nothing where there is no assembly.
func addrs(*uintptr, int) {}
