//go:build amd64 && !purego

package hamming

import "golang.org/x/sys/cpu"

// useAVX512 reports whether scanBucket may call scanAVX512: the CPU has
// AVX-512 F, BW, VBMI and VPOPCNTDQ, BMI1 and BMI2, and the OS saves the
// AVX-512 registers (golang.org/x/sys/cpu checks both). It is set once, when
// the package is initialised, and never changes.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI &&
	cpu.X86.HasAVX512VPOPCNTDQ && cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// scanAVX512 returns the index of the first of the n entries of stride bytes
// (1..8) at p whose bits masked by low lie within k bits of q (already
// masked) and are not skipped (see scanBucket; skip may be nil), or n. It
// reads only the n*stride bytes at p, which must end within the cache line
// at address lastLine, and its loads touch no line after that one.
//
//go:noescape
func scanAVX512(p *byte, n, stride int, low, q uint64, k int, perm *[64]byte, lastLine uintptr, skip *[3]uint64) int
