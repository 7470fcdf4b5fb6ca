package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/ssm"
)

// experiments are the measurements of a paper's claims that are more than
// one method's row: each streams the corpus through several detectors and
// prints one table. They read the method flags (-kk, -kf, -ssmk, ...) like
// the methods do.
type experiments struct {
	claims     *bool
	partitions *bool
	digests    *bool
	hostSizes  *bool
}

func newExperiments(fs *flag.FlagSet) experiments {
	return experiments{
		claims:     fs.Bool("claims", false, "cluster's accuracy claim (Kumar & Govindarajulu, Fig. 7): the sentence → SimHash cascade alone and in KModes clusters probed at p = 1, 2, 3, with the share of the kept pages a page is compared with"),
		partitions: fs.Bool("partitions", false, "ssm's search-space claim (§4): ssm alone and in domain × size partitions (the paper's sizes, the sample's size terciles; margins 0 and 1 KB), with comparisons per page"),
		hostSizes:  fs.Bool("hostsizes", false, "no detector: print the corpus's host sizes (hosts, the share with fewer than five pages, the largest) after 10,000, 100,000 and 1,000,000 pages and at its end"),
		digests:    fs.Bool("digests", false, "no detector: print a SHA-256 of what the preprocessing pipeline makes of each page, and its id, to compare two versions of the pipeline with diff"),
	}
}

// chosen returns the experiment the flags ask for, or nil.
func (e experiments) chosen(all methodSet, fs *flag.FlagSet) func(pages source, w io.Writer) error {
	switch {
	case *e.claims:
		return func(pages source, w io.Writer) error { return clusterClaims(fs, pages, w) }
	case *e.partitions:
		return func(pages source, w io.Writer) error { return ssmPartitions(all, fs, pages, w) }
	case *e.digests:
		return writeDigests
	case *e.hostSizes:
		return writeHostSizes
	}
	return nil
}

// clusterClaims streams the pages through the cascade alone and through the
// clustered cascade (the -kk, -kf, -kfit flags) at p = 1, 2 and 3.
func clusterClaims(fs *flag.FlagSet, pages source, w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	defer tw.Flush()
	fmt.Fprintln(tw, "detector\tprecision\trecall\tf1\tcompared\tgenerations\t")
	alone, err := kumarCascade(fs, pages.n)
	if err != nil {
		return err
	}
	r := stream("cascade", alone, pages, false)
	fmt.Fprintf(tw, "cascade alone\t%.4f\t%.4f\t%.4f\t100%%\t\t\n", r.precision(), r.recall(), r.f1())
	k, f, fitAt := flagInt(fs, "kk", cluster.DefaultK), flagInt(fs, "kf", cluster.DefaultKeywords), flagInt(fs, "kfit", cluster.DefaultFitAt)
	for _, p := range []int{1, 2, 3} {
		det, err := cluster.New(cluster.Options{
			KModes:      cluster.KModesOptions{K: k, Keywords: f, Probes: min(p, k)},
			FitAt:       fitAt,
			NewDetector: func(_, expected int) (neardup.Detector, error) { return kumarCascade(fs, expected) },
		})
		if err != nil {
			return err
		}
		r := stream("kmodes", det, pages, false)
		st := det.Stats()
		fmt.Fprintf(tw, "k = %d, p = %d\t%.4f\t%.4f\t%.4f\t%.0f%%\t%d\t\n", k, p, r.precision(), r.recall(), r.f1(),
			100*float64(p)*compared(st.Sizes)/float64(max(st.Documents, 1)), len(st.Sizes))
	}
	return nil
}

// compared is the expected number of kept pages a page drawn like the
// repository meets with p = 1, from the sizes of the clusters of each
// generation (cluster.Stats.Sizes): Σ over clusters of n_j² / n, as a page
// lands in cluster j of each generation with the share of that generation
// it holds.
func compared(sizes [][]int) float64 {
	sum := 0.0
	for _, g := range sizes {
		n, sq := 0, 0
		for _, x := range g {
			n += x
			sq += x * x
		}
		if n > 0 {
			sum += float64(sq) / float64(n)
		}
	}
	return sum
}

// ssmPartitions streams the pages through ssm alone and within the
// partitions of §4, domains derived from the first -ssmfit pages, and
// counts the SSM comparisons per page.
func ssmPartitions(all methodSet, fs *flag.FlagSet, pages source, w io.Writer) error {
	m, _ := all.lookup("ssm")
	sample := pages.head(flagInt(fs, "ssmfit", 200))
	doms, err := corpusDomains(sample, flagInt(fs, "ssmk", 5), flagInt(fs, "ssmvocab", 50))
	if err != nil {
		return err
	}
	sizes := make([]int, len(sample))
	for i, p := range sample {
		sizes[i] = len(p.raw)
	}
	slices.Sort(sizes)
	t1, t2 := sizes[len(sizes)/3], sizes[2*len(sizes)/3]
	terciles := []ssm.SizeRange{{From: 0, To: t1}, {From: t1 + 1, To: t2}, {From: t2 + 1}}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	defer tw.Flush()
	fmt.Fprintln(tw, "partitions\tprecision\trecall\tf1\tcomparisons/page\tshare of kept pages\t")
	row := func(what string, det detectorAdder, dets func() []neardup.Detector) {
		c := &counting{detectorAdder: det}
		r := stream(what, c, pages, false)
		var cmp int64
		for _, d := range dets() {
			cmp += d.(*ssm.Detector).Comparisons()
		}
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.1f\t%.3f\t\n", what, r.precision(), r.recall(), r.f1(),
			float64(cmp)/float64(pages.n), float64(cmp)/float64(max(c.before, 1)))
	}
	newSSM, err := m.new()
	if err != nil {
		return err
	}
	alone := newSSM.(*ssm.Detector)
	row("keyword index only", alone, func() []neardup.Detector { return []neardup.Detector{alone} })
	for _, c := range []struct {
		what   string
		sizes  []ssm.SizeRange
		margin int
	}{
		{"paper sizes", nil, 0}, {"paper sizes, ±1 KB", nil, 1024},
		{"tercile sizes", terciles, 0}, {"tercile sizes, ±1 KB", terciles, 1024},
	} {
		part, err := ssm.NewPartitioner(ssm.PartitionOptions{Domains: doms, Sizes: c.sizes, Margin: c.margin, N: flagInt(fs, "ssmn", ssm.DefaultN)})
		if err != nil {
			return err
		}
		var dets []neardup.Detector
		pd, err := cluster.New(cluster.Options{Partitioner: part, NewDetector: func(int, int) (neardup.Detector, error) {
			d, err := m.new()
			dets = append(dets, d)
			return d, err
		}})
		if err != nil {
			return err
		}
		row(c.what, pd, func() []neardup.Detector { return dets })
	}
	return nil
}

// counting is a MatchAdder that counts, over the pages offered, the pages
// kept before each: what comparing every pair would compare.
type counting struct {
	detectorAdder
	kept, before int64
}

type detectorAdder interface {
	neardup.Detector
	neardup.MatchAdder
}

func (c *counting) MatchOrAdd(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	c.before += c.kept
	ms, added, err := c.detectorAdder.MatchOrAdd(ctx, d)
	if added {
		c.kept++
	}
	return ms, added, err
}

// flagInt returns the value of the int flag name of fs, or def when fs has
// no such flag.
func flagInt(fs *flag.FlagSet, name string, def int) int {
	if fl := fs.Lookup(name); fl != nil {
		if g, ok := fl.Value.(flag.Getter); ok {
			if v, ok := g.Get().(int); ok {
				return v
			}
		}
	}
	return def
}
