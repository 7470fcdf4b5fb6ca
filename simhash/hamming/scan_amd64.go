//go:build amd64 && !purego

package hamming

// useAVX512 reports whether scanBucket may call scanAVX512: the CPU has
// AVX-512 F, BW, VBMI and VPOPCNTDQ and BMI2, and the OS saves the AVX-512
// registers. It is set once, when the package is initialised.
var useAVX512 = detectAVX512()

func detectAVX512() bool {
	const (
		osxsave   = 1 << 27 // CPUID.1:ECX
		bmi1      = 1 << 3  // CPUID.7.0:EBX
		bmi2      = 1 << 8
		avx512f   = 1 << 16
		avx512bw  = 1 << 30
		avx512vbm = 1 << 1  // CPUID.7.0:ECX
		vpopcntdq = 1 << 14 // CPUID.7.0:ECX
		// XCR0: SSE, AVX, opmask, upper halves of ZMM0-15, ZMM16-31
		zmmState = 1<<1 | 1<<2 | 1<<5 | 1<<6 | 1<<7
	)
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	if _, _, c, _ := cpuid(1, 0); c&osxsave == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&zmmState != zmmState {
		return false
	}
	_, b, c, _ := cpuid(7, 0)
	return b&(bmi1|bmi2|avx512f|avx512bw) == bmi1|bmi2|avx512f|avx512bw &&
		c&(avx512vbm|vpopcntdq) == avx512vbm|vpopcntdq
}

func cpuid(eax, ecx uint32) (a, b, c, d uint32)

func xgetbv() (eax, edx uint32)

// scanAVX512 returns the index of the first of the n entries of stride bytes
// (1..8) at p whose bits masked by low lie within k bits of q (already
// masked) and are not skipped (see scanBucket; skip may be nil), or n. It
// reads only the n*stride bytes at p, which must end within the cache line
// at address lastLine, and its loads touch no line after that one.
//
//go:noescape
func scanAVX512(p *byte, n, stride int, low, q uint64, k int, perm *[64]byte, lastLine uintptr, skip *[3]uint64) int
