package hamming_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/neardup/neardup/simhash/hamming"
)

func ExampleIndex() {
	ix, err := hamming.New(hamming.Options{MaxDistance: 3, ExpectedSize: 1000})
	if err != nil {
		panic(err)
	}
	page := uint64(0x5e35_6a2b_510d_2544)
	_ = ix.Add(1, page)
	_ = ix.Add(2, page^0b101)           // 2 bits away
	_ = ix.Add(3, page^(1<<63|1<<40|1)) // 3 bits away, in three blocks
	_ = ix.Add(4, ^page)                // 64 bits away

	hits, err := ix.Query(page, 3, nil)
	if err != nil {
		panic(err)
	}
	slices.SortFunc(hits, func(a, b hamming.Hit) int { return int(a.ID) - int(b.ID) })
	fmt.Println(hits)

	_ = ix.Remove(2)
	hits, _ = ix.Query(page, 2, hits[:0])
	fmt.Println(hits, ix.Len())
	// Output:
	// [{1 0} {2 2} {3 3}]
	// [{1 0}] 3
}

// A crawler that fetches pages in batches asks for all their neighbours at
// once: QueryBatch overlaps the memory waits of the queries.
func ExampleIndex_QueryBatch() {
	ix, _ := hamming.New(hamming.Options{MaxDistance: 3, ExpectedSize: 1000})
	page := func(id uint64) uint64 { return uint64(id * 0x9e37_79b9_7f4a_7c15) }
	for id := uint64(1); id <= 100; id++ {
		_ = ix.Add(id, page(id))
	}
	fetched := []uint64{
		page(7) ^ 0b11,        // a copy of page 7 with two bits changed
		0x0123_4567_89ab_cdef, // a new page
		page(42),              // page 42 again
	}
	hits, ends, err := ix.QueryBatch(fetched, 3, nil, nil)
	if err != nil {
		panic(err)
	}
	from := 0
	for i, end := range ends {
		fmt.Println(i, hits[from:end])
		from = end
	}
	// Output:
	// 0 [{7 2}]
	// 1 []
	// 2 [{42 0}]
}

func ExampleIndex_Plan() {
	ix, _ := hamming.New(hamming.Options{MaxDistance: 3, ExpectedSize: 1 << 20})
	p := ix.Plan()
	fmt.Println(p.Blocks, p.Tables, p.PrefixBits, p.BytesPerEntry <= 48)
	// Output: 4 4 16 true
}

func ExampleAllPairs() {
	fps := []uint64{0xff00, 0xff01, 0x00ff, 0xff03, 0x00ff}
	_ = hamming.AllPairs(context.Background(), fps, 1, func(i, j, d int) error {
		fmt.Println(i, j, d)
		return nil
	})
	// Unordered output:
	// 0 1 1
	// 1 3 1
	// 2 4 0
}
