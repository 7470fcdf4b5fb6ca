package minhash

import (
	"testing"

	"github.com/neardup/neardup/minhash/internal/judge"
	"github.com/neardup/neardup/minhash/internal/sketch"
)

// TestDefaults: the defaults and named values minhash documents are those
// its Options resolve to (minhash/internal/judge's): catches one changed
// without the other.
func TestDefaults(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"DefaultContentDistance", DefaultContentDistance, judge.DefaultContentDistance},
		{"DefaultPageDistance", DefaultPageDistance, judge.DefaultPageDistance},
		{"DefaultContentGuard", DefaultContentGuard, judge.DefaultContentGuard},
		{"DefaultHostPageDistance", DefaultHostPageDistance, judge.DefaultHostPageDistance},
		{"DefaultTemplatePages", DefaultTemplatePages, judge.DefaultTemplatePages},
		{"DefaultSketchSize", DefaultSketchSize, judge.DefaultSketchSize},
		{"DefaultPageSketchSize", DefaultPageSketchSize, judge.DefaultPageSketchSize},
		{"DefaultShingleWidth", DefaultShingleWidth, judge.DefaultShingleWidth},
		{"DefaultKeys", DefaultKeys, judge.DefaultKeys},
		{"DefaultMaxPostings", DefaultMaxPostings, judge.DefaultMaxPostings},
		{"NoLimit", NoLimit, judge.NoLimit},
		{"NoTemplates", NoTemplates, judge.NoTemplates},
		{"MaxSketchSize", MaxSketchSize, sketch.MaxSize},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, resolved as %v", c.name, c.got, c.want)
		}
	}
	o, err := Options{}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := Options{DefaultContentDistance, DefaultPageDistance, DefaultContentGuard, DefaultHostPageDistance,
		DefaultTemplatePages, DefaultSketchSize, DefaultPageSketchSize, DefaultShingleWidth, DefaultKeys, DefaultMaxPostings}
	if o != want {
		t.Errorf("Options{}.resolve() = %+v, want %+v", o, want)
	}
}
