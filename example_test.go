package neardup_test

import (
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// The seed 000 pipeline: preprocess each fetched page once, then a cascade of
// the sentence-count filter and SimHash decides keep or drop, atomically.
func Example() {
	article := `<p>Glaciers store snow that falls on their high plateau year after year.
The snow is buried and slowly compressed into ice, trapping bubbles of ancient air.
Scientists drill long cores and measure the oxygen isotopes of each layer.
The ratio of heavy to light oxygen tells the temperature when the snow fell.
Deeper layers thin under the weight above them and are dated with flow models.</p>`
	pages := []struct{ url, html string }{
		{"https://news.example/glaciers", `<html><body><nav>Home | World | Science</nav>` + article + `<footer>Fetched Monday</footer></body></html>`},
		{"https://mirror.example/glaciers", `<html><body><div class="menu">Start | Archive</div>` + article + `<footer>Fetched Tuesday</footer></body></html>`},
		{"https://news.example/bees", `<html><body><nav>Home | World | Science</nav><p>Honey bees tell each other where flowers are by dancing.
The angle of the waggle run points toward the food relative to the sun.
Its duration encodes the distance, and the colony follows the best dancers.</p></body></html>`},
	}

	var pipe preprocess.Pipeline // the zero value is ready to use
	bySentences, _ := sentence.New(sentence.Options{})
	// Pages this short move more bits per changed word than the long pages
	// simhash.DefaultMaxDistance was tuned on, so allow 12 bits here.
	byFingerprint, _ := simhash.New(simhash.Options{MaxDistance: 12})
	cascade, err := neardup.NewCascade(bySentences, byFingerprint)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pages {
		doc, err := neardup.NewDocument(&pipe, p.url, p.url, []byte(p.html))
		if err != nil {
			fmt.Println(err)
			continue
		}
		matches, added, err := cascade.MatchOrAdd(doc)
		switch {
		case err != nil:
			fmt.Println(err)
		case added:
			fmt.Println("kept", p.url)
		default:
			fmt.Printf("drop %s: near-duplicate of %s (%v bits)\n", p.url, matches[0].ID, matches[0].Score)
		}
	}
	// Output:
	// kept https://news.example/glaciers
	// drop https://mirror.example/glaciers: near-duplicate of https://news.example/glaciers (10 bits)
	// kept https://news.example/bees
}
