package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/ssm"
)

// ssmMethods is the similarity score measure of Zaheer, Narayana and
// Sreevani: top-N keyword tables compared by SSM (§3.7), alone (ssm) and
// within the domain × size partitions of §4 (ssm-partitioned).
//
// The corpora list no domains, so ssm-partitioned derives them from the
// corpus itself: domainsFrom clusters the first -ssmfit pages of those
// evaluated, a prefix of the manifest (without their labels), into -ssmk
// cluster.KModes clusters by their top 10 keywords, and each domain's vocabulary is its cluster's mode, the -ssmvocab
// keywords most frequent among the cluster's pages. Size buckets are the
// paper's (1–64 KB, 65–128 KB, ≥ 129 KB of the raw page), and -ssmmargin
// probes the neighbouring size bucket for pages within that many bytes of a
// boundary.
func ssmMethods(fs *flag.FlagSet) []method {
	n := fs.Int("ssmn", ssm.DefaultN, "ssm: top keywords N per page")
	cut := fs.Float64("ssmcut", ssm.DefaultCutoff, "ssm: cut-off; a near-duplicate iff SSM (by -ssmrule) is below it")
	rule := fs.String("ssmrule", ssm.Magnitude.String(), "ssm: magnitude (|SSM| < cut-off) or signed (SSM < cut-off, the paper's text)")
	k := fs.Int("ssmk", 5, "ssm-partitioned: domains derived from the corpus (the paper has 5)")
	fit := fs.Int("ssmfit", 200, "ssm-partitioned: first pages of the manifest the domains are derived from")
	vocab := fs.Int("ssmvocab", 50, "ssm-partitioned: keywords per domain vocabulary")
	margin := fs.Int("ssmmargin", 0, "ssm-partitioned: bytes from a size boundary within which the neighbouring bucket is probed too (0: the paper's rule)")
	at := func(c float64) (neardup.Detector, error) {
		o := ssm.Options{N: *n, Cutoff: c}
		switch *rule {
		case ssm.Magnitude.String():
		case ssm.Signed.String():
			o.Rule = ssm.Signed
		default:
			return nil, fmt.Errorf("-ssmrule %q: want magnitude or signed", *rule)
		}
		return ssm.New(o)
	}
	partitioned := func(pages source) (neardup.Detector, error) {
		if _, err := at(*cut); err != nil {
			return nil, err
		}
		doms, err := corpusDomains(pages.head(*fit), *k, *vocab)
		if err != nil {
			return nil, err
		}
		p, err := ssm.NewPartitioner(ssm.PartitionOptions{Domains: doms, Margin: *margin, N: *n})
		if err != nil {
			return nil, err
		}
		return cluster.New(cluster.Options{Partitioner: p, NewDetector: func(int, int) (neardup.Detector, error) { return at(*cut) }})
	}
	values := fixed(1, 2, 3, 4, 5, 5.5, 6, 6.5, 7, 7.5, 8, 9, 10, 12, 15, 20, 30, 40, 52.64)
	return []method{
		{
			name:  "ssm",
			doc:   "similarity score measure of top-N keyword tables (Zaheer, Narayana & Sreevani §3.7)",
			new:   func() (neardup.Detector, error) { return at(*cut) },
			sweep: &sweep{param: "cut-off", values: values, at: at},
		},
		{
			name:   "ssm-partitioned",
			doc:    "ssm within domain × size partitions (§4; -ssmk domains clustered from the first -ssmfit pages, -ssmmargin)",
			newFor: partitioned,
		},
	}
}

// corpusDomains derives k domains from the sample pages (domainsFrom);
// pages the pipeline rejects are skipped.
func corpusDomains(pages []page, k, words int) ([]ssm.Domain, error) {
	var pipe preprocess.Pipeline
	var sample []*neardup.Document
	for _, p := range pages {
		d, err := neardup.NewDocument(&pipe, p.id, p.url, "", p.raw)
		if err != nil || len(d.Page.Terms) == 0 {
			continue
		}
		sample = append(sample, d)
	}
	return domainsFrom(sample, k, words)
}

// domainsFrom derives k domains from a sample of pages, for a repository
// whose domains nobody has listed (the paper's five are chosen by hand):
// cluster.KModes clusters the sample by each page's top ssm.DefaultN
// keywords (Cao's deterministic initialisation, cosine similarity), and
// domain j's vocabulary is cluster j's mode, the words keywords most
// frequent among its pages. Domains are named "d0", "d1", ... in cluster
// order; a cluster whose mode is empty is dropped.
func domainsFrom(sample []*neardup.Document, k, words int) ([]ssm.Domain, error) {
	if k < 1 || words < 1 {
		return nil, fmt.Errorf("domains: k = %d, words = %d, want both ≥ 1: %w", k, words, neardup.ErrInvalidOption)
	}
	km, err := cluster.NewKModes(cluster.KModesOptions{K: k, Keywords: ssm.DefaultN, ModeKeywords: words})
	if err != nil {
		return nil, fmt.Errorf("domains: %w", err)
	}
	if err := km.Fit(sample); err != nil {
		return nil, fmt.Errorf("domains: %w", err)
	}
	var doms []ssm.Domain
	for j, mode := range km.Stats().Modes {
		if len(mode) > 0 {
			doms = append(doms, ssm.Domain{Name: "d" + strconv.Itoa(j), Keywords: mode})
		}
	}
	return doms, nil
}
