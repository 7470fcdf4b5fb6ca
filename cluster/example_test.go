package cluster_test

import (
	"context"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// Pages about two topics fall into two clusters; a new page goes to the
// cluster whose mode (its most frequent keywords) it shares most with.
func ExampleKModes() {
	texts := []string{
		"Glaciers melt slowly. Glacier ice traps air. Melting ice records climate.",
		"Ice sheets and glaciers melt. Glacier melt raises the sea. Ice is old.",
		"Bees dance to find flowers. Bees carry pollen to the hive. Flowers feed the hive.",
		"A hive of bees makes honey. Bees visit flowers. The hive swarms in spring.",
	}
	var pipe preprocess.Pipeline
	var docs []*neardup.Document
	for i, text := range texts {
		d, err := neardup.NewDocument(&pipe, fmt.Sprint("page", i), "", "", []byte(text))
		if err != nil {
			fmt.Println(err)
			return
		}
		docs = append(docs, d)
	}
	km, err := cluster.NewKModes(cluster.KModesOptions{K: 2, Keywords: 3, ModeKeywords: 3}) // small modes, to print
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := km.Fit(docs); err != nil {
		fmt.Println(err)
		return
	}
	st := km.Stats()
	fmt.Println("labels:", st.Labels, "converged:", st.Converged)
	for j, mode := range st.Modes {
		fmt.Printf("cluster %d mode: %v\n", j, mode)
	}
	news, _ := neardup.NewDocument(&pipe, "new", "", "", []byte("Old glacier ice holds bubbles of ancient air."))
	parts, _ := km.Partition(news)
	fmt.Println("new page goes to cluster", parts[0])
	// Output:
	// labels: [0 0 1 1] converged: true
	// cluster 0 mode: [glacier ice melt]
	// cluster 1 mode: [bee flower hive]
	// new page goes to cluster 0
}

// The clustered cascade of Kumar and Govindarajulu: each cluster keeps its
// own sentence-count → SimHash cascade (Options.NewDetector), and a page is
// compared only within its most similar cluster.
func ExampleDetector() {
	var pipe preprocess.Pipeline
	page := func(id, text string) *neardup.Document {
		d, err := neardup.NewDocument(&pipe, id, "", "", []byte(text))
		if err != nil {
			panic(err)
		}
		return d
	}
	cascade := func(_, expected int) (neardup.Detector, error) {
		bySentences, err := sentence.New(sentence.Options{})
		if err != nil {
			return nil, err
		}
		byPrint, err := simhash.New(simhash.Options{ExpectedSize: max(expected, 1024)})
		if err != nil {
			return nil, err
		}
		return neardup.NewCascade(bySentences, byPrint)
	}
	det, err := cluster.New(cluster.Options{
		NewDetector: cascade,
		KModes:      cluster.KModesOptions{K: 2, Keywords: 3},
		FitAt:       4, // cluster the repository once it keeps four pages
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range []*neardup.Document{
		page("glacier", "Glaciers flow slowly down the valley. Glacier ice traps air in bubbles. Ice cores record the climate of the past."),
		page("melt", "Ice sheets and glaciers melt in summer. Glacier melt raises the level of the sea. Some ice is very old."),
		page("bees", "Bees dance to tell the hive where flowers are. Bees carry pollen home. Flowers feed the hive all year."),
		page("honey", "A hive of bees makes honey from nectar. Bees visit many flowers each day. The hive swarms in spring."),
		page("glacier-copy", "Glaciers flow slowly down the valley. Glacier ice traps air in bubbles. Ice cores record the climate of our past."),
	} {
		ms, added, err := det.MatchOrAdd(context.Background(), d)
		switch {
		case err != nil:
			fmt.Println(err)
		case added:
			fmt.Println("kept", d.ID)
		default:
			fmt.Printf("drop %s: near-duplicate of %s\n", d.ID, ms[0].ID)
		}
	}
	st := det.Stats()
	fmt.Println("fits:", st.Fits, "pages per cluster:", st.Sizes[0])
	// Output:
	// kept glacier
	// kept melt
	// kept bees
	// kept honey
	// drop glacier-copy: near-duplicate of glacier
	// fits: 1 pages per cluster: [2 2]
}

// byHost sends a page to its host's part: a fixed partition, so a page is
// compared only with the pages of its own site.
type byHost map[string]int

func (p byHost) Partition(d *neardup.Document) ([]int, error) { return []int{p[d.Host]}, nil }

// A Detector with a Partitioner keeps one detector per fixed part (here a
// site) and compares a page only within its part: the copy of a page on
// another site is not compared with it.
func ExampleOptions_partitioner() {
	var pipe preprocess.Pipeline
	page := func(id, url, text string) *neardup.Document {
		d, err := neardup.NewDocument(&pipe, id, url, "", []byte(text))
		if err != nil {
			panic(err)
		}
		return d
	}
	det, err := cluster.New(cluster.Options{
		Partitioner: byHost{"a.example": 0, "b.example": 1},
		NewDetector: func(part, _ int) (neardup.Detector, error) { return simhash.New(simhash.Options{}) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	text := "Glaciers flow slowly down the valley. Glacier ice traps air in bubbles. Ice cores record the climate of the past."
	for _, d := range []*neardup.Document{
		page("a/1", "https://a.example/1", text),
		page("a/2", "https://a.example/2", text+" Updated."),
		page("b/1", "https://b.example/1", text),
	} {
		ms, added, err := det.MatchOrAdd(context.Background(), d)
		switch {
		case err != nil:
			fmt.Println(err)
		case added:
			fmt.Println("kept", d.ID)
		default:
			fmt.Printf("drop %s: near-duplicate of %s\n", d.ID, ms[0].ID)
		}
	}
	fmt.Println("pages per part:", det.Stats().Sizes[0])
	// Output:
	// kept a/1
	// drop a/2: near-duplicate of a/1
	// kept b/1
	// pages per part: [1 1]
}
