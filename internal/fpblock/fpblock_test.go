package fpblock

import "testing"

func TestSplit(t *testing.T) {
	for k := range 8 {
		bs := Split(k)
		var next, fp uint64 = 0, 0
		for i, b := range bs {
			if uint64(b.Shift) != next || b.Width < 64/uint(k+1) || b.Width > 64/uint(k+1)+1 {
				t.Fatalf("k %d block %d = %+v", k, i, b)
			}
			next += uint64(b.Width)
			fp |= b.Value(^uint64(0)) << b.Shift // every bit once
		}
		if len(bs) != k+1 || next != 64 || fp != ^uint64(0) {
			t.Fatalf("k %d: %d blocks over %d bits", k, len(bs), next)
		}
	}
	if v := (Block{Shift: 4, Width: 8}).Value(0xABCD); v != 0xBC {
		t.Fatalf("Value = %#x, want 0xbc", v)
	}
}
