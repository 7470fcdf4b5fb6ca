package shingle_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/shingle"
)

func ExampleShingles() {
	tokens := strings.Fields("New Delhi is the capital of India")
	for _, s := range shingle.Shingles(tokens, 3) {
		fmt.Printf("[%s] ", strings.Join(s, " "))
	}
	fmt.Println()
	// Output:
	// [New Delhi is] [Delhi is the] [is the capital] [the capital of] [capital of India]
}

// The worked example of Khan et al. (Tables 2–4, M = 3), built from pattern
// counts, in both forms. The paper prints 0.082 for D2,D3 in its table's form:
// it adds group rows already rounded to three decimals.
func ExampleDissimilarity() {
	patterns := []string{"web", "content", "outlier", "mining", "web content",
		"content outlier", "outlier mining", "web content outlier", "content outlier mining"}
	tf := [][]int{
		{5, 9, 8, 6, 4, 6, 5, 2, 0}, // D1
		{6, 7, 5, 5, 4, 4, 3, 2, 2}, // D2
		{8, 7, 9, 6, 6, 5, 5, 3, 1}, // D3
	}
	var d []*shingle.Vector
	for _, counts := range tf {
		var pc []shingle.PatternCount
		for i, p := range patterns {
			pc = append(pc, shingle.PatternCount{Pattern: strings.Fields(p), Count: counts[i]})
		}
		v, _ := shingle.FromCounts(3, pc)
		d = append(d, v)
	}
	for _, p := range [][2]int{{0, 1}, {1, 2}, {0, 2}} {
		a, b := d[p[0]], d[p[1]]
		fmt.Printf("D%d,D%d  Table 4 form %.4f  Eq. (1) %.4f\n", p[0]+1, p[1]+1,
			shingle.Dissimilarity(a, b, shingle.TableForm), shingle.Dissimilarity(a, b, shingle.Equation))
	}
	// Output:
	// D1,D2  Table 4 form 0.3329  Eq. (1) 0.3549
	// D2,D3  Table 4 form 0.0827  Eq. (1) 0.1400
	// D1,D3  Table 4 form 0.2503  Eq. (1) 0.2923
}

// A crawler keeps a page only when no kept page nearly duplicates it. The
// default Options use the normalized form, threshold 0.25.
func ExampleDetector() {
	var p preprocess.Pipeline
	det, err := shingle.New(shingle.Options{})
	if err != nil {
		panic(err)
	}
	pages := []struct{ id, text string }{
		{"a", "The busy web is growing tremendously: the volume of its data is updated daily, and people use search engines to retrieve information from it. Crawlers fetch the same pages again and again, and many pages they fetch copy others."},
		{"b", "The busy web is growing tremendously: the volume of its data is updated hourly, and people use search engines to retrieve information from it. Crawlers fetch the same pages again and again, and many pages they fetch copy others."},
		{"c", "Most people use an internet search engine to find and retrieve information."},
	}
	for _, pg := range pages {
		d, err := neardup.NewDocument(&p, pg.id, "", "", []byte(pg.text))
		if err != nil {
			panic(err)
		}
		ms, added, err := det.MatchOrAdd(context.Background(), d)
		if err != nil {
			panic(err)
		}
		if added {
			fmt.Printf("%s: kept\n", pg.id)
		} else {
			fmt.Printf("%s: near-duplicate of %s (%.2f %s)\n", pg.id, ms[0].ID, ms[0].Score, ms[0].Measure)
		}
	}
	// Output:
	// a: kept
	// b: near-duplicate of a (0.15 shingle-normalized)
	// c: kept
}

// Dedup groups a set and keeps one page of each group by the rule of Fig. 6.
func ExampleDedup() {
	var p preprocess.Pipeline
	var docs []*neardup.Document
	for i, text := range []string{
		"Web content outlier mining removes duplicate documents from search results.",
		"Web content outlier mining removes the duplicate documents from search results.",
		"Stemming strips suffixes from the terms of a document.",
	} {
		d, _ := neardup.NewDocument(&p, fmt.Sprint("doc", i+1), "", "", []byte(text))
		docs = append(docs, d)
	}
	groups, err := shingle.Dedup(context.Background(), docs, shingle.Options{})
	if err != nil {
		panic(err)
	}
	for _, g := range groups {
		fmt.Println("group", g.IDs, "keeps", g.Keep)
	}
	// Output:
	// group [doc1 doc2] keeps [doc1]
}
