package preprocess

import (
	"encoding/binary"
	"unsafe"
)

// frontSlots is the number of entries of a frontCache (a power of two).
const frontSlots = 1 << 10

// frontCache is a direct-mapped cache in front of a page's surface index
// for tokens of at most eight bytes, most words of most pages: the key is
// the token's bytes, zero-padded, read as a little-endian number (a token
// holds no zero byte, so the key tells the token, and 0 marks an empty
// entry), the value its surface id. A hit costs a multiplication and one
// comparison, where the index hashes the token and compares strings. A
// slot holds one token and a miss asks the index, so a page crafted to
// collide in the cache only makes it miss.
type frontCache [frontSlots]frontEntry

type frontEntry struct {
	key uint64
	id  int32
}

// frontSlot returns the slot of key k (Fibonacci hashing).
func frontSlot(k uint64) uint64 {
	return k * 0x9E3779B97F4A7C15 >> (64 - 10)
}

// packToken returns the key of tok, a sub-string of text, and false when
// tok is empty or longer than eight bytes. A token at least eight bytes
// before the end of text is read with one load.
func packToken(tok, text string) (uint64, bool) {
	n := len(tok)
	if n == 0 || n > 8 {
		return 0, false
	}
	off := uintptr(unsafe.Pointer(unsafe.StringData(tok))) - uintptr(unsafe.Pointer(unsafe.StringData(text)))
	if off < uintptr(len(text)) && off+8 <= uintptr(len(text)) {
		v := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(text[off:]), 8))
		return v & (^uint64(0) >> (64 - 8*n)), true
	}
	var k uint64
	for i := n - 1; i >= 0; i-- {
		k = k<<8 | uint64(tok[i])
	}
	return k, true
}

// packBytes is packToken for a token held in b. A b with eight bytes of
// capacity is read with one load (the bytes past len(b) are masked off).
func packBytes(b []byte) (uint64, bool) {
	n := len(b)
	if n == 0 || n > 8 {
		return 0, false
	}
	if cap(b) >= 8 {
		return binary.LittleEndian.Uint64(b[:8]) & (^uint64(0) >> (64 - 8*n)), true
	}
	var k uint64
	for i := n - 1; i >= 0; i-- {
		k = k<<8 | uint64(b[i])
	}
	return k, true
}
