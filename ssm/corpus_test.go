package ssm

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// The search-space measurement of §4 on the labelled corpora. It runs only
// when NEARDUP_SSM_CORPUS is set (to "1", or to a comma-separated list of
// corpora), from $NEARDUP_CORPUS or ../../shared/corpus:
//
//	NEARDUP_SSM_CORPUS=1 go test ./ssm/ -run TestCorpusPartitions -v

type corpusPage struct {
	doc   *neardup.Document
	group string
}

func loadCorpus(t *testing.T, name string) []corpusPage {
	t.Helper()
	root := os.Getenv("NEARDUP_CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "shared", "corpus")
	}
	dir := filepath.Join(root, name)
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		t.Skipf("corpus not found: %v", err)
	}
	defer f.Close()
	var pipe preprocess.Pipeline
	var pages []corpusPage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 4 || c[0] == "id" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(c[3])))
		if err != nil {
			t.Fatal(err)
		}
		d, err := neardup.NewDocument(&pipe, c[0], c[1], raw)
		if err != nil || len(d.Page.Terms) == 0 {
			continue
		}
		pages = append(pages, corpusPage{d, c[2]})
	}
	return pages
}

type outcome struct {
	tp, fp, fn, wrong int
	comparisons       int64
	allPairs          int64 // Σ kept pages at each Match: the comparisons without any index
}

func (o outcome) f1() (p, r, f float64) {
	p = float64(o.tp) / float64(o.tp+o.fp+o.wrong)
	r = float64(o.tp) / float64(o.tp+o.fn+o.wrong)
	return p, r, 2 * p * r / (p + r)
}

// streamPages offers the pages in order to det (MatchOrAdd), as
// examples/evaluate does; comparisons returns the SSM computations so far.
func streamPages(t *testing.T, pages []corpusPage, det neardup.MatchAdder, comparisons func() int64) outcome {
	var o outcome
	group := make(map[string]string)
	seen := make(map[string]bool)
	kept := 0
	for _, p := range pages {
		group[p.doc.ID] = p.group
		dup := seen[p.group]
		seen[p.group] = true
		o.allPairs += int64(kept)
		ms, added, err := det.MatchOrAdd(p.doc)
		if err != nil {
			t.Fatal(err)
		}
		if added {
			kept++
		}
		switch {
		case len(ms) > 0 && dup && group[ms[0].ID] == p.group:
			o.tp++
		case len(ms) > 0 && dup:
			o.wrong++
		case len(ms) > 0:
			o.fp++
		case dup:
			o.fn++
		}
	}
	o.comparisons = comparisons()
	return o
}

func TestCorpusPartitions(t *testing.T) {
	which := os.Getenv("NEARDUP_SSM_CORPUS")
	if which == "" {
		t.Skip("set NEARDUP_SSM_CORPUS=1 (or en-dev,zh-dev,...) to measure the partitions on the corpora")
	}
	names := []string{"en-dev", "zh-dev", "en-dev-hard", "zh-dev-hard"}
	if which != "1" {
		names = strings.Split(which, ",")
	}
	for _, name := range names {
		pages := loadCorpus(t, name)
		sample := make([]*neardup.Document, 0, 200)
		for _, p := range pages[:min(200, len(pages))] {
			sample = append(sample, p.doc)
		}
		doms, err := DomainsFrom(sample, 5, 50)
		if err != nil {
			t.Fatal(err)
		}
		n := float64(len(pages))
		report := func(what string, o outcome) {
			p, r, f := o.f1()
			t.Logf("%s %-28s TP %4d FP %3d FN %3d wrong %3d  P %.4f R %.4f F1 %.4f  comparisons/page %7.1f (all pairs %6.1f, %.4f of them)",
				name, what, o.tp, o.fp, o.fn, o.wrong, p, r, f, float64(o.comparisons)/n, float64(o.allPairs)/n, float64(o.comparisons)/float64(o.allPairs))
		}
		plain, _ := New(Options{})
		report("ssm", streamPages(t, pages, plain, plain.Comparisons))

		// The corpora's pages are mostly below 64 KB, so the paper's size
		// buckets hardly split them; buckets at the terciles of the
		// sample's raw sizes do, and show what the margin recovers.
		sizes := make([]int, len(sample))
		for i, d := range sample {
			sizes[i] = len(d.Raw)
		}
		slices.Sort(sizes)
		t1, t2 := sizes[len(sizes)/3], sizes[2*len(sizes)/3]
		terciles := []SizeRange{{0, t1}, {t1 + 1, t2}, {t2 + 1, 0}}
		for _, c := range []struct {
			what   string
			sizes  []SizeRange
			margin int
		}{
			{"paper sizes", nil, 0}, {"paper sizes", nil, 1024}, {"paper sizes", nil, 4096}, {"paper sizes", nil, 16384},
			{"tercile sizes", terciles, 0}, {"tercile sizes", terciles, 256}, {"tercile sizes", terciles, 1024}, {"tercile sizes", terciles, 4096},
		} {
			margin := c.margin
			part, err := NewPartitioner(PartitionOptions{Domains: doms, Sizes: c.sizes, Margin: margin})
			if err != nil {
				t.Fatal(err)
			}
			var dets []*Detector
			pd, err := neardup.NewPartitioned(part, func(int) (neardup.Detector, error) {
				d, err := New(Options{})
				dets = append(dets, d)
				return d, err
			})
			if err != nil {
				t.Fatal(err)
			}
			o := streamPages(t, pages, pd, func() int64 {
				var c int64
				for _, d := range dets {
					c += d.Comparisons()
				}
				return c
			})
			report(c.what+" margin="+strconv.Itoa(margin), o)
			if margin == 0 {
				// How the pages spread over the parts, and the duplicates
				// whose group's first page is in another part.
				home := make(map[string]int)
				counts := make(map[int]int)
				across, acrossSize := 0, 0
				for _, p := range pages {
					parts, _ := part.Partition(p.doc)
					counts[parts[0]]++
					h, ok := home[p.group]
					if !ok {
						home[p.group] = parts[0]
						continue
					}
					if h != parts[0] {
						across++
						if d1, _ := part.Split(h); d1 == func() int { d, _ := part.Split(parts[0]); return d }() {
							acrossSize++
						}
					}
				}
				t.Logf("%s %s (%v) pages per part %v; duplicates in another part than their group's first page: %d (%d of them in the same domain, another size bucket)", name, c.what, part.Options().Sizes, counts, across, acrossSize)
			}
		}
	}
}
