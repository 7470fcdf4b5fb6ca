package cluster

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/neardup/neardup"
)

// DefaultK is the number of clusters k when KModesOptions.K is zero: 16.
// The papers do not print the k behind their figures; docs/cluster.md has
// how it was chosen. A larger k compares fewer pages for more empty cluster
// detectors at each fit, so large repositories can take a larger one.
const DefaultK = 16

// DefaultKeywords is f, the number of top keywords that represent a document
// (its representatives R_i), when KModesOptions.Keywords is zero: 4. The
// paper's worked example shows 10 (Tables 1 and 4), which loses recall: a
// near-duplicate's tenth keyword is less often its original's
// (docs/cluster.md).
const DefaultKeywords = 4

// DefaultModeKeywords is the size of a mode when KModesOptions.ModeKeywords
// is zero and the Similarity is Cosine: 200 keywords, the most frequent among
// the cluster's documents. Modes of f keywords, like a document's (the
// paper's), describe a cluster of hundreds of pages by its few commonest
// words; larger modes keep more near-duplicates with their originals and
// give clusters of more even sizes (docs/cluster.md).
const DefaultModeKeywords = 200

// DefaultMaxIter is the iteration cap when KModesOptions.MaxIter is zero: 100, the
// max_iter of nicodv/kmodes; fits of real pages converge in well under 20
// passes.
const DefaultMaxIter = 100

// DefaultNInit is the number of Huang initialisations when KModesOptions.NInit is
// zero and KModesOptions.Init is Huang: 10, the n_init of nicodv/kmodes.
const DefaultNInit = 10

// DefaultProbes is p, the number of clusters a new page is compared within,
// when KModesOptions.Probes is zero: 1, the paper's "the cluster which has the
// most similarity".
const DefaultProbes = 1

// Similarity selects how a document is compared with a cluster's mode.
type Similarity int

const (
	// Cosine is s = d·R / (√(d·d) √(R·R)) over keyword presence vectors
	// (Nandhu et al. §4.1): |A ∩ M| / √(|A|·|M|) for keyword sets A and M.
	// Its dissimilarity, the unit of the cost, is 1 − s. The default.
	Cosine Similarity = iota
	// Matching is the simple matching dissimilarity of Huang (1998) over
	// keyword presence attributes: the number of keywords in one set and
	// not the other, |A ∖ M| + |M ∖ A|. Lower is more similar.
	Matching
)

// String returns "cosine" or "matching".
func (s Similarity) String() string {
	switch s {
	case Cosine:
		return "cosine"
	case Matching:
		return "matching"
	}
	return fmt.Sprintf("Similarity(%d)", int(s))
}

// Init selects how the k initial modes are chosen.
type Init int

const (
	// Cao is the density-based initialisation of Cao, Liang and Bai (2009):
	// deterministic, one run, O(n·f·k) with the bitset modes. The default.
	Cao Init = iota
	// Huang is the frequency-based random initialisation of Huang (1998)
	// as nicodv/kmodes implements it, run NInit times from Seed (in
	// parallel); the fit of lowest cost wins.
	Huang
)

// String returns "cao" or "huang".
func (in Init) String() string {
	switch in {
	case Cao:
		return "cao"
	case Huang:
		return "huang"
	}
	return fmt.Sprintf("Init(%d)", int(in))
}

