package synth_test

import (
	"testing"

	"github.com/neardup/neardup/internal/synth"
)

// BenchmarkNext measures generating one page of the default crawl (HTML,
// labels and all), over the first b.N pages, so that the host templates
// built along the way (one per new host, most of them for the long tail)
// are part of the cost.
//
//	go test -run='^$' -bench=Next -benchmem -cpu=1 ./internal/synth/
func BenchmarkNext(b *testing.B) {
	c, err := synth.New(synth.Options{Seed: 1, Pages: synth.MaxPages})
	if err != nil {
		b.Fatal(err)
	}
	bytes := 0
	for b.Loop() {
		p, _ := c.Next()
		bytes += len(p.HTML)
	}
	b.SetBytes(int64(bytes / b.N))
	b.ReportMetric(float64(bytes)/float64(b.N), "B/html")
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := synth.New(synth.Options{Seed: 1, Pages: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
