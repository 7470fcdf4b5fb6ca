//go:build !amd64 || purego

package hamming

// useAVX512 is false where scanAVX512 has no assembly.
const useAVX512 = false

// scanAVX512 is never called where useAVX512 is false.
func scanAVX512(*byte, int, int, uint64, uint64, int, *[64]byte, uintptr, *[3]uint64) int {
	panic("hamming: internal error: scanAVX512 without AVX-512")
}
