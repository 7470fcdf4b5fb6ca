package minhash_test

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup/minhash"
)

// An LSH finds the records within a Jaccard threshold of a query: a pair at
// the threshold with probability 0.99 or more, more similar pairs almost
// surely, a record at half the threshold with probability 0.001 or less.
// On titles and log lines with planted pairs (BenchmarkRecords,
// docs/BENCHMARKS.md) it finds 99.9 % or more of the pairs of word sets at
// Jaccard ≥ 0.5, 0.7 and 0.9.
func ExampleLSH() {
	titles := []string{
		"acme cordless drill 18v with two batteries and charger",
		"acme 18v cordless drill with charger and two batteries",
		"acme cordless drill 18v with one battery", // Jaccard 5/11 = 0.45 with the first
		"garden hose 30m with spray nozzle",
	}
	lsh, err := minhash.NewLSH(minhash.LSHOptions{Threshold: 0.5})
	if err != nil {
		panic(err)
	}
	sigs := make([]minhash.Signature, len(titles))
	for i, t := range titles {
		sigs[i] = minhash.SignatureOf(strings.Fields(t), lsh.Options().K, 1)
		if i > 0 {
			_ = lsh.Insert(uint32(i), sigs[i]) // the caller's uint32 ID
		}
	}
	o := lsh.Options()
	fmt.Printf("%d bands of %d rows, %d to agree: a pair at Jaccard 0.5 is found with probability %.3f, at 0.25 %.4f\n",
		o.Bands, o.Rows, o.Collisions, lsh.Probability(0.5), lsh.Probability(0.25))
	for _, id := range lsh.Query(sigs[0], nil) {
		fmt.Printf("candidate %d: Jaccard ≈ %.2f\n", id, minhash.SignatureJaccard(sigs[0], sigs[id]))
	}
	// Output:
	// 124 bands of 3 rows, 8 to agree: a pair at Jaccard 0.5 is found with probability 0.990, at 0.25 0.0008
	// candidate 1: Jaccard ≈ 1.00
	// candidate 2: Jaccard ≈ 0.45
}
