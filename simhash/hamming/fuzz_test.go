package hamming

import (
	"errors"
	"slices"
	"testing"
)

// FuzzIndex runs a sequence of operations decoded from the input (adds one
// at a time and in batches, duplicate adds, removes, queries one at a time
// and in batches, around a few centres so that entries cluster) against an
// Index and a map searched linearly, and checks that every query agrees.
// The first byte picks MaxDistance (exact and multi-probe layouts) and the
// expected size; the index is small, so merges happen every few hundred
// adds.
func FuzzIndex(f *testing.F) {
	f.Add([]byte{0, 4, 15, 1, 4, 15, 2, 6, 0, 3, 5, 1, 0, 7, 3, 2})
	f.Add([]byte{1, 4, 255, 9, 4, 255, 9, 4, 255, 9, 4, 255, 9, 5, 3, 0, 6, 1, 2, 7, 0, 0})
	f.Add([]byte{2, 0, 1, 2, 1, 1, 2, 2, 1, 2, 3, 1, 2, 5, 0, 0, 6, 1, 1, 7, 4, 4})
	f.Add([]byte{3, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 4, 31, 0, 5, 9, 0, 7, 1, 1})
	f.Add([]byte{4, 4, 31, 0, 4, 31, 0, 0, 9, 9, 1, 9, 9, 2, 9, 9, 0, 17, 40, 4, 20, 7, 5, 9, 0, 7, 1, 1, 3, 1, 1, 6, 9, 9})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 || len(in) > 3000 {
			return
		}
		// the last: directories over the whole key, so that tables 1
		// and 2 leave a block out (trimTables)
		kmax := []int{1, 3, 5, 8, 3}[in[0]%5]
		size := []int{64, 64, 64, 64, 1 << 20}[in[0]%5]
		in = in[1:]
		ix, err := New(Options{MaxDistance: kmax, ExpectedSize: size})
		if err != nil {
			t.Fatal(err)
		}
		ref := scan{}
		var live []uint64
		nextID := uint64(1)
		centers := [8]uint64{0, ^uint64(0), 0x5555_5555_5555_5555, 0x0123_4567_89ab_cdef, 1 << 63, 0xffff, 0xdead_beef_0000_0000, 0x8000_0000_0000_0001}
		fp := func(a, b byte) uint64 {
			v := centers[a&7]
			v ^= 1 << (b & 63)
			if a&8 != 0 {
				v ^= 1 << ((b >> 2) & 63)
			}
			if a&16 != 0 {
				v ^= 1 << ((uint(a) * 7) & 63)
			}
			if a&32 != 0 {
				v ^= uint64(b) << 20
			}
			return uint64(v)
		}
		check := func(qs []uint64, k int) {
			for _, q := range qs {
				got, err := ix.Query(q, k, nil)
				if err != nil {
					t.Fatal(err)
				}
				if want := ref.query(q, k); !slices.Equal(sortHits(got), want) {
					t.Fatalf("Query(%#x, %d): got %v, want %v", uint64(q), k, got, want)
				}
			}
			checkBatch(t, ix, ref, qs, k)
		}
		for len(in) >= 3 {
			op, a, b := in[0]%8, in[1], in[2]
			in = in[3:]
			switch op {
			case 0, 1, 2:
				if err := ix.Add(nextID, fp(a, b)); err != nil {
					t.Fatal(err)
				}
				ref[nextID] = fp(a, b)
				live = append(live, nextID)
				nextID++
			case 3: // a kept id again
				if len(live) > 0 {
					if err := ix.Add(live[int(a)%len(live)], fp(a, b)); !errors.Is(err, ErrDuplicateID) {
						t.Fatalf("Add of a kept id: %v", err)
					}
				}
			case 4:
				n := 1 + int(a%32)
				ids := make([]uint64, n)
				fps := make([]uint64, n)
				for i := range n {
					ids[i], fps[i] = nextID, fp(a+byte(i), b^byte(i*13))
					nextID++
				}
				if err := ix.AddBatch(ids, fps); err != nil {
					t.Fatal(err)
				}
				for i, id := range ids {
					ref[id] = fps[i]
				}
				live = append(live, ids...)
			case 5:
				if len(live) > 0 {
					id := takeAt(&live, int(a)%len(live))
					if err := ix.Remove(id); err != nil {
						t.Fatal(err)
					}
					delete(ref, id)
				}
			case 6:
				check([]uint64{fp(a, b)}, int(b)%(kmax+1))
			case 7:
				qs := make([]uint64, 1+int(a%40))
				for i := range qs {
					qs[i] = fp(a^byte(i), b+byte(i))
				}
				check(qs, int(b)%(kmax+1))
			}
			if ix.Len() != len(ref) {
				t.Fatalf("Len %d, want %d", ix.Len(), len(ref))
			}
		}
		var all []uint64
		for _, id := range live {
			all = append(all, ref[id])
		}
		check(all, kmax)
	})
}
