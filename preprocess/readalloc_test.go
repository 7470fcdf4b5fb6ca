package preprocess

import (
	"bytes"
	"io"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// measureHeap runs f inside b's timer and returns the peak of the heap's
// objects over a GC'd baseline (sampled every 100 µs) and the bytes f
// allocated. b's timer is stopped around the measurement's own work.
func measureHeap(b *testing.B, f func()) (peak, alloc uint64) {
	b.StopTimer()
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > base && v-base > peak {
				peak = v - base
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	b.StartTimer()
	alloc = allocated(f)
	b.StopTimer()
	close(done)
	wg.Wait()
	b.StartTimer()
	return peak, alloc
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadPageAllocates: reading a 16 MiB page allocates at most
// 1.1 times the page from a body that tells its size and 2.2 times from one
// that does not (io.ReadAll's growth allocated 3 to 5 times).
func TestReadPageAllocates(t *testing.T) {
	page := bytes.Repeat([]byte("<p>a page of text "), 16<<20/18)
	for _, c := range []struct {
		name string
		body func() io.Reader
		max  float64
	}{
		{"sized (bytes.Reader)", func() io.Reader { return bytes.NewReader(page) }, 1.1},
		{"unsized", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(page)} }, 2.2},
	} {
		var raw []byte
		var err error
		n := allocated(func() { raw, err = ReadPage(c.body(), 64<<20) })
		if err != nil || !bytes.Equal(raw, page) {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r := float64(n) / float64(len(page)); r > c.max {
			t.Errorf("%s: allocated %.2f times the page, want at most %.1f", c.name, r, c.max)
		}
	}
}

// BenchmarkReadPage reads a 64 MiB page with ReadPage, from
// a body that tells its size (a *bytes.Reader) and one that does not (an
// HTTP response's body), and, as the reference in the same run, with
// io.ReadAll of the limited body: alloc/page is the bytes allocated per byte of
// the page, peak/page the peak of the live heap (sampled every 100 µs over
// a GC'd baseline) per byte of the page.
func BenchmarkReadPage(b *testing.B) {
	page := bytes.Repeat([]byte("<p>a page of text "), 64<<20/18)
	const limit = 128 << 20
	for _, c := range []struct {
		name string
		read func() ([]byte, error)
	}{
		{"readall-unsized", func() ([]byte, error) {
			return io.ReadAll(io.LimitReader(struct{ io.Reader }{bytes.NewReader(page)}, limit+1))
		}},
		{"unsized", func() ([]byte, error) { return ReadPage(struct{ io.Reader }{bytes.NewReader(page)}, limit) }},
		{"readall-sized", func() ([]byte, error) { return io.ReadAll(io.LimitReader(bytes.NewReader(page), limit+1)) }},
		{"sized", func() ([]byte, error) { return ReadPage(bytes.NewReader(page), limit) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			var peak, alloc uint64
			for b.Loop() {
				var raw []byte
				var err error
				top, n := measureHeap(b, func() { raw, err = c.read() })
				if err != nil || len(raw) != len(page) {
					b.Fatal(err)
				}
				peak, alloc = max(peak, top), alloc+n
			}
			b.ReportMetric(float64(alloc)/float64(b.N)/float64(len(page)), "alloc/page")
			b.ReportMetric(float64(peak)/float64(len(page)), "peak/page")
		})
	}
}
