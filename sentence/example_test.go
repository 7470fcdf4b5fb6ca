package sentence_test

import (
	"context"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// The worked example of Kumar and Govindarajulu (Tables 2 and 4): the new page has 4
// sentences and T_s = 1, so Wp3 (4) and Wp2 (5) are candidates and Wp1 (6) is
// not.
func Example() {
	page := func(id string, sentences ...string) *neardup.Document {
		return &neardup.Document{ID: id, Page: &preprocess.Page{Sentences: sentences}}
	}
	det, err := sentence.New(sentence.Options{Threshold: 1, Relative: sentence.Absolute})
	if err != nil {
		panic(err)
	}
	for _, d := range []*neardup.Document{
		page("Wp1", "s1", "s2", "s3", "s4", "s5", "s6"),
		page("Wp2", "s1", "s2", "s3", "s4", "s5"),
		page("Wp3", "s1", "s2", "s3", "s4"),
	} {
		if err := det.Add(context.Background(), d); err != nil {
			panic(err)
		}
	}
	matches, err := det.Match(context.Background(), page("Wp_new", "s1", "s2", "s3", "s4"))
	if err != nil {
		panic(err)
	}
	for _, m := range matches {
		fmt.Printf("%s |ΔS| = %v\n", m.ID, m.Score)
	}
	// Output:
	// Wp3 |ΔS| = 0
	// Wp2 |ΔS| = 1
}

// The cascade of Kumar and Govindarajulu, §3: the sentence count picks candidates cheaply,
// then SimHash keeps those within T_B bits.
func ExampleDetector_cascade() {
	page := func(id string, sentences int, words ...string) *neardup.Document {
		terms := make([]preprocess.Term, len(words))
		for i, w := range words {
			terms[i] = preprocess.Term{Text: w, Count: 1}
		}
		return &neardup.Document{ID: id, Page: &preprocess.Page{
			Sentences: make([]string, sentences), Terms: terms,
		}}
	}
	byCount, _ := sentence.New(sentence.Options{Threshold: 1, Relative: sentence.Absolute}) // T_s = 1, as in the paper's example
	byPrint, _ := simhash.New(simhash.Options{MaxDistance: 3})                              // T_B = 3
	c, err := neardup.NewCascade(byCount, byPrint)
	if err != nil {
		panic(err)
	}
	words := []string{"power", "paper", "learn", "system", "adapt", "educ", "knowledg", "crossroad", "emerg", "field"}
	_ = c.Add(context.Background(), page("Wp2", 5, words...))
	_ = c.Add(context.Background(), page("Wp3", 4, "learn", "track", "user", "content", "real", "time", "fine", "grain", "environ", "order"))
	_ = c.Add(context.Background(), page("long copy", 40, words...)) // same words, far more sentences: filtered out by count

	ms, _ := c.Match(context.Background(), page("copy", 4, words...))
	fmt.Println(ms)
	// Output: [Wp2 (0 simhash-bits)]
}
