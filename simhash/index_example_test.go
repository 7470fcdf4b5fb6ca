package simhash_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/neardup/neardup/simhash"
)

func ExampleIndex() {
	ix, err := simhash.NewIndex(simhash.IndexOptions{MaxDistance: 3, ExpectedSize: 1000})
	if err != nil {
		panic(err)
	}
	page := simhash.Fingerprint(0x5e35_6a2b_510d_2544)
	_ = ix.Add(1, page)
	_ = ix.Add(2, page^0b101)           // 2 bits away
	_ = ix.Add(3, page^(1<<63|1<<40|1)) // 3 bits away, in three blocks
	_ = ix.Add(4, ^page)                // 64 bits away

	hits, err := ix.Query(page, 3, nil)
	if err != nil {
		panic(err)
	}
	slices.SortFunc(hits, func(a, b simhash.Hit) int { return int(a.ID) - int(b.ID) })
	fmt.Println(hits)

	_ = ix.Remove(2)
	hits, _ = ix.Query(page, 2, hits[:0])
	fmt.Println(hits, ix.Len())
	// Output:
	// [{1 0} {2 2} {3 3}]
	// [{1 0}] 3
}

func ExampleIndex_Plan() {
	ix, _ := simhash.NewIndex(simhash.IndexOptions{MaxDistance: 3, ExpectedSize: 1 << 20})
	p := ix.Plan()
	fmt.Println(p.Blocks, p.Tables, p.PrefixBits, p.BytesPerEntry <= 48)
	// Output: 4 4 16 true
}

func ExampleAllPairs() {
	fps := []simhash.Fingerprint{0xff00, 0xff01, 0x00ff, 0xff03, 0x00ff}
	_ = simhash.AllPairs(context.Background(), fps, 1, func(i, j, d int) error {
		fmt.Println(i, j, d)
		return nil
	})
	// Unordered output:
	// 0 1 1
	// 1 3 1
	// 2 4 0
}
