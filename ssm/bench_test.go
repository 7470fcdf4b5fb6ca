package ssm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// zipfTable returns a table of n keywords drawn from a Zipf-distributed
// vocabulary of vocab words ("w0" most frequent), with term frequencies
// 2..60 in descending order.
func zipfTable(r *rand.Rand, z *rand.Zipf, n int) Table {
	seen := make(map[uint64]bool, n)
	terms := make([]preprocess.Term, 0, n)
	for len(terms) < n {
		w := z.Uint64()
		if seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, preprocess.Term{Text: "w" + strconv.FormatUint(w, 10), Count: 2 + r.IntN(59)})
	}
	t, err := NewTable(terms)
	if err != nil {
		panic(err)
	}
	return t
}

func BenchmarkSSM(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 8, 5000)
	var tables [64]Table
	for i := range tables {
		tables[i] = zipfTable(r, z, DefaultN)
	}
	b.ReportAllocs()
	var sink float64
	i := 0
	for b.Loop() {
		sink += SSM(tables[i&63], tables[(i+17)&63])
		i++
	}
	if math.IsNaN(sink) {
		b.Fatal("NaN")
	}
}

func TestSSMAllocs(t *testing.T) {
	a, err := NewTable(table31)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := NewTable(table32)
	if n := testing.AllocsPerRun(100, func() { SSM(a, c) }); n != 0 {
		t.Errorf("SSM allocates %v times, want 0", n)
	}
}

// BenchmarkDetectorMatchAdd offers new pages to a Detector that keeps
// 100,000 (MatchOrAdd: compare, then keep), with synthetic tables over a
// Zipf-distributed vocabulary of 50,000 words; ns/op is per page.
func BenchmarkDetectorMatchAdd(b *testing.B) {
	const kept = 100_000
	r := rand.New(rand.NewPCG(3, 4))
	z := rand.NewZipf(r, 1.05, 20, 50_000)
	det, _ := New(Options{})
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	tables := make([]Table, kept)
	for i := range tables {
		tables[i] = zipfTable(r, z, DefaultN)
	}
	start := time.Now()
	for i, t := range tables {
		if err := det.c().AddFeature("k"+strconv.Itoa(i), t); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	tables = nil
	runtime.GC()
	runtime.ReadMemStats(&m1)
	b.Logf("kept %d tables in %v; %d B of heap per kept document (table, index, ID)", kept, elapsed, int64(m1.HeapAlloc-m0.HeapAlloc)/kept)
	docs := make([]*neardup.Document, 4096)
	for i := range docs {
		t := zipfTable(r, z, DefaultN)
		docs[i] = &neardup.Document{ID: "n" + strconv.Itoa(i), Page: &preprocess.Page{Terms: t.terms}}
	}
	before := det.Comparisons()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		d := docs[n%len(docs)]
		if n >= len(docs) { // each document once; later rounds under new IDs
			d = &neardup.Document{ID: d.ID + "-" + strconv.Itoa(n), Page: d.Page}
		}
		if _, _, err := det.MatchOrAdd(b.Context(), d); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(det.Comparisons()-before)/float64(n), "comparisons/page")
}
