//go:build !amd64 || purego

package hamming

import "unsafe"

// prefetchLines does nothing where there is no assembly (other
// architectures, the purego build tag).
func prefetchLines(unsafe.Pointer, uintptr) {}

// prefetchAddrs does nothing where there is no assembly.
func prefetchAddrs(*uintptr, int) {}
