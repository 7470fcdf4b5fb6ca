package cluster

// Stats describes a clustering: a KModes's fit (KModes.Stats), or a
// Detector's clusters (Detector.Stats). Labels and Modes are a KModes's;
// NextFit, Retained and RefitErr a Detector's.
type Stats struct {
	// Documents is the number of documents the clusters hold: those fitted
	// and updated (KModes), or the kept pages (Detector).
	Documents int
	// Fits is the number of fits so far: a Detector's automatic fits and
	// Refits; 1 for a fitted KModes (it holds its latest fit), 0 before.
	Fits int
	// Sizes is the number of documents in each cluster of each generation,
	// oldest first: one generation for a fitted KModes (none before), one
	// of one cluster for a Detector before its first fit.
	Sizes [][]int
	// Labels is the cluster of each document given to KModes.Fit, in that
	// order: its home under the fit's final modes.
	Labels []int
	// Modes is each cluster's mode of a KModes, its representatives: up to
	// ModeKeywords keywords, most frequent among the cluster's documents
	// first (ties by first appearance in the fit).
	Modes [][]string
	// Cost, Iterations and Converged report the fit (a Detector's latest
	// generation's): Cost is the sum over the fitted documents of their
	// dissimilarity to their cluster's mode (1 − cosine, or the simple
	// matching count; lower is tighter), Iterations the assignment passes,
	// and Converged whether the fit stopped because no document moved
	// rather than at MaxIter (a converged fit's modes are its clusters'
	// most frequent keywords, and no cluster is empty).
	Cost       float64
	Iterations int
	Converged  bool
	// NextFit is the number of kept pages at which a Detector's next
	// automatic fit runs (0: none).
	NextFit int
	// Retained is the number of pages a Detector holds to move them at its
	// first fit.
	Retained int
	// RefitErr is the error of a Detector's last automatic refit, nil when
	// it succeeded (the Detector then keeps its clusters until the next
	// one).
	RefitErr error
}
