package neardup_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/simhash"
)

// A crawler with the recommended detector: each fetched page is kept unless
// it nearly duplicates a kept one. A page fetched again under its own URL is
// first verified against what is kept under that URL: unchanged (or nearly),
// it is known and skipped; changed, Replace keeps the new version in place
// of the old (or drops it when it now copies another kept page).
func Example() {
	const article = `<p>Snow that falls on a glacier's high plateau is buried year after year and slowly compressed into ice.
Tiny bubbles of air trapped between the grains are sealed off as the firn turns to solid ice, preserving samples of the ancient atmosphere.</p>
<p>Scientists drill cores several kilometres long from Antarctica and Greenland.
By measuring the ratio of heavy to light oxygen isotopes in each layer they estimate the temperature at the time the snow fell.</p>
<p>Annual layers can be counted near the surface much like tree rings, using seasonal changes in dust and chemistry.
Deeper down the layers thin out under the weight above them, and researchers date the ice with models of glacier flow.</p>`
	const bees = `<p>Honey bees tell each other where flowers are by dancing.
The angle of the waggle run points toward the food relative to the sun.
Its duration encodes the distance, and the colony follows the best dancers.</p>`
	const wasps = `<p>Paper wasps chew wood fibre into pulp and build their combs from it.
A queen founds the nest alone in spring, and her daughters take over the foraging by summer.
In autumn the colony raises new queens, which mate and spend the winter sheltered under bark.</p>`
	fetches := []struct{ url, html string }{
		{"https://news.example/glaciers", "<nav>Home | World | Science</nav>" + article + "<footer>Monday</footer>"},
		{"https://mirror.example/glaciers", `<div class="menu">Start | Archive</div>` + article + "<footer>Tuesday</footer>"},
		{"https://news.example/bees", "<nav>Home | World | Science</nav>" + bees},
		{"https://news.example/glaciers", "<nav>Home | World | Science</nav>" + article + "<footer>Monday</footer>"},
		{"https://news.example/bees", "<nav>Home | World | Science</nav>" + wasps}, // the URL's page changed
	}

	var pipe preprocess.Pipeline // the zero value is ready to use
	det, err := minhash.New(minhash.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range fetches {
		doc, err := neardup.NewDocument(&pipe, f.url, f.url, "text/html; charset=utf-8", []byte(f.html))
		if err != nil {
			fmt.Println(err)
			continue
		}
		// the known page: kept under its own URL and (nearly) unchanged
		if ms, err := det.Verify(context.Background(), doc, []neardup.Match{{ID: f.url}}); err == nil && len(ms) == 1 {
			fmt.Println("known", f.url)
			continue
		}
		matches, kept, err := det.Replace(context.Background(), doc)
		switch {
		case err != nil:
			fmt.Println(err)
		case kept:
			fmt.Println("kept", f.url)
		default:
			fmt.Printf("drop %s: near-duplicate of %s\n", f.url, matches[0].ID)
		}
	}
	// Output:
	// kept https://news.example/glaciers
	// drop https://mirror.example/glaciers: near-duplicate of https://news.example/glaciers
	// kept https://news.example/bees
	// known https://news.example/glaciers
	// kept https://news.example/bees
}

// The cascade of Kumar and Govindarajulu: the sentence-count filter finds
// candidates, SimHash verifies them, and MatchOrAdd keeps a page or drops
// it in one step.
func ExampleCascade() {
	article := `<p>Snow that falls on a glacier's high plateau is buried year after year and slowly compressed into ice.
Tiny bubbles of air trapped between the grains are sealed off as the firn turns to solid ice, preserving samples of the ancient atmosphere.</p>
<p>Scientists drill cores several kilometres long from Antarctica and Greenland.
By measuring the ratio of heavy to light oxygen isotopes in each layer they estimate the temperature at the time the snow fell.</p>
<p>Annual layers can be counted near the surface much like tree rings, using seasonal changes in dust and chemistry.
Deeper down the layers thin out under the weight above them, and researchers date the ice with models of glacier flow.</p>
<p>The records show that carbon dioxide and temperature rose and fell together through the ice age cycles.
Layers of sulphate mark large volcanic eruptions, and traces of lead reveal the growth of Roman metal working.</p>`
	pages := []struct{ url, html string }{
		{"https://news.example/glaciers", `<html><body><nav>Home | World | Science</nav>` + article + `<footer>Fetched Monday</footer></body></html>`},
		{"https://mirror.example/glaciers", `<html><body><div class="menu">Start | Archive</div>` + article + `<footer>Fetched Tuesday</footer></body></html>`},
		{"https://news.example/bees", `<html><body><nav>Home | World | Science</nav><p>Honey bees tell each other where flowers are by dancing.
The angle of the waggle run points toward the food relative to the sun.
Its duration encodes the distance, and the colony follows the best dancers.</p></body></html>`},
	}

	var pipe preprocess.Pipeline                       // the zero value is ready to use
	bySentences, _ := sentence.New(sentence.Options{}) // defaults: T_s = 24, relative 0.6
	byFingerprint, _ := simhash.New(simhash.Options{}) // default: T_B = simhash.DefaultMaxDistance (8)
	cascade, err := neardup.NewCascade(bySentences, byFingerprint)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pages {
		doc, err := neardup.NewDocument(&pipe, p.url, p.url, "", []byte(p.html))
		if err != nil {
			fmt.Println(err)
			continue
		}
		matches, added, err := cascade.MatchOrAdd(context.Background(), doc)
		switch {
		case err != nil:
			fmt.Println(err)
		case added:
			fmt.Println("kept", p.url)
		default:
			fmt.Printf("drop %s: near-duplicate of %s (%v %s)\n", p.url, matches[0].ID, matches[0].Score, matches[0].Measure)
		}
	}
	// Output:
	// kept https://news.example/glaciers
	// drop https://mirror.example/glaciers: near-duplicate of https://news.example/glaciers (4 simhash-bits)
	// kept https://news.example/bees
}

// A crawler keeps its repository across restarts: it saves the detector when
// it stops and loads it when it starts again. WithSettings records the
// preprocessing with the features, so a restart with other preprocessing
// cannot compare unlike features.
func ExampleSaveFile() {
	dir, _ := os.MkdirTemp("", "neardup-example")
	defer os.RemoveAll(dir)
	state := filepath.Join(dir, "crawl.snap")

	var pipe preprocess.Pipeline
	page, _ := neardup.NewDocument(&pipe, "https://a.example/", "", "", []byte(
		"Honey bees tell each other where flowers are by dancing. The angle of the waggle run points toward the food."))

	var first shingle.Detector // the zero value works with the defaults
	if err := neardup.LoadFile(state, neardup.WithSettings(&first, pipe.Settings())); errors.Is(err, fs.ErrNotExist) {
		fmt.Println("first run: nothing saved yet")
	}
	_, added, _ := first.MatchOrAdd(context.Background(), page)
	fmt.Println("kept:", added)
	if err := neardup.SaveFile(state, neardup.WithSettings(&first, pipe.Settings())); err != nil {
		fmt.Println(err)
	}

	var second shingle.Detector // after a restart
	if err := neardup.LoadFile(state, neardup.WithSettings(&second, pipe.Settings())); err != nil {
		fmt.Println(err)
	}
	mirror := &neardup.Document{ID: "https://mirror.example/", Page: page.Page} // the page under another URL
	matches, added, _ := second.MatchOrAdd(context.Background(), mirror)
	fmt.Println("kept:", added, "matches:", matches)

	unstemmed, _ := preprocess.New(preprocess.Options{NoStem: true})
	err := neardup.LoadFile(state, neardup.WithSettings(new(shingle.Detector), unstemmed.Settings()))
	fmt.Println("other preprocessing refused:", errors.Is(err, neardup.ErrSnapshotMismatch))
	// Output:
	// first run: nothing saved yet
	// kept: true
	// kept: false matches: [https://a.example/ (0 shingle-normalized)]
	// other preprocessing refused: true
}

// A Window deduplicates against the recent pages only: here the last two, so
// page3, a copy of page0, is kept again once page0 has left the window.
func ExampleWindow() {
	var pipe preprocess.Pipeline
	fp, _ := simhash.New(simhash.Options{})
	w, err := neardup.NewWindow(fp, neardup.WindowOptions{MaxDocuments: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, text := range []string{
		"Glaciers store ancient air in bubbles of ice, layer after layer, for many thousands of years.",
		"Sourdough starters hold wild yeasts and lactic acid bacteria living in flour and water.",
		"Chess clocks keep two faces side by side, and pressing a button stops one and starts the other.",
		"Glaciers store ancient air in bubbles of ice, layer after layer, for many thousands of years.",
	} {
		d, _ := neardup.NewDocument(&pipe, fmt.Sprint("page", i), "", "", []byte(text))
		_, added, _ := w.MatchOrAdd(context.Background(), d)
		fmt.Println(d.ID, "kept:", added)
	}
	// Output:
	// page0 kept: true
	// page1 kept: true
	// page2 kept: true
	// page3 kept: true
}
