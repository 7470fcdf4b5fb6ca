package simhash

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// scanBucket returns the offset of the first entry at or after x, in steps of
// stride below end, whose stored bits (the 8 bytes at its offset, masked by
// low) lie within k bits of q's; end if none does. It is the inner loop of
// every query: a leaf function, so that the loop keeps its values in
// registers, unrolled by two, and reading the entries through a pointer
// whose range is checked once (data must hold 8 bytes from end on).
//
//go:noinline
func scanBucket(data []byte, x, end, stride int, low, q uint64, k int) int {
	if x < 0 || stride <= 0 || end > len(data)-8 {
		panic("simhash: internal error: bucket out of range")
	}
	p := unsafe.Pointer(unsafe.SliceData(data))
	q &= low
	for ; x+stride < end; x += 2 * stride {
		a := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, x))[:]) & low
		b := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, x+stride))[:]) & low
		if bits.OnesCount64(a^q) <= k {
			return x
		}
		if bits.OnesCount64(b^q) <= k {
			return x + stride
		}
	}
	if x < end {
		a := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, x))[:]) & low
		if bits.OnesCount64(a^q) <= k {
			return x
		}
	}
	return end
}
