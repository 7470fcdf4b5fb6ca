package preprocess

import (
	"encoding/binary"
	"unsafe"
)

// frontSlots is the number of entries of a frontCache (a power of two).
const frontSlots = 1 << 10

// frontCache is a direct-mapped cache in front of a page's surface index
// for tokens of at most eight bytes, most words of most pages: the key is
// the token's bytes, zero-padded to eight, read as a little-endian number (a token
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

// packToken returns the key of tok (its bytes, zero-padded to eight, read
// as a little-endian number) when tok holds one to eight bytes and text, of
// which tok must be a sub-string, has eight bytes from tok's start on: then
// one load reads it. Otherwise it returns false, and packSlow gives the key
// of a short token. (Two functions, so that this one is inlined.)
func packToken(tok, text string) (uint64, bool) {
	p := unsafe.Pointer(unsafe.StringData(tok))
	rest := uintptr(unsafe.Pointer(unsafe.StringData(text))) + uintptr(len(text)) - uintptr(p) // bytes of text from tok on
	if n := uint(len(tok)); n-1 < 8 && rest >= 8 {
		return binary.LittleEndian.Uint64((*[8]byte)(p)[:]) & (^uint64(0) >> (64 - 8*n)), true
	}
	return 0, false
}

// packBytes is packToken for a token held in b, read with one load when b
// has a capacity of eight bytes (the bytes past len(b) are masked off).
func packBytes(b []byte) (uint64, bool) {
	if n := uint(len(b)); n-1 < 8 && cap(b) >= 8 {
		return binary.LittleEndian.Uint64(b[:8]) & (^uint64(0) >> (64 - 8*n)), true
	}
	return 0, false
}

// packSlow returns the key of s, copying it, and false when s is empty or
// longer than eight bytes.
func packSlow(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 8 {
		return 0, false
	}
	var b [8]byte
	copy(b[:], s)
	return binary.LittleEndian.Uint64(b[:]), true
}
