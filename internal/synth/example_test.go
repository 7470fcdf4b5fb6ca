package synth_test

import (
	"fmt"

	"github.com/neardup/neardup/internal/synth"
)

// A crawl is generated page by page; each page carries its label: its group
// (the index of the group's first page), the kind of page, and for a
// near-duplicate the ID of its original.
func Example() {
	c, err := synth.New(synth.Options{Seed: 1, Pages: 40})
	if err != nil {
		fmt.Println(err)
		return
	}
	dups := 0
	for p, ok := c.Next(); ok; p, ok = c.Next() {
		if p.Duplicate() {
			dups++
			fmt.Printf("%s %-10s of %s (group %s)\n", p.ID, p.Kind, p.Original, p.GroupLabel())
		}
	}
	fmt.Println(dups, "near-duplicates in", c.Len(), "pages")
	_, err = synth.New(synth.Options{Pages: 10, Duplicates: 2})
	fmt.Println(err)
	// Output:
	// p0000007 refetch    of p0000005 (group g0000005)
	// p0000013 reoffer    of p0000013 (group g0000013)
	// p0000015 edit       of p0000005 (group g0000005)
	// p0000017 edit       of p0000005 (group g0000005)
	// p0000027 edit       of p0000026 (group g0000026)
	// p0000030 refetch    of p0000000 (group g0000000)
	// p0000034 retemplate of p0000020 (group g0000020)
	// p0000035 retemplate of p0000018 (group g0000018)
	// 8 near-duplicates in 40 pages
	// synth: Options.Duplicates = 2, want at most 0.9 (0: 0.15, negative: none): neardup: invalid option
}
