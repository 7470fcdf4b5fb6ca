package minhash

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
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
		if err := det.Add(f.Context(), d); err != nil {
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
	o, _ := Options{SketchSize: 16, PageSketchSize: 8}.resolve()
	var pipe preprocess.Pipeline
	var pool sync.Pool // builders reused from input to input, as a Detector reuses them
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := neardup.NewDocument(&pipe, "x", "https://x.example/", "", raw)
		if err != nil {
			return
		}
		ft, err := extract(d, o, &pool)
		if err != nil {
			if !errors.Is(err, neardup.ErrNoFeatures) {
				t.Fatalf("error %v, want ErrNoFeatures", err)
			}
			return
		}
		// Reused builders make the feature new ones make.
		nf, _ := featureOf(d, o, &builders{NewBuilder(o.PageSketchSize, o.ShingleWidth), NewBuilder(o.SketchSize, o.ShingleWidth)})
		if !slices.Equal(ft.page, nf.page) || !slices.Equal(ft.content, nf.content) || !slices.Equal(ft.tags, nf.tags) ||
			!slices.Equal(ft.blocks, nf.blocks) || !slices.Equal(ft.keys, nf.keys) || ft.share != nf.share {
			t.Fatalf("with reused builders %+v, with new ones %+v", ft, nf)
		}
		for _, s := range []struct {
			s Sketch
			k int
		}{{ft.page, o.PageSketchSize}, {ft.content, o.SketchSize}} {
			if len(s.s) == 0 || len(s.s) > s.k || !slices.IsSorted(s.s) || len(slices.Compact(slices.Clone(s.s))) != len(s.s) {
				t.Fatalf("sketch %v: want 1..%d distinct ascending hashes", s.s, s.k)
			}
		}
		if len(ft.tags) != len(ft.content) || !slices.IsSorted(ft.blocks) {
			t.Fatalf("%d tags for %d hashes; blocks %v", len(ft.tags), len(ft.content), ft.blocks)
		}
		for _, tag := range ft.tags {
			if int(tag) >= len(ft.blocks) {
				t.Fatalf("tag %d of %d blocks", tag, len(ft.blocks))
			}
		}
		if dist := distance(sample{ft.content, threshold(ft.content, o.SketchSize)}, sample{ft.content, threshold(ft.content, o.SketchSize)}); dist != 0 {
			t.Fatalf("a sketch is %v from itself", dist)
		}
	})
}
