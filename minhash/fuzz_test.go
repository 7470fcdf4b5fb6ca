package minhash

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
)

// FuzzReadFrom feeds ReadFrom arbitrary bytes, seeded with a real snapshot:
// it never panics, a failed read leaves nothing, and a loaded page matches
// itself.
func FuzzReadFrom(f *testing.F) {
	det, _ := New(Options{})
	var pipe preprocess.Pipeline
	for i, html := range []string{
		"<nav>Home | News</nav><p>The first page tells of rivers and the towns along them, their bridges and mills.</p><footer>© site</footer>",
		"<p>A second page, about mountains: the passes, the huts and the weather that closes them in winter.</p>",
		"<p>数据挖掘是从大量数据中提取知识的过程。网页去重可以节省存储。</p>",
	} {
		d, err := neardup.NewDocument(&pipe, fmt.Sprint("id", i), fmt.Sprintf("https://h%d.example/", i%2), "", []byte(html))
		if err != nil {
			f.Fatal(err)
		}
		if err := det.Add(context.Background(), d); err != nil {
			f.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := det.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	detectortest.FuzzReadFrom(f, buf.Bytes(), func() *Detector { d, _ := New(Options{}); return d }, func(t *testing.T, back *Detector) {
		for id := range 3 {
			if ft, ok := back.c().Lookup(fmt.Sprint("id", id)); ok {
				if ms := back.c().MatchFeature(ft); !slices.ContainsFunc(ms, func(m neardup.Match) bool { return m.ID == fmt.Sprint("id", id) }) {
					t.Fatalf("loaded page id%d does not match itself: %v", id, ms)
				}
			}
		}
	})
}
