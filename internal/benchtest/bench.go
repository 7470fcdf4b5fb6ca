package benchtest

import (
	"context"
	"fmt"
	"github.com/neardup/neardup/internal/detectortest"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// RandomDoc returns a document of one random term under id: a random
// SimHash fingerprint, for benchmarks that want the cost of a call, not a
// match.
func RandomDoc(r *rand.Rand, id string) *neardup.Document {
	return &neardup.Document{ID: id, Page: &preprocess.Page{Terms: []preprocess.Term{{Text: fmt.Sprint("t", r.Uint64()), Count: 1}}}}
}

// Latency calls call with a new RandomDoc (IDs prefix-0, prefix-1, ...) in
// every iteration of b and reports the p50 and p99 latency in µs.
func Latency(b *testing.B, r *rand.Rand, prefix string, call func(d *neardup.Document) error) {
	var lat []time.Duration
	i := 0
	for b.Loop() {
		d := RandomDoc(r, fmt.Sprint(prefix, "-", i))
		i++
		start := time.Now()
		if err := call(d); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// Throughput has each of dets (one per client, on connections of its own)
// offer b.N/len(dets)+1 new RandomDocs (IDs prefix-client-i) to
// MatchOrAdd at once, and reports the calls per second of them all.
func Throughput(b *testing.B, dets []detectortest.FleetDetector, prefix string) {
	per := b.N/len(dets) + 1
	b.ResetTimer()
	var wg sync.WaitGroup
	for w, d := range dets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw := rand.New(rand.NewPCG(uint64(w), seedOf(prefix))) // a run of its own prefix offers new pages
			for i := range per {
				if _, _, err := d.MatchOrAdd(context.Background(), RandomDoc(rw, fmt.Sprint(prefix, "-", w, "-", i))); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(per*len(dets))/b.Elapsed().Seconds(), "calls/s")
}

// seedOf derives a random stream's seed from prefix.
func seedOf(prefix string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(prefix))
	return h.Sum64()
}
