package ssm_test

import (
	"context"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/ssm"
)

// The paper's first worked example (Tables 3.1–3.6): two documents about
// different subjects. The paper truncates to four decimals (−4.6382,
// −3.3409) and prints "Mine" with tf 211 in Table 3.4 and the sum as
// 526.3638 (typos).
func ExampleSSM() {
	terms := func(words []string, tf ...int) []preprocess.Term {
		var ts []preprocess.Term
		for i, w := range words {
			ts = append(ts, preprocess.Term{Text: w, Count: tf[i]})
		}
		return ts
	}
	t1, _ := ssm.NewTable(terms([]string{"Mine", "Data", "Algorithm", "Knowledge", "Extract", "Clean", "Process", "Integrate", "Value", "Insight"},
		221, 199, 180, 179, 150, 100, 70, 55, 40, 22))
	t2, _ := ssm.NewTable(terms([]string{"Hadoop", "Framework", "Process", "Clean", "Data", "Parallel", "Compute", "Insight", "Component", "Value"},
		190, 188, 177, 176, 150, 101, 99, 67, 66, 56))
	br := ssm.Explain(t1, t2)
	for _, c := range br.Common {
		fmt.Printf("%-8s %3d %3d %2d %2d %8.4f\n", c.Keyword, c.X, c.Y, c.A, c.B, c.S)
	}
	fmt.Printf("SSM = %.4f / %v = %.4f\n", br.Sum, br.N, ssm.SSM(t1, t2))
	// Output:
	// Data     199 150  2  5   0.5653
	// Clean    100 176  6  4  -1.6959
	// Process   70 177  7  3  -4.6383
	// Value     40  56  9 10  -0.0000
	// Insight   22  67 10  8  -3.3410
	// SSM = 526.3684 / 10 = 52.6368
}

func ExampleDetector() {
	var pipe preprocess.Pipeline
	doc := func(id, text string) *neardup.Document {
		d, err := neardup.NewDocument(&pipe, id, "", "", []byte(text))
		if err != nil {
			panic(err)
		}
		return d
	}
	var det ssm.Detector // the zero Detector: N = 10, cut-off 7
	original := doc("a", "Vacuum reclaims storage. Vacuum runs on tables; the vacuum daemon automates vacuum and analyze of tables and indexes.")
	if err := det.Add(context.Background(), original); err != nil {
		panic(err)
	}
	ms, _ := det.Match(context.Background(), doc("b", "Vacuum reclaims storage. Vacuum runs on tables; the autovacuum daemon automates vacuum and analyze of tables."))
	for _, m := range ms {
		fmt.Printf("%s %.4f %s\n", m.ID, m.Score, m.Measure)
	}
	ms, _ = det.Match(context.Background(), doc("c", "Replication streams the write-ahead log to standby servers; a standby replays the log of the primary."))
	fmt.Println(ms)
	// Output:
	// a 0.0320 ssm
	// []
}

// A Partitioner splits the repository by domain and page size (§4); with
// a cluster.Detector each part keeps its own Detector.
func ExamplePartitioner() {
	var pipe preprocess.Pipeline
	software, _ := ssm.AnalyzeKeywords(&pipe, "software", "code", "compiler", "testing", "bug")
	civil, _ := ssm.AnalyzeKeywords(&pipe, "bridge", "concrete", "load", "beam")
	p, err := ssm.NewPartitioner(ssm.PartitionOptions{
		Domains: []ssm.Domain{{Name: "software", Keywords: software}, {Name: "civil", Keywords: civil}},
		Margin:  1024, // also probe the neighbouring size bucket within 1 KB of a boundary
	})
	if err != nil {
		panic(err)
	}
	d, _ := neardup.NewDocument(&pipe, "p", "", "", []byte("The compiler reports a bug in the code; testing the compiler finds it."))
	parts, _ := p.Partition(d)
	dom, bucket := p.Split(parts[0])
	fmt.Println(p.DomainName(dom), bucket, len(parts))

	det, _ := cluster.New(cluster.Options{Partitioner: p, NewDetector: func(int, int) (neardup.Detector, error) { return ssm.New(ssm.Options{}) }})
	_ = det.Add(context.Background(), d)
	ms, _ := det.Match(context.Background(), d) // the part of d's domain and size keeps it
	fmt.Println(ms)
	// Output:
	// software 0 1
	// [p (0 ssm)]
}
