package hamming

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// scanBucket returns the offset of the first entry at or after x, in steps of
// stride below end, whose stored bits (the 8 bytes at its offset, masked by
// low) lie within k bits of q's and, when skip is not nil, differ from q's
// in each of the bits masked by skip[0], skip[1] and skip[2]; end if none
// does. It is the inner loop of every query. Where the CPU has AVX-512 (F,
// BW, VBMI, VPOPCNTDQ) and BMI2 it checks 8 entries per step in assembly
// (scanAVX512); elsewhere in Go (scanGo). skip is checked only for the
// entries within k, which are few.
func scanBucket(data []byte, x, end, stride int, low, q uint64, k int, skip *[3]uint64) int {
	if x < 0 || stride <= 0 || end > len(data)-8 {
		panic("hamming: internal error: bucket out of range")
	}
	if useAVX512 && stride <= 8 && x < end {
		// The loads stay within the cache lines of the bytes scanGo would
		// read (up to scanEnd), the lines queries prefetch. A
		// masked-off byte does not fault, but a load reaching into a line
		// past the bucket still waits for that line: in QueryBatch at a
		// million entries, where about one bucket in five would reach one,
		// the unprefetched misses cost 14% of its time.
		n := (end - x + stride - 1) / stride
		lastLine := (uintptr(unsafe.Pointer(unsafe.SliceData(data))) + uintptr(scanEnd(end, stride)-1)) &^ 63
		return x + stride*scanAVX512(&data[x], n, stride, low, q&low, k, &scanPerm[stride], lastLine, skip)
	}
	return scanGo(data, x, end, stride, low, q, k, skip)
}

// skipped reports whether an entry that differs from the query by d is
// passed over for skip (see scanBucket).
func skipped(d uint64, skip *[3]uint64) bool {
	return skip != nil && (d&skip[0] == 0 || d&skip[1] == 0 || d&skip[2] == 0)
}

// scanEnd returns the offset after the last byte scanBucket reads of a
// bucket that ends at offset end: each entry is loaded as 8 bytes. Queries
// prefetch a bucket's bytes up to it.
func scanEnd(end, stride int) int { return end + 8 - stride }

// scanGo is scanBucket in Go: a leaf function, so that the loop keeps its
// values in registers, unrolled by two, and reading the entries through a
// pointer whose range is checked once (data must hold 8 bytes from end on).
//
//go:noinline
func scanGo(data []byte, x, end, stride int, low, q uint64, k int, skip *[3]uint64) int {
	p := unsafe.Pointer(unsafe.SliceData(data))
	q &= low
	for ; x+stride < end; x += 2 * stride {
		a := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, x))[:]) & low
		b := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, x+stride))[:]) & low
		if bits.OnesCount64(a^q) <= k && !skipped(a^q, skip) {
			return x
		}
		if bits.OnesCount64(b^q) <= k && !skipped(b^q, skip) {
			return x + stride
		}
	}
	if x < end {
		a := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, x))[:]) & low
		if bits.OnesCount64(a^q) <= k && !skipped(a^q, skip) {
			return x
		}
	}
	return end
}

// scanPerm[s] gathers 8 entries of s bytes, packed, into 8 little-endian
// 64-bit lanes (VPERMB indices): byte j of lane i is byte i*s+j, or for
// j >= s (bits the mask low clears) any byte of the group.
var scanPerm = func() (p [9][64]byte) {
	for s := 1; s <= 8; s++ {
		for i := range 8 {
			for j := range 8 {
				p[s][8*i+j] = byte(i*s + min(j, s-1))
			}
		}
	}
	return p
}()
