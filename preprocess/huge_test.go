package preprocess

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"unicode/utf8"
)

// hugePage returns n bytes (at most) of text made by a deterministic
// generator: random CJK unified ideographs (script "cjk"), random
// lower-case Latin words of 2 to 10 letters separated by spaces ("latin"),
// or HTML paragraphs of one or two such words and a full stop ("html", the
// most lines and sentences a page can have). Nearly every CJK bigram of
// such a page is distinct, the worst case for per-page term tables.
func hugePage(script string, n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 0, n)
	switch script {
	case "cjk":
		for len(b)+3 <= n {
			b = utf8.AppendRune(b, rune(0x4E00+r.IntN(0x9FFF-0x4E00+1)))
		}
	case "latin":
		for {
			w := 2 + r.IntN(9)
			if len(b)+w+1 > n {
				break
			}
			for range w {
				b = append(b, byte('a'+r.IntN(26)))
			}
			b = append(b, ' ')
		}
	case "html":
		for len(b)+30 <= n {
			b = append(b, "<p>"...)
			for i := range 1 + r.IntN(2) {
				if i > 0 {
					b = append(b, ' ')
				}
				for range 2 + r.IntN(9) {
					b = append(b, byte('a'+r.IntN(26)))
				}
			}
			b = append(b, ".</p>"...)
		}
	}
	return b
}

// hugeMaxAlloc is the most a page of DefaultMaxBytes may allocate.
const hugeMaxAlloc = 64 << 20

// TestHugePageMemory processes 8 MB pages of random words and characters
// and checks that each allocates less than hugeMaxAlloc in all (so its heap
// stays below that too) and that the per-page caps hold.
func TestHugePageMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: preprocessing three 8 MB pages takes seconds (under -race, more); run without -short to check the per-page memory bound")
	}
	for _, script := range []string{"cjk", "latin", "html"} {
		t.Run(script, func(t *testing.T) {
			raw := hugePage(script, DefaultMaxBytes)
			var p Pipeline
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			pg, err := p.Process(raw)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes: %d terms, %d tokens, %d sentences, %d blocks, %.1f MB allocated", len(raw), len(pg.Terms), len(pg.Tokens), len(pg.Sentences), len(pg.Blocks), float64(alloc)/(1<<20))
			if alloc >= hugeMaxAlloc {
				t.Errorf("allocated %.1f MB, want < %d MB", float64(alloc)/(1<<20), hugeMaxAlloc>>20)
			}
			if len(pg.Terms) > DefaultMaxTerms || len(pg.Tokens) > DefaultMaxTokens || len(pg.Sentences) > DefaultMaxTokens/4 || len(pg.Blocks) > DefaultMaxTokens/4 {
				t.Errorf("%d terms, %d tokens, %d sentences, %d blocks: above MaxTerms %d or MaxTokens %d", len(pg.Terms), len(pg.Tokens), len(pg.Sentences), len(pg.Blocks), DefaultMaxTerms, DefaultMaxTokens)
			}
		})
	}
}

// BenchmarkHugePage processes 8 MB pages of random CJK characters, of
// random Latin words and of one- or two-word HTML paragraphs, reporting the peak of the live heap during a call
// (peak-heap-MB, sampled every 100 µs over a GC'd baseline) and the bytes
// allocated per call (alloc-MB/op).
func BenchmarkHugePage(b *testing.B) {
	for _, script := range []string{"cjk", "latin", "html"} {
		raw := hugePage(script, DefaultMaxBytes)
		b.Run(script, func(b *testing.B) {
			var p Pipeline
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			var peak, alloc uint64
			for b.Loop() {
				var err error
				top, n := measureHeap(b, func() { _, err = p.Process(raw) })
				if err != nil {
					b.Fatal(err)
				}
				peak, alloc = max(peak, top), alloc+n
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(alloc)/float64(b.N)/(1<<20), "alloc-MB/op")
		})
	}
}
