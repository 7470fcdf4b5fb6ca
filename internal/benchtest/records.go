package benchtest

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/synth"
)

// RecordIndex is a threshold index of short records that Records measures.
type RecordIndex interface {
	// Add files record i (its text: words separated by spaces).
	Add(i int, text string)
	// Build is called once after the last Add, before the first Query.
	Build()
	// Query appends to dst the records that may be within the threshold
	// of text (their i, in any order, possibly the query's own).
	Query(text string, dst []int) []int
}

// Prober is a RecordIndex that states the probability that a record of
// Jaccard similarity j to the query is among its candidates
// (minhash.LSH's Probability).
type Prober interface {
	Probability(j float64) float64
}

// RecordQueries is the number of records Records queries (all of them
// when there are fewer).
const RecordQueries = 10_000

// Records files the first n records of synth.NewRecords (seed 1: titles
// and log lines, 10 % planted copies at Jaccard 0.5–1.0) in the index
// newIdx returns and queries RecordQueries of them (evenly spaced), each
// for the records within threshold of it, and reports:
//
//   - recall: of the pairs of records whose word sets have Jaccard
//     similarity ≥ threshold, the share found (a query's candidates hold
//     the other); all pairs, found exhaustively, when n ≤ RecordQueries,
//     else the planted pairs of the queried records only (recall-planted
//     is reported at every n)
//   - cmp/query: candidates per query, the query itself not counted;
//     chance/query those of them below threshold/2
//   - us/query: time from a record's text to its candidates (its set, its
//     signature, the lookup); insert-us/record the same for Add, with
//     Build's time shared out
//   - B/record: heap the index holds, per record
//   - cmp-expected/query, when the index is a Prober: the candidates per
//     query its Probability predicts from the records' similarities to the
//     query (each query against RecordSample records drawn at random,
//     scaled to n), so that comparisons that grow with n can be told apart
//     into the index's doing and the data's (records that share common
//     words with the query and so become more numerous with n); and
//     sim0.1/query, the records per query with Jaccard similarity ≥ 0.1
//     to it, estimated from the same sample
func Records(b *testing.B, n int, threshold float64, newIdx func(threshold float64) RecordIndex) {
	recs, err := synth.NewRecords(synth.RecordsOptions{Seed: 1, N: n})
	if err != nil {
		b.Fatal(err)
	}
	sets := make([][]uint64, n)
	for i, r := range recs {
		sets[i] = r.Elements()
	}
	step := max(n/RecordQueries, 1)
	queried := func(i int) bool { return i%step == 0 && i/step < RecordQueries }
	// The pairs to find: (i, j) with i queried.
	want := map[[2]int]bool{}
	if n <= RecordQueries {
		for _, p := range synth.Pairs(sets, threshold) {
			want[p] = true
		}
	}
	planted := map[[2]int]bool{}
	for i, r := range recs {
		if r.Of >= 0 && (queried(i) || queried(r.Of)) && synth.Jaccard(sets[i], sets[r.Of]) >= threshold {
			planted[[2]int{min(i, r.Of), max(i, r.Of)}] = true
		}
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	idx := newIdx(threshold)
	t0 := time.Now()
	for i, r := range recs {
		idx.Add(i, r.Text)
	}
	idx.Build()
	insert := time.Since(t0)
	runtime.GC()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	var spent time.Duration
	var cands []int
	found, foundPlanted, queries, cmps, chance := 0, 0, 0, 0, 0
	for i := 0; i < n && queries < RecordQueries; i += step {
		t := time.Now()
		cands = idx.Query(recs[i].Text, cands[:0])
		spent += time.Since(t)
		queries++
		slices.Sort(cands)
		cands = slices.Compact(cands)
		for _, j := range cands {
			if j == i {
				continue
			}
			cmps++
			if synth.Jaccard(sets[i], sets[j]) < threshold/2 {
				chance++
			}
			p := [2]int{min(i, j), max(i, j)}
			if want[p] {
				found++
				delete(want, p) // found once, from either side
			}
			if planted[p] {
				foundPlanted++
				delete(planted, p)
			}
		}
	}
	runtime.KeepAlive(idx)
	if p, ok := idx.(Prober); ok {
		expected, near := expectedCandidates(sets, step, queries, p)
		b.ReportMetric(expected, "cmp-expected/query")
		b.ReportMetric(near, "sim0.1/query")
	}
	if n <= RecordQueries {
		b.ReportMetric(float64(found)/float64(found+len(want)), "recall")
	}
	b.ReportMetric(float64(foundPlanted)/float64(foundPlanted+len(planted)), "recall-planted")
	b.ReportMetric(float64(cmps)/float64(queries), "cmp/query")
	b.ReportMetric(float64(chance)/float64(queries), "chance/query")
	b.ReportMetric(float64(spent.Nanoseconds())/1e3/float64(queries), "us/query")
	b.ReportMetric(float64(insert.Nanoseconds())/1e3/float64(n), "insert-us/record")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "B/record")
	b.ReportMetric(0, "ns/op")
}

// RecordSample is the number of records each query is compared with for
// cmp-expected/query.
const RecordSample = 500

// expectedCandidates returns the mean over the queried records of
// Σ_j P(J(query, j)) over the other records, and of the number of records
// j with J(query, j) ≥ 0.1, estimated from RecordSample records drawn at
// random (a fixed sequence) for each query.
func expectedCandidates(sets [][]uint64, step, queries int, p Prober) (expected, near float64) {
	n := len(sets)
	x := uint64(0x9e3779b97f4a7c15)
	for q := 0; q < queries; q++ {
		i := q * step
		var s, m float64
		for range RecordSample {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			j := int(x % uint64(n))
			if j == i {
				continue
			}
			jac := synth.Jaccard(sets[i], sets[j])
			s += p.Probability(jac)
			if jac >= 0.1 {
				m++
			}
		}
		expected += s * float64(n-1) / RecordSample
		near += m * float64(n-1) / RecordSample
	}
	return expected / float64(queries), near / float64(queries)
}
