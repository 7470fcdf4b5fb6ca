package cluster

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/simhash"
)

// benchDocs returns n synthetic pages over 50 topics: 10 topic keywords
// (Zipf-like within the topic's 30, 30 % from a shared vocabulary) as the top
// terms, 30 rarer terms of their own, and 5-200 sentences.
func benchDocs(n int) []*neardup.Document {
	items, _ := topics(99, n, 50, 10, 0.3)
	r := rand.New(rand.NewPCG(5, 5))
	docs := make([]*neardup.Document, n)
	for i, it := range items {
		p := &preprocess.Page{Language: "en"}
		for j, c := range it {
			p.Terms = append(p.Terms, preprocess.Term{Text: fmt.Sprintf("w%d", c), Count: 40 - j})
		}
		for j := range 30 {
			p.Terms = append(p.Terms, preprocess.Term{Text: fmt.Sprintf("r%d", r.IntN(20000)), Count: 10 - j/3})
		}
		for range 5 + r.IntN(196) {
			p.Sentences = append(p.Sentences, "s.")
		}
		docs[i] = &neardup.Document{ID: fmt.Sprintf("d%06d", i), Page: p}
	}
	return docs
}

// BenchmarkFit fits 10,000 pages (top 10 keywords each) into k clusters.
func BenchmarkFit(b *testing.B) {
	docs := benchDocs(10000)
	for _, o := range []KModesOptions{
		{K: 8}, {K: 32}, {K: 8, Similarity: Matching},
		{K: 8, Init: Huang, Seed: 1}, // NInit 10, in parallel
	} {
		name := fmt.Sprintf("n=10000/k=%d/%v/%v", o.K, o.Init, o.Similarity)
		b.Run(name, func(b *testing.B) {
			km := mustNew(b, o)
			for b.Loop() {
				if err := km.Fit(docs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(km.Stats().Iterations), "passes")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e4, "ns/doc")
		})
	}
}

// BenchmarkPartition places one page (its keywords already extracted)
// among the clusters of a fit of 10,000 pages: its p = 1 and p = 2 most
// similar clusters.
func BenchmarkPartition(b *testing.B) {
	docs := benchDocs(10000)
	for _, k := range []int{8, 32} {
		for _, p := range []int{1, 2} {
			km := mustNew(b, KModesOptions{K: k, Probes: p})
			if err := km.Fit(docs); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("k=%d/p=%d", k, p), func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, err := km.Partition(docs[i%len(docs)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkDetectorMatch matches pages against a repository of n pages kept
// in the sentence → SimHash cascade (Kumar and Govindarajulu), alone and split into k = 8 clusters (p = 1, 2):
// the time per new page of Figs. 6 and 8, on synthetic pages whose sentence
// counts spread over 5-200 (the sentence filter lets through about a third).
func BenchmarkDetectorMatch(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		docs := benchDocs(n + 500)
		repo, queries := docs[:n], docs[n:]
		plain, _ := newCascade(n)
		for _, d := range repo {
			if err := plain.Add(b.Context(), d); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("n=%d/cascade", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := plain.Match(b.Context(), queries[i%len(queries)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		for _, p := range []int{1, 2} {
			det, err := New(Options{NewDetector: cascades, KModes: KModesOptions{K: 8, Probes: p}, FitAt: -1})
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range repo {
				if err := det.Add(b.Context(), d); err != nil {
					b.Fatal(err)
				}
			}
			if err := det.Refit(b.Context()); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("n=%d/kmodes-k=8-p=%d", n, p), func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, err := det.Match(b.Context(), queries[i%len(queries)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkCorpusMatch is the time per new page against the repository size,
// with and without clustering (Figs. 6 and 8 of Kumar and Govindarajulu), on
// the real pages of en-dev (-corpus; the repository's en-sample without
// it): the last 300 pages of the manifest (half of a smaller corpus) are
// the new pages, and the repository holds the first n of the others (all
// kept, as the paper's database). The clustered cascade is fitted on the repository
// (default options: k = 16, f = 5, modes of 200 keywords) and probes p
// clusters; "compared/op" is the number of kept pages in the probed
// clusters.
func BenchmarkCorpusMatch(b *testing.B) {
	pages := corpusDocs(b, "en")
	nq := min(300, len(pages)/2)
	queries, rest := pages[len(pages)-nq:], pages[:len(pages)-nq]
	for _, n := range []int{100, 200, 400, 800, 1600} {
		if n > len(rest) {
			break
		}
		plain, _ := newCascade(n)
		for _, pg := range rest[:n] {
			if err := plain.Add(b.Context(), pg); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("n=%d/cascade", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := plain.Match(b.Context(), queries[i%len(queries)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(n), "compared/op")
		})
		// The README's order, SimHash first: its k-bit index finds the
		// candidates without a scan, so clustering has little to save.
		bySentences, _ := sentence.New(sentence.Options{})
		byPrint, _ := simhash.New(simhash.Options{ExpectedSize: n})
		printFirst, _ := neardup.NewCascade(byPrint, bySentences)
		for _, pg := range rest[:n] {
			if err := printFirst.Add(b.Context(), pg); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("n=%d/cascade-simhash-first", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := printFirst.Match(b.Context(), queries[i%len(queries)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		for _, p := range []int{1, 2} {
			det, err := New(Options{NewDetector: cascades, KModes: KModesOptions{Probes: p}, FitAt: -1})
			if err != nil {
				b.Fatal(err)
			}
			for _, pg := range rest[:n] {
				if err := det.Add(b.Context(), pg); err != nil {
					b.Fatal(err)
				}
			}
			if err := det.Refit(b.Context()); err != nil {
				b.Fatal(err)
			}
			sizes := det.Stats().Sizes
			compared := 0
			for _, q := range queries {
				ps, _ := probesOf(det, q)
				for _, at := range ps {
					compared += sizes[at.gen][at.cluster]
				}
			}
			b.Run(fmt.Sprintf("n=%d/kmodes-p=%d", n, p), func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, err := det.Match(b.Context(), queries[i%len(queries)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(compared)/float64(len(queries)), "compared/op")
			})
		}
	}
}

// corpusRoot is the folder of the labelled corpora BenchmarkCorpusMatch
// reads; empty, it reads the repository's sample.
var corpusRoot = flag.String("corpus", "", "folder of the labelled corpora (en-dev); empty: the repository's en-sample")

// corpusDocs reads and preprocesses the labelled corpus of language lang
// (corpus.Dir: under -corpus, or the repository's sample); pages the
// pipeline rejects are left out.
func corpusDocs(tb testing.TB, lang string) []*neardup.Document {
	tb.Helper()
	pages, err := corpus.Read(corpus.Dir(*corpusRoot, "..", lang), 0)
	if err != nil {
		tb.Fatal(err)
	}
	var pipe preprocess.Pipeline
	var docs []*neardup.Document
	for _, p := range pages {
		if d, err := neardup.NewDocument(&pipe, p.ID, p.URL, "", p.Raw); err == nil {
			docs = append(docs, d)
		}
	}
	return docs
}
