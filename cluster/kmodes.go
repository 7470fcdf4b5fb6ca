package cluster

import (
	"fmt"
	"sync"

	"github.com/neardup/neardup"
)

// KModes clusters documents by their top keywords (k-modes over keyword
// presence; see the package documentation) and sends a new document to its
// most similar cluster. Fit it on a set of documents; then Assign, Nearest
// and Partition place new documents, and Update folds them into the modes as
// they arrive.
//
// KModes implements neardup.Partitioner, so a fitted KModes splits a
// repository for neardup.NewPartitioned: each cluster keeps its own detector
// (the sentence-count → SimHash cascade, say) and a new page is compared only within its
// Probes most similar clusters. (Detector does the same and refits as the
// repository grows.)
//
// A KModes is safe for concurrent use: Assign, Nearest and Partition run in
// parallel; Fit and Update exclusively (a Fit computes without the
// lock and installs its result at once). The zero KModes is ready to be
// fitted with the default KModesOptions.
type KModes struct {
	opts KModesOptions // resolved, when set
	set  bool

	mu sync.RWMutex
	f  *fitted // nil until fitted
}

// fitted is what a fit produced: the vocabulary of keyword texts and the
// model over its dense ids.
type fitted struct {
	words vocab[string]
	md    *model
}

// NewKModes returns an unfitted KModes configured by opts. Options out of range
// return an error wrapping neardup.ErrInvalidOption.
func NewKModes(opts KModesOptions) (*KModes, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	return &KModes{opts: o, set: true}, nil
}

// Options returns the options in effect, defaults filled in.
func (km *KModes) Options() KModesOptions {
	if km.set {
		return km.opts
	}
	o, _ := KModesOptions{}.resolve() // the defaults are valid
	return o
}

// Fit clusters docs, each represented by its top f keywords, into k clusters
// and installs the result; Labels then gives each document's cluster, in the
// order of docs. A nil document, a document without keywords (its error wraps
// neardup.ErrNoFeatures), fewer documents than k or fewer distinct keyword
// sets than k (ErrTooFew) is an error, and the KModes stays as it was.
func (km *KModes) Fit(docs []*neardup.Document) error {
	o := km.Options()
	words := newVocab[string]()
	items := make([]item, len(docs))
	for i, d := range docs {
		w, err := KeywordsOf(d, o.Keywords)
		if err != nil {
			return fmt.Errorf("cluster: Fit: document %d: %w", i, err)
		}
		items[i] = words.internItem(w)
	}
	md, err := fitItems(items, words.len(), o, o.K)
	if err != nil {
		return err
	}
	km.install(&fitted{words: words, md: md})
	return nil
}

func (km *KModes) install(f *fitted) {
	km.mu.Lock()
	km.f = f
	km.mu.Unlock()
}

// fitItems checks that items can make k clusters and fits them.
func fitItems(items []item, nIDs int, o KModesOptions, k int) (*model, error) {
	if len(items) < k {
		return nil, fmt.Errorf("cluster: Fit: k = %d clusters but %d documents: %w", k, len(items), ErrTooFew)
	}
	fd := newFitData(items, nIDs)
	if d := fd.distinct(); d < k {
		return nil, fmt.Errorf("cluster: Fit: k = %d clusters but the %d documents have %d distinct keyword sets: %w", k, len(items), d, ErrTooFew)
	}
	return fit(fd, o.fitConfig(k)), nil
}

// model returns the fit, or ErrNotFitted. The caller holds km.mu.
func (km *KModes) model() (*fitted, error) {
	if km.f == nil {
		return nil, ErrNotFitted
	}
	return km.f, nil
}

// Assign returns the cluster most similar to d, ties to the lowest index.
// For a fitted document it is the document's label (Labels). A document
// that shares no keyword with any mode goes to cluster 0. Errors: those of
// Keywords, and ErrNotFitted.
func (km *KModes) Assign(d *neardup.Document) (int, error) {
	ps, err := km.Nearest(d, 1)
	if err != nil {
		return 0, err
	}
	return ps[0], nil
}

