//go:build race

package shingle

// raceEnabled is true under the race detector, where the corpus
// measurements run on fewer pages: they measure recall, not concurrency.
const raceEnabled = true
