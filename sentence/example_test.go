package sentence_test

import (
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
)

// The worked example of seed 000 (Tables 2 and 4): the new page has 4
// sentences and T_s = 1, so Wp3 (4) and Wp2 (5) are candidates and Wp1 (6) is
// not.
func Example() {
	page := func(id string, sentences ...string) *neardup.Document {
		return &neardup.Document{ID: id, Page: &preprocess.Page{Sentences: sentences}}
	}
	det, err := sentence.New(sentence.Options{Threshold: 1})
	if err != nil {
		panic(err)
	}
	for _, d := range []*neardup.Document{
		page("Wp1", "s1", "s2", "s3", "s4", "s5", "s6"),
		page("Wp2", "s1", "s2", "s3", "s4", "s5"),
		page("Wp3", "s1", "s2", "s3", "s4"),
	} {
		if err := det.Add(d); err != nil {
			panic(err)
		}
	}
	matches, err := det.Match(page("Wp_new", "s1", "s2", "s3", "s4"))
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
