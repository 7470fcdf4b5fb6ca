package preprocess_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/neardup/neardup/preprocess"
)

func ExamplePipeline_TextTerms() {
	var p preprocess.Pipeline
	var terms []string
	err := p.TextTerms("Crawlers revisit pages daily. A crawler downloads pages.", func(term string, count int) {
		// term is valid only during the call: Sprintf copies it.
		terms = append(terms, fmt.Sprintf("%s:%d", term, count))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	slices.Sort(terms) // TextTerms passes them in no particular order
	fmt.Println(strings.Join(terms, " "))
	// Output:
	// crawler:2 daili:1 download:1 page:2 revisit:1
}
