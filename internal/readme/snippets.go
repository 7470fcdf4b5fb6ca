package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// snippets holds the README's shorter Go snippets in order, so that they
// compile together (it is not run: it would write state.snap).
func snippets(pipe *preprocess.Pipeline) error {
	words := strings.Fields("acme cordless drill 18v with two batteries and charger")
	a := minhash.SketchOf(words, 64, 1) // 64 hashes of single words (1-token shingles)
	b := minhash.SketchOf(strings.Fields("acme 18v cordless drill with charger and two batteries"), 64, 1)
	fmt.Println(minhash.Jaccard(a, b, 64)) // 1: the same set of words

	lsh, _ := minhash.NewLSH(minhash.LSHOptions{Threshold: 0.7}) // 57 bands of 5 values, 4 to agree
	k := lsh.Options().K                                         // the signature length it chose: 285
	lsh.Insert(7, minhash.SignatureOf(words, k, 1))
	q := minhash.SignatureOf(strings.Fields("acme 18v cordless drill with charger and two batteries"), k, 1)
	fmt.Println(lsh.Query(q, nil))                     // [7]: within 0.7, almost surely
	byPrint, _ := simhash.New(simhash.Options{})       // T_B = 8 bits, the package's default (the paper's example: 3)
	bySentences, _ := sentence.New(sentence.Options{}) // T_s = 24, or 0.6 of the longer page
	cascade, _ := neardup.NewCascade(byPrint, bySentences)
	state := neardup.WithSettings(cascade, pipe.Settings()) // also record the preprocessing
	if err := neardup.LoadFile("state.snap", state); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err // damaged, or saved with other settings: ErrCorrupt, ErrSnapshotMismatch
	}
	// ... crawl ...
	return neardup.SaveFile("state.snap", state) // atomic; follows a symbolic link and keeps the file's mode
}

// The snippets are compiled with the program, never run.
var _ = snippets
