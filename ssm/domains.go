package ssm

import (
	"fmt"
	"strconv"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
)

// DomainsFrom derives k domains from a sample of pages, for a repository
// whose domains nobody has listed (the paper's five are chosen by hand):
// cluster.KModes clusters the sample by each page's top DefaultN keywords
// (Cao's deterministic initialisation, cosine similarity), and domain j's
// vocabulary is cluster j's mode, the words keywords most frequent among its
// pages. Domains are named "d0", "d1", ... in cluster order; a cluster whose
// mode is empty is dropped. Errors are KModes's (too few pages or distinct
// keyword sets for k, a page without keywords) or ErrInvalidOption for k or
// words below 1.
func DomainsFrom(sample []*neardup.Document, k, words int) ([]Domain, error) {
	if k < 1 || words < 1 {
		return nil, fmt.Errorf("ssm: DomainsFrom: k = %d, words = %d, want both ≥ 1: %w", k, words, neardup.ErrInvalidOption)
	}
	km, err := cluster.New(cluster.Options{K: k, Keywords: DefaultN, ModeKeywords: words})
	if err != nil {
		return nil, fmt.Errorf("ssm: DomainsFrom: %w", err)
	}
	if err := km.Fit(sample); err != nil {
		return nil, fmt.Errorf("ssm: DomainsFrom: %w", err)
	}
	var doms []Domain
	for j := range km.K() {
		if mode := km.Mode(j); len(mode) > 0 {
			doms = append(doms, Domain{Name: "d" + strconv.Itoa(j), Keywords: mode})
		}
	}
	return doms, nil
}
