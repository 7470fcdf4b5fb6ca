package preprocess

import (
	"os"
	"testing"
)

// BenchmarkPreprocessHTML measures the whole pipeline (HTML -> Page) on real
// pages kept in testdata (see testdata/README.md), one sub-benchmark per page.
func BenchmarkPreprocessHTML(b *testing.B) {
	for _, bc := range []struct{ name, file string }{
		{"en-85KB", "testdata/postgresql-functions-datetime.html"},
		{"zh-50KB", "testdata/debian-reference-virtualized-system.zh.html"},
	} {
		raw, err := os.ReadFile(bc.file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			var p Pipeline
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.ProcessContent(raw, "text/html"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
