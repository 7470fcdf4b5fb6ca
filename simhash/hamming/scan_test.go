package hamming

import (
	"math/bits"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestScanBucket checks scanBucket (AVX-512 where the CPU has it) and scanGo
// against a plain loop, for every stride, bucket lengths 0..40 (partial
// steps of 8 included) at random places in a cache line, every k up to 10,
// entries planted at distance k and k+1 from the query, and no skip masks
// or three random ones (runs of 1 to 16 stored bits), with an entry planted
// within k that agrees with the query under one of them.
func TestScanBucket(t *testing.T) {
	t.Logf("useAVX512 = %v", useAVX512)
	r := rand.New(rand.NewPCG(4, 2))
	for stride := 1; stride <= 8; stride++ {
		low := lowMask(min(64, 8*stride-r.IntN(3)))
		width := bits.Len64(low)
		for n := 0; n <= 40; n++ {
			for k := 0; k <= 10; k++ {
				var skip *[3]uint64
				if r.IntN(2) == 0 {
					skip = new([3]uint64)
					for i := range skip {
						w := 1 + r.IntN(min(16, width))
						skip[i] = lowMask(w) << uint(r.IntN(width-w+1))
					}
				}
				// the bucket at offset off of a slice that starts at a
				// random place in a cache line: the kernel's steps meet
				// the line its bytes end in at every offset
				off := r.IntN(16)
				buf := make([]byte, 128+off+n*stride+8)
				a := (64-int(uintptr(unsafe.Pointer(&buf[0]))%64))%64 + r.IntN(64)
				data := buf[a : a+off+n*stride+8]
				for i := range data {
					data[i] = byte(r.Uint32())
				}
				q := r.Uint64()
				// plant entries exactly k and k+1 bits from q, and one
				// within k whose flips miss a skip mask
				for p := range 3 {
					if n == 0 {
						break
					}
					i := r.IntN(n)
					v := q & low
					if p == 2 && skip != nil {
						m := low &^ skip[r.IntN(3)]
						for range k {
							if m != 0 {
								v ^= 1 << uint(bits.TrailingZeros64(m))
								m &= m - 1
							}
						}
					} else {
						for range k + r.IntN(2) {
							v ^= 1 << uint(r.IntN(width))
						}
					}
					for b := range stride {
						data[off+i*stride+b] = byte(v >> (8 * b))
					}
				}
				end := off + n*stride
				for x := off; x <= end; x += stride {
					want := end
					for y := x; y < end; y += stride {
						var v uint64
						for b := range 8 {
							v |= uint64(data[y+b]) << (8 * b)
						}
						d := (v ^ q) & low
						if bits.OnesCount64(d) <= k && (skip == nil || d&skip[0] != 0 && d&skip[1] != 0 && d&skip[2] != 0) {
							want = y
							break
						}
					}
					if got := scanBucket(data, x, end, stride, low, q, k, skip); got != want {
						t.Fatalf("stride %d, n %d, k %d, skip %x, from %d: scanBucket = %d, want %d", stride, n, k, skip, x, got, want)
					}
					if got := scanGo(data, x, end, stride, low, q, k, skip); got != want {
						t.Fatalf("stride %d, n %d, k %d, skip %x, from %d: scanGo = %d, want %d", stride, n, k, skip, x, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkScanBucket scans buckets of 8 to 24 entries of 6 bytes (the
// k = 3 layout at a million entries holds 15 on average) with no match, as a
// random query does; the sizes vary so that loop exits are not predictable.
func BenchmarkScanBucket(b *testing.B) {
	const stride = 6
	r := rand.New(rand.NewPCG(1, 1))
	data := make([]byte, 4096+8)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	low := lowMask(48)
	for _, impl := range []string{"dispatch", "go"} {
		b.Run(impl, func(b *testing.B) {
			sum := 0
			for i := 0; b.Loop(); i++ {
				x := (i * 96) & 2047
				q := uint64(i) * 0x9e3779b97f4a7c15
				n := 8 + int(q>>59)%17
				if impl == "go" {
					sum += scanGo(data, x, x+n*stride, stride, low, q, 3, nil)
				} else {
					sum += scanBucket(data, x, x+n*stride, stride, low, q, 3, nil)
				}
			}
			if sum == 0 {
				b.Fatal("no work")
			}
		})
	}
}

// TestTableBucket checks the compact directory against dir for random
// bucket sizes, and that a group of 64 buckets holding 65,536 entries or
// more falls back to dir.
func TestTableBucket(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 4))
	for _, crowded := range []bool{false, true} {
		dir := make([]uint32, 1<<10+1)
		for j := 1; j < len(dir); j++ {
			size := uint32(r.IntN(40))
			if crowded && j == 300 {
				size = 70000
			}
			dir[j] = dir[j-1] + size
		}
		tb := table{dir: dir}
		tb.setCompact()
		if (tb.cdir == nil) != crowded {
			t.Fatalf("crowded %v: compact directory present = %v", crowded, tb.cdir != nil)
		}
		for j := range uint64(len(dir) - 1) {
			if lo, hi := tb.bucket(j); lo != dir[j] || hi != dir[j+1] {
				t.Fatalf("crowded %v: bucket(%d) = %d, %d; want %d, %d", crowded, j, lo, hi, dir[j], dir[j+1])
			}
		}
	}
}
