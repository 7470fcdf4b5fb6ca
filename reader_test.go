package neardup_test

import (
	"bytes"
	"io"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// rawAnalyzer is a ContentAnalyzer that reads nothing of a page, so that
// what NewDocumentReader allocates is its reading alone.
type rawAnalyzer struct{ max int }

func (a rawAnalyzer) Process(raw []byte) (*preprocess.Page, error) { return &preprocess.Page{}, nil }
func (a rawAnalyzer) ProcessContent(raw []byte, _ string) (*preprocess.Page, error) {
	return &preprocess.Page{}, nil
}
func (a rawAnalyzer) Options() preprocess.Options { return preprocess.Options{MaxBytes: a.max} }

// readAllDocument is NewDocumentReader as it read bodies before ReadPage:
// io.ReadAll of the limited body, the benchmark's reference.
func readAllDocument(a rawAnalyzer, body io.Reader) (*neardup.Document, error) {
	raw, err := io.ReadAll(io.LimitReader(body, int64(a.max)+1))
	if err != nil {
		return nil, err
	}
	return neardup.NewDocumentContent(a, "p", "", "", raw)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNewDocumentReaderAllocates: reading a 16 MiB page allocates at most
// 1.1 times the page from a body that tells its size and 2.2 times from one
// that does not (io.ReadAll's growth allocated 3 to 5 times).
func TestNewDocumentReaderAllocates(t *testing.T) {
	page := bytes.Repeat([]byte("<p>a page of text "), 16<<20/18)
	a := rawAnalyzer{max: 64 << 20}
	for _, c := range []struct {
		name string
		body func() io.Reader
		max  float64
	}{
		{"sized (bytes.Reader)", func() io.Reader { return bytes.NewReader(page) }, 1.1},
		{"unsized", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(page)} }, 2.2},
	} {
		var d *neardup.Document
		var err error
		n := allocated(func() { d, err = neardup.NewDocumentReader(a, "p", "", "", c.body()) })
		if err != nil || !bytes.Equal(d.Raw, page) {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r := float64(n) / float64(len(page)); r > c.max {
			t.Errorf("%s: allocated %.2f times the page, want at most %.1f", c.name, r, c.max)
		}
	}
}

// BenchmarkNewDocumentReader reads a 64 MiB page with NewDocumentReader, from
// a body that tells its size (a *bytes.Reader) and one that does not (an
// HTTP response's body), and, as the reference in the same run, with the
// io.ReadAll it used before: alloc/page is the bytes allocated per byte of
// the page, peak/page the peak of the live heap (sampled every 100 µs over
// a GC'd baseline) per byte of the page.
func BenchmarkNewDocumentReader(b *testing.B) {
	page := bytes.Repeat([]byte("<p>a page of text "), 64<<20/18)
	a := rawAnalyzer{max: 128 << 20}
	for _, c := range []struct {
		name string
		read func() (*neardup.Document, error)
	}{
		{"readall-unsized", func() (*neardup.Document, error) {
			return readAllDocument(a, struct{ io.Reader }{bytes.NewReader(page)})
		}},
		{"unsized", func() (*neardup.Document, error) {
			return neardup.NewDocumentReader(a, "p", "", "", struct{ io.Reader }{bytes.NewReader(page)})
		}},
		{"readall-sized", func() (*neardup.Document, error) { return readAllDocument(a, bytes.NewReader(page)) }},
		{"sized", func() (*neardup.Document, error) {
			return neardup.NewDocumentReader(a, "p", "", "", bytes.NewReader(page))
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			var peak, alloc uint64
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
				metrics.Read(s)
				base := s[0].Value.Uint64()
				done := make(chan struct{})
				var wg sync.WaitGroup
				var top uint64
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
					tick := time.NewTicker(100 * time.Microsecond)
					defer tick.Stop()
					for {
						metrics.Read(s)
						if v := s[0].Value.Uint64(); v > base && v-base > top {
							top = v - base
						}
						select {
						case <-done:
							return
						case <-tick.C:
						}
					}
				}()
				b.StartTimer()
				var d *neardup.Document
				var err error
				n := allocated(func() { d, err = c.read() })
				b.StopTimer()
				close(done)
				wg.Wait()
				if err != nil || len(d.Raw) != len(page) {
					b.Fatal(err)
				}
				peak, alloc = max(peak, top), alloc+n
				b.StartTimer()
			}
			b.ReportMetric(float64(alloc)/float64(b.N)/float64(len(page)), "alloc/page")
			b.ReportMetric(float64(peak)/float64(len(page)), "peak/page")
		})
	}
}
