package minhash_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// The recommended detector needs no tuning: it learns each site's template
// as pages arrive and compares what is left.
func ExampleDetector() {
	det, err := minhash.New(minhash.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var pipe preprocess.Pipeline
	story := `<p>Glaciers store snow that falls on their high plateau year after year, and the snow is buried and slowly compressed into ice.</p>
<p>Tiny bubbles of air trapped between the grains preserve samples of the ancient atmosphere for hundreds of thousands of years.</p>
<p>Scientists drill long cores and measure the oxygen isotopes of each layer to estimate the temperature when the snow fell.</p>`
	for _, p := range []struct{ url, html string }{
		{"https://news.example/glaciers", "<nav>Home | World | Science</nav>" + story + "<footer>Fetched Monday</footer>"},
		{"https://mirror.example/ice", "<div>Start | Archive | About us</div>" + story + "<p>Sponsored: the best winter boots of the year.</p>"},
	} {
		d, err := neardup.NewDocument(&pipe, p.url, p.url, "", []byte(p.html))
		if err != nil {
			fmt.Println(err)
			return
		}
		matches, added, _ := det.MatchOrAdd(context.Background(), d)
		if added {
			fmt.Println("kept", p.url)
		} else {
			fmt.Printf("drop %s: near-duplicate of %s\n", p.url, matches[0].ID)
		}
	}
	// Output:
	// kept https://news.example/glaciers
	// drop https://mirror.example/ice: near-duplicate of https://news.example/glaciers
}

// Records that are not web pages — product titles here — are sketched as
// sets of words and compared by their estimated Jaccard similarity.
func ExampleJaccard() {
	words := func(s string) []string { return strings.Fields(strings.ToLower(s)) }
	a := minhash.SketchOf(words("Acme cordless drill 18V with two batteries and charger"), 64, 1)
	b := minhash.SketchOf(words("Acme 18V cordless drill with charger and two batteries"), 64, 1)
	c := minhash.SketchOf(words("Garden hose 25 m with spray nozzle"), 64, 1)
	fmt.Printf("%.2f %.2f\n", minhash.Jaccard(a, b, 64), minhash.Jaccard(a, c, 64))
	// Output: 1.00 0.07
}
