package cluster

import (
	"fmt"
	"sync"

	"github.com/neardup/neardup"
)

// KModes clusters documents by their top keywords (k-modes over keyword
// presence; see the package documentation) and sends a new document to its
// most similar cluster. Fit it on a set of documents; then Partition places
// new documents, Update folds them into the modes as they arrive, and Stats
// reports the fit (labels, modes, sizes, cost).
//
// A KModes fitted on a sample, as a Detector's Options.Partitioner, splits
// a repository into fixed clusters: each cluster keeps its own detector (the sentence-count → SimHash cascade, say) and a new page is
// compared only within its Probes most similar clusters. For a repository
// that grows from empty, use a Detector, which fits as it grows.
//
// A KModes is safe for concurrent use: Partition and Stats run in parallel;
// Fit and Update exclusively (a Fit computes without the lock and installs
// its result at once). The zero KModes is ready to be fitted with the
// default KModesOptions.
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

// options returns the options in effect, defaults filled in.
func (km *KModes) options() KModesOptions {
	if km.set {
		return km.opts
	}
	o, _ := KModesOptions{}.resolve() // the defaults are valid
	return o
}

// Fit clusters docs, each represented by its top f keywords, into k clusters
// and installs the result; Stats then gives each document's cluster (Labels),
// in the order of docs. A nil document, a document without keywords (its error wraps
// neardup.ErrNoFeatures), fewer documents than k or fewer distinct keyword
// sets than k (ErrTooFew) is an error, and the KModes stays as it was.
func (km *KModes) Fit(docs []*neardup.Document) error {
	o := km.options()
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

// Partition returns the KModesOptions.Probes (p) clusters most similar to d,
// most similar first, ties to the lowest index: the first is d's home,
// where a Detector partitioned by the KModes keeps it, and for a fitted
// document its label (Stats.Labels). A document that shares no keyword with
// any mode has cluster 0 first. Errors: those of KeywordsOf, and
// ErrNotFitted.
func (km *KModes) Partition(d *neardup.Document) ([]int, error) {
	return km.nearest(d, km.options().Probes)
}

// nearest returns d's p most similar clusters, the first its home.
func (km *KModes) nearest(d *neardup.Document, p int) ([]int, error) {
	w, err := KeywordsOf(d, km.options().Keywords)
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

// Update sends d to its home (the first cluster Partition returns) and folds
// its keywords into that cluster's mode (online k-modes): the mode stays the
// ModeKeywords keywords most frequent among the cluster's documents, fitted
// and updated, at O(f·m) per update. It returns the cluster. Later
// Partitions see the new modes, so a document updated early may no longer
// have the home it went to.
func (km *KModes) Update(d *neardup.Document) (int, error) {
	w, err := KeywordsOf(d, km.options().Keywords)
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

// Stats reports the fit: Documents, Fits (1 once fitted), Sizes (one
// generation), Labels, Modes, Cost, Iterations and Converged; the zero Stats
// before a fit. It copies the labels and modes: O(n + k·m).
func (km *KModes) Stats() Stats {
	var st Stats
	km.read(func(f *fitted) {
		md := f.md
		st.Fits = 1
		sizes := make([]int, len(md.centres))
		st.Modes = make([][]string, len(md.centres))
		for j := range md.centres {
			sizes[j] = md.centres[j].members
			st.Documents += sizes[j]
			for _, id := range md.modeByRank(j) {
				st.Modes[j] = append(st.Modes[j], f.words.keys[id])
			}
		}
		st.Sizes = [][]int{sizes}
		st.Labels = make([]int, len(md.labels))
		for i, j := range md.labels {
			st.Labels[i] = int(j)
		}
		st.Cost, st.Iterations, st.Converged = md.cost, md.iters, md.converged
	})
	return st
}

var _ interface {
	Partition(*neardup.Document) ([]int, error)
} = (*KModes)(nil)