// Nearest returns d's p most similar clusters, most similar first, ties to
// the lowest index; p above k returns all k. p < 1 is an error wrapping
// neardup.ErrInvalidOption.
func (km *KModes) Nearest(d *neardup.Document, p int) ([]int, error) {
	if p < 1 {
		return nil, fmt.Errorf("cluster: Nearest: p = %d, want at least 1: %w", p, neardup.ErrInvalidOption)
	}
	w, err := KeywordsOf(d, km.Options().Keywords)
	if err != nil {
		return nil, err
	}
	km.mu.RLock()
	defer km.mu.RUnlock()
	f, err := km.model()
	if err != nil {
		return nil, err
	}
	return f.md.nearestP(f.words.lookupItem(w), p), nil
}

// Partition returns d's KModesOptions.Probes most similar clusters, most similar
// first (neardup.Partitioner): the first is d's home, where
// neardup.Partitioned keeps it.
func (km *KModes) Partition(d *neardup.Document) ([]int, error) {
	return km.Nearest(d, km.Options().Probes)
}

// Update assigns d as Assign does and folds its keywords into that
// cluster's mode (online k-modes): the mode stays the ModeKeywords keywords
// most frequent among the cluster's documents, fitted and updated, at O(f·m)
// per update. It returns the cluster. Later Assigns see the new modes, so a
// document updated early may no longer be assigned where it went.
func (km *KModes) Update(d *neardup.Document) (int, error) {
	w, err := KeywordsOf(d, km.Options().Keywords)
	if err != nil {
		return 0, err
	}
	km.mu.Lock()
	defer km.mu.Unlock()
	f, err := km.model()
	if err != nil {
		return 0, err
	}
	it := f.words.internItem(w)
	j := f.md.nearest(it)
	f.md.add(j, it.ids)
	return j, nil
}

// read calls fn with the model under the read lock, or returns zero when
// unfitted.
func (km *KModes) read(fn func(f *fitted)) {
	km.mu.RLock()
	defer km.mu.RUnlock()
	if km.f != nil {
		fn(km.f)
	}
}

// Fitted reports whether the KModes has been fitted.
func (km *KModes) Fitted() bool {
	ok := false
	km.read(func(*fitted) { ok = true })
	return ok
}

// K returns the number of clusters of the fit (0 before a fit).
func (km *KModes) K() int {
	k := 0
	km.read(func(f *fitted) { k = len(f.md.centres) })
	return k
}

// Labels returns the cluster of each fitted document, in the order
// given to Fit: its Assign under the fit's final modes.
func (km *KModes) Labels() []int {
	var out []int
	km.read(func(f *fitted) {
		out = make([]int, len(f.md.labels))
		for i, j := range f.md.labels {
			out[i] = int(j)
		}
	})
	return out
}

// Cost returns the k-modes cost of the fit: the sum over the fitted
// documents of their dissimilarity to their cluster's mode (1 − cosine, or
// the simple matching count). Lower is tighter.
func (km *KModes) Cost() float64 {
	c := 0.0
	km.read(func(f *fitted) { c = f.md.cost })
	return c
}

// Iterations returns the number of assignment passes the fit made.
func (km *KModes) Iterations() int {
	n := 0
	km.read(func(f *fitted) { n = f.md.iters })
	return n
}

// Converged reports whether the fit stopped because no document moved
// (rather than at MaxIter). A converged fit's modes are its clusters' most
// frequent keywords, and no cluster is empty.
func (km *KModes) Converged() bool {
	ok := false
	km.read(func(f *fitted) { ok = f.md.converged })
	return ok
}

// Sizes returns the number of documents in each cluster: fitted, plus
// updated.
func (km *KModes) Sizes() []int {
	var out []int
	km.read(func(f *fitted) {
		for _, c := range f.md.centres {
			out = append(out, c.members)
		}
	})
	return out
}

// Mode returns cluster j's mode (its representatives) for a KModes fitted on
// documents: up to ModeKeywords keywords, most frequent in the cluster first
// (ties by first appearance in the fit). It returns nil for j out of range.
func (km *KModes) Mode(j int) []string {
	var out []string
	km.read(func(f *fitted) {
		if j < 0 || j >= len(f.md.centres) {
			return
		}
		for _, id := range f.md.modeByRank(j) {
			out = append(out, f.words.keys[id])
		}
	})
	return out
}

var _ neardup.Partitioner = (*KModes)(nil)
