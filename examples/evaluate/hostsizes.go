package main

import (
	"bytes"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/neardup/neardup/internal/docid"
)

// writeHostSizes prints the shape of a corpus's hosts after 10,000, 100,000
// and 1,000,000 pages and at its end: how many hosts, the share of them with
// fewer than five pages, the largest host, the hosts with more than 100
// pages, the share of near-duplicates, of pages declared Chinese
// (<html lang="zh">) and the bytes of a page. No detector runs.
func writeHostSizes(pages source, w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pages\thosts\thosts with < 5 pages\tlargest host\thosts with > 100 pages\tnear-duplicates\tChinese pages\tbytes/page\t")
	sizes := map[string]int{}
	n, dups, zh, size := 0, 0, 0, 0
	row := func() {
		under5, over100, largest := 0, 0, 0
		for _, c := range sizes {
			if c < 5 {
				under5++
			}
			if c > 100 {
				over100++
			}
			largest = max(largest, c)
		}
		fmt.Fprintf(tw, "%d\t%d\t%.1f %%\t%d (%.1f %%)\t%d\t%.1f %%\t%.1f %%\t%d\t\n", n, len(sizes),
			100*float64(under5)/float64(len(sizes)), largest, 100*float64(largest)/float64(n), over100,
			100*float64(dups)/float64(n), 100*float64(zh)/float64(n), size/n)
	}
	for p := range pages.all {
		n++
		sizes[docid.Host(p.url)]++
		size += len(p.raw)
		if p.dup {
			dups++
		}
		if bytes.Contains(p.raw[:min(len(p.raw), 200)], []byte(`lang="zh`)) {
			zh++
		}
		if n == 10_000 || n == 100_000 || n == 1_000_000 {
			row()
		}
	}
	if n > 0 && n != 10_000 && n != 100_000 && n != 1_000_000 {
		row()
	}
	return tw.Flush()
}