// KModesOptions configures KModes. The zero value gives the defaults.
type KModesOptions struct {
	// K is the number of clusters k, at least 1. Zero means DefaultK.
	K int
	// Keywords is f: a document is represented by its top f keywords
	// (Page.Top(f): its most frequent stems, its representatives R_i). At
	// least 1; zero means DefaultKeywords.
	Keywords int
	// ModeKeywords is the number of keywords a mode keeps: the ones most
	// frequent among its cluster's documents. Zero means
	// DefaultModeKeywords with Cosine, and Keywords with Matching (whose
	// count of keywords in one set and not the other favours small modes:
	// with modes larger than documents it sends pages to the clusters with
	// the fewest keywords). Setting it to Keywords gives the paper's modes,
	// as large as a document's representatives.
	ModeKeywords int
	// Similarity is Cosine (the zero value) or Matching.
	Similarity Similarity
	// Init is Cao (the zero value) or Huang.
	Init Init
	// NInit is the number of Huang initialisations, each fitted to the end;
	// the fit of lowest cost wins. Zero means DefaultNInit for Huang and 1
	// for Cao; Cao is deterministic, so NInit above 1 is an error with it.
	NInit int
	// Seed seeds Huang's draws (run r draws from PCG(Seed, r)): the same
	// Seed, options and documents give the same clusters. Cao ignores it.
	Seed uint64
	// MaxIter caps the assignment passes of a fit. Zero means
	// DefaultMaxIter.
	MaxIter int
	// Probes is p: Partition returns a document's p most similar clusters
	// (multi-probe), so that a near-duplicate whose keywords put it in
	// another cluster than its original is still found, at p times the
	// comparisons. At least 1, at most K; zero means DefaultProbes.
	Probes int
	// Workers bounds the Huang runs fitted at once. Zero means
	// runtime.GOMAXPROCS(0). The result does not depend on it.
	Workers int
}

// resolve fills in defaults and validates o.
func (o KModesOptions) resolve() (KModesOptions, error) {
	bad := func(format string, args ...any) (KModesOptions, error) {
		return o, fmt.Errorf("cluster: KModesOptions."+format+": %w", append(args, neardup.ErrInvalidOption)...)
	}
	switch {
	case o.K == 0:
		o.K = DefaultK
	case o.K < 0:
		return bad("K %d is negative (want k ≥ 1 clusters)", o.K)
	}
	switch {
	case o.Keywords == 0:
		o.Keywords = DefaultKeywords
	case o.Keywords < 0:
		return bad("Keywords %d is negative (want f ≥ 1 keywords)", o.Keywords)
	}
	switch {
	case o.ModeKeywords == 0 && o.Similarity == Matching:
		o.ModeKeywords = o.Keywords
	case o.ModeKeywords == 0:
		o.ModeKeywords = DefaultModeKeywords
	case o.ModeKeywords < 0:
		return bad("ModeKeywords %d is negative", o.ModeKeywords)
	}
	if o.Similarity != Cosine && o.Similarity != Matching {
		return bad("Similarity %v unknown", o.Similarity)
	}
	switch o.Init {
	case Cao:
		if o.NInit > 1 {
			return bad("NInit %d with Cao, which is deterministic (want 0 or 1)", o.NInit)
		}
		if o.NInit < 0 {
			return bad("NInit %d is negative", o.NInit)
		}
		o.NInit = 1
	case Huang:
		switch {
		case o.NInit == 0:
			o.NInit = DefaultNInit
		case o.NInit < 0:
			return bad("NInit %d is negative", o.NInit)
		}
	default:
		return bad("Init %v unknown", o.Init)
	}
	switch {
	case o.MaxIter == 0:
		o.MaxIter = DefaultMaxIter
	case o.MaxIter < 0:
		return bad("MaxIter %d is negative", o.MaxIter)
	}
	switch {
	case o.Probes == 0:
		o.Probes = DefaultProbes
	case o.Probes < 0 || o.Probes > o.K:
		return bad("Probes %d not in 1..K (K = %d)", o.Probes, o.K)
	}
	switch {
	case o.Workers == 0:
		o.Workers = runtime.GOMAXPROCS(0)
	case o.Workers < 0:
		return bad("Workers %d is negative", o.Workers)
	}
	return o, nil
}

func (o KModesOptions) fitConfig(k int) fitConfig {
	return fitConfig{k: k, m: o.ModeKeywords, maxIter: o.MaxIter, sim: o.Similarity, init: o.Init, nInit: o.NInit, seed: o.Seed, workers: o.Workers}
}

// Errors of this package. Test them with errors.Is.
var (
	// ErrNotFitted reports a Partition or Update of a KModes that has not
	// been fitted.
	ErrNotFitted = errors.New("cluster: KModes not fitted")
	// ErrTooFew reports a fit of k clusters on fewer than k documents, or on
	// fewer than k distinct keyword sets (k identical documents cannot make
	// k clusters). It wraps neardup.ErrInvalidOption.
	ErrTooFew = fmt.Errorf("cluster: fewer distinct documents than clusters: %w", neardup.ErrInvalidOption)
)
