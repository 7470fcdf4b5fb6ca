package judge

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash/internal/sketch"
	"github.com/neardup/neardup/preprocess"
)

// FuzzFeature extracts the feature of arbitrary pages: it never panics, a
// page without words is ErrNoFeatures, and a feature's sketches are
// ascending, bounded and tagged with its blocks.
func FuzzFeature(f *testing.F) {
	for _, s := range []string{
		"<p>plain words in a paragraph of text</p>",
		"<nav><a href=/>Home</a></nav><main><p>content here and there</p></main>",
		"数据挖掘是从大量数据中提取知识的过程。",
		"<p>a</p><p>b</p>",
		"",
		"<script>var x = 1;</script>",
	} {
		f.Add([]byte(s))
	}
	o, _ := Options{SketchSize: 16, PageSketchSize: 8}.Resolve()
	var pipe preprocess.Pipeline
	var pool sync.Pool // builders reused from input to input, as a Detector reuses them
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := neardup.NewDocument(&pipe, "x", "https://x.example/", "", raw)
		if err != nil {
			return
		}
		ft, err := Extract(d, o, &pool)
		if err != nil {
			if !errors.Is(err, neardup.ErrNoFeatures) {
				t.Fatalf("error %v, want ErrNoFeatures", err)
			}
			return
		}
		// Reused builders make the feature new ones make.
		nf, _ := featureOf(d, o, &builders{sketch.NewBuilder(o.PageSketchSize, o.ShingleWidth), sketch.NewBuilder(o.SketchSize, o.ShingleWidth)})
		if !slices.Equal(ft.Page, nf.Page) || !slices.Equal(ft.Content, nf.Content) || !slices.Equal(ft.Tags, nf.Tags) ||
			!slices.Equal(ft.Blocks, nf.Blocks) || !slices.Equal(ft.Keys, nf.Keys) || ft.Share != nf.Share {
			t.Fatalf("with reused builders %+v, with new ones %+v", ft, nf)
		}
		for _, s := range []struct {
			s sketch.Sketch
			k int
		}{{ft.Page, o.PageSketchSize}, {ft.Content, o.SketchSize}} {
			if len(s.s) == 0 || len(s.s) > s.k || !slices.IsSorted(s.s) || len(slices.Compact(slices.Clone(s.s))) != len(s.s) {
				t.Fatalf("sketch %v: want 1..%d distinct ascending hashes", s.s, s.k)
			}
		}
		if len(ft.Tags) != len(ft.Content) || !slices.IsSorted(ft.Blocks) {
			t.Fatalf("%d tags for %d hashes; blocks %v", len(ft.Tags), len(ft.Content), ft.Blocks)
		}
		for _, tag := range ft.Tags {
			if int(tag) >= len(ft.Blocks) {
				t.Fatalf("tag %d of %d blocks", tag, len(ft.Blocks))
			}
		}
		if dist := Distance(o.Content(&ft), o.Content(&ft)); dist != 0 {
			t.Fatalf("a sketch is %v from itself", dist)
		}
	})
}
