package redisindex

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/minhash"
)

// The candidates of a page are the in-process Detector's (two of its query
// keys in common, or one rare key), in both layouts: on the generated crawl
// whose phrases recur across unrelated pages, the pages kept are the
// Detector's, one by one, and the pages judged per page are within a fifth
// of its own (a repository keeps a page under the keys it was kept with,
// the Detector files it again as its host's template grows). Candidates
// under any shared key judge several times as many.
func TestCandidateRule(t *testing.T) {
	const n = 800
	crawl := benchtest.Crawls(n)[1] // bigram
	if crawl.Name != "bigram" {
		t.Fatalf("crawl %q, want bigram", crawl.Name)
	}
	local, _ := minhash.New(minhash.Options{})
	var want []bool
	for _, d := range benchtest.CrawlOf(t, crawl.Opts) {
		_, added, err := local.MatchOrAdd(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, added)
	}
	for _, spread := range []bool{false, true} {
		t.Run(fmt.Sprint("spread=", spread), func(t *testing.T) {
			det := repository(t, spread)
			i, differ := 0, 0
			for _, d := range benchtest.CrawlOf(t, crawl.Opts) {
				_, added, err := det.MatchOrAdd(context.Background(), d)
				if err != nil {
					t.Fatal(err)
				}
				if added != want[i] {
					differ++
					if differ <= 3 {
						t.Errorf("page %d (%s): added %v, in process %v", i, d.ID, added, want[i])
					}
				}
				i++
			}
			got, in := det.Comparisons(), local.Comparisons()
			t.Logf("%d pages: %d judged, in process %d compared", n, got, in)
			if differ > 0 {
				t.Errorf("%d of %d verdicts differ", differ, n)
			}
			if float64(got) > 1.2*float64(in) || float64(got) < 0.8*float64(in) {
				t.Errorf("%d pages judged, %d compared in process: want within a fifth", got, in)
			}
			if n := det.keyMisses.Load(); n != 0 {
				t.Errorf("%d reads derived other keys than the Judge's", n)
			}
		})
	}
}

// A page's commit reads again the postings of every key it was looked up
// under, not only of those it is filed under: a page filed meanwhile under
// one of its further query keys may be its candidate, and the commit
// answers that it must read again. A commit that checked only its keys
// (Judge.Keys) would add it.
func TestCommitChecksQueryKeys(t *testing.T) {
	c, prefix := client(t)
	ctx := context.Background()
	det, err := New(Options{Client: c, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	first := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 44, Groups: 2, Members: 1})
	if err := det.Add(ctx, first[0][0]); err != nil { // the repository's first write: its options
		t.Fatal(err)
	}
	d := first[1][0]
	r, err := det.judge.Record(d)
	if err != nil {
		t.Fatal(err)
	}
	rd, _, err := det.readPage(ctx, "MatchOrAdd", d, r, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.matches) != 0 || len(rd.query) <= len(rd.keys) {
		t.Fatalf("read: %d matches, %d query keys, %d keys; want none, more than the keys", len(rd.matches), len(rd.query), len(rd.keys))
	}
	// A page filed since the read under the last query key, which the
	// page is not filed under (a handle after the last one read, given as
	// an add gives it; buckets are a key's low 16 bits while the
	// repository is small).
	k := rd.query[len(rd.query)-1]
	if slices.Contains(rd.keys, k) {
		t.Fatal("the last query key is a key")
	}
	if err := c.Incr(ctx, prefix+":m3:next").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.HSet(ctx, fmt.Sprintf("%s:m3:k:%04x", prefix, k&0xffff), u32s([]uint32{k}), u64(uint64(rd.seen+1))).Err(); err != nil {
		t.Fatal(err)
	}
	added, err := det.commit(ctx, "MatchOrAdd", d, rd, rd.seen, false, fleet.NewCall())
	if err != nil || added {
		t.Fatalf("commit after a page was filed under a query key: added %v, %v; want a conflict", added, err)
	}
}
