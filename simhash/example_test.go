package simhash_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/simhash"
)

// The §3.3 example of Kumar and Govindarajulu: b_f = 2 ≤ T_B = 3, a near-duplicate.
func ExampleDistance() {
	a, _ := simhash.ParseBinary("110010")
	b, _ := simhash.ParseBinary("101010")
	fmt.Println(simhash.Distance(a, b))
	// Output: 2
}

// Tables 3 and 5 of Kumar and Govindarajulu.
func ExampleParseBinary() {
	wpNew, _ := simhash.ParseBinary("0101111000110101011010100010101101010001000011010010010101000100")
	wp2, _ := simhash.ParseBinary("0101111000110101011010100010101101010001000011010010010101000011")
	wp3, _ := simhash.ParseBinary("0100010001011010010011000011110000011101000101000010100101000011")
	fmt.Println(simhash.Distance(wpNew, wp2), simhash.Distance(wpNew, wp3))
	// Output: 3 27
}

// FromText gives a text the fingerprint a Detector gives it: stop words
// dropped, words stemmed, each weighted by its count.
func ExampleFromText() {
	a, _ := simhash.FromText("The meetings closed early; the meeting affects everyone.")
	b, _ := simhash.FromText("The meeting closes early: the meetings affected everyone!")
	fmt.Println(a == b)
	_, err := simhash.FromText("It is what it is.") // stop words only
	fmt.Println(errors.Is(err, neardup.ErrNoFeatures))
	// Output:
	// true
	// true
}

func ExampleDetector() {
	page := func(id string, words ...string) *neardup.Document {
		terms := make([]preprocess.Term, len(words))
		for i, w := range words {
			terms[i] = preprocess.Term{Text: w, Count: 1}
		}
		return &neardup.Document{ID: id, Page: &preprocess.Page{Terms: terms}}
	}
	det, err := simhash.New(simhash.Options{MaxDistance: 3}) // T_B = 3, as in §3.3
	if err != nil {
		panic(err)
	}
	words := []string{"adapt", "learn", "base", "architectur", "knowledg", "reusabl",
		"intellig", "system", "present", "paper", "web", "crawler", "near", "duplic"}
	if err := det.Add(context.Background(), page("original", words...)); err != nil {
		panic(err)
	}
	ms, _ := det.Match(context.Background(), page("same words, new order", append(words[7:], words[:7]...)...))
	fmt.Println(ms)
	ms, _ = det.Match(context.Background(), page("unrelated", "queri", "expans", "method", "summer", "problem"))
	fmt.Println(ms)
	// Output:
	// [original (0 simhash-bits)]
	// []
}
