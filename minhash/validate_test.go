package minhash

import (
	"errors"
	"runtime"
	"strconv"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// TestBuilderClampsK: a k above MaxSketchSize is lowered to it instead of
// allocating in proportion to k (k = 1<<30 reached gigabytes), and k < 1 is
// raised to 1. Fails when NewBuilder sizes its heap and set by k unclamped.
func TestBuilderClampsK(t *testing.T) {
	for _, c := range []struct{ k, want int }{{1 << 22, MaxSketchSize}, {MaxSketchSize + 1, MaxSketchSize}, {MaxSketchSize, MaxSketchSize}, {0, 1}, {-5, 1}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b := NewBuilder(c.k, 1)
		runtime.ReadMemStats(&after)
		if b.K() != c.want {
			t.Errorf("NewBuilder(%d, 1).K() = %d, want %d", c.k, b.K(), c.want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
			t.Errorf("NewBuilder(%d, 1) allocated %d bytes, want at most 64 KiB", c.k, got)
		}
	}
	words := make([]string, 1000)
	for i := range words {
		words[i] = "w" + strconv.Itoa(i)
	}
	if s := SketchOf(words, 1<<22, 1); len(s) != MaxSketchSize {
		t.Errorf("SketchOf(1000 words, 1<<22, 1) has %d hashes, want MaxSketchSize", len(s))
	}
	if s := SketchOf(words, 0, 0); len(s) != 1 {
		t.Errorf("SketchOf(1000 words, 0, 0) has %d hashes, want 1", len(s))
	}
}

// TestJudgeNil: nil records and a nil or zero Judge give no keys and "not
// near" instead of a panic.
func TestJudgeNil(t *testing.T) {
	j, err := NewJudge(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pipe preprocess.Pipeline
	d, err := neardup.NewDocument(&pipe, "a", "https://a.example/", "", []byte("<p>a page about sketches of shingles and the index keys they give</p>"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := j.Record(d)
	if err != nil {
		t.Fatal(err)
	}
	for name, jj := range map[string]*Judge{"judge": j, "nil judge": nil, "zero judge": {}} {
		if k := jj.Keys(nil, nil); k != nil {
			t.Errorf("%s: Keys(nil, nil) = %v, want nil", name, k)
		}
		for _, c := range [][2]*Record{{nil, nil}, {nil, r}, {r, nil}} {
			if dist, near := jj.Near(c[0], nil, c[1], nil); near || dist != 1 {
				t.Errorf("%s: Near(%p, %p) = %v, %v; want 1, false", name, c[0], c[1], dist, near)
			}
		}
	}
	if k := (&Judge{}).Keys(r, nil); k != nil {
		t.Errorf("zero judge: Keys(r) = %v, want nil", k)
	}
	if dist, near := j.Near(r, nil, r, nil); !near || dist != 0 {
		t.Errorf("Near(r, r) = %v, %v; want 0, true", dist, near)
	}
}

// TestNegativeOptions: a negative TemplatePages or MaxPostings other than
// its named constant is invalid (it was taken as "off" or "no bound").
func TestNegativeOptions(t *testing.T) {
	for _, o := range []Options{{TemplatePages: -3}, {TemplatePages: -2}, {MaxPostings: -2}, {MaxPostings: -100}} {
		if _, err := New(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidOption", o, err)
		}
		if _, err := NewJudge(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("NewJudge(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
	for _, o := range []Options{{TemplatePages: NoTemplates}, {MaxPostings: NoLimit}, {TemplatePages: NoTemplates, MaxPostings: NoLimit}} {
		det, err := New(o)
		if err != nil {
			t.Errorf("New(%+v): %v", o, err)
			continue
		}
		if got := det.Options(); got.TemplatePages != o.TemplatePages && o.TemplatePages != 0 || got.MaxPostings != o.MaxPostings && o.MaxPostings != 0 {
			t.Errorf("New(%+v).Options() = %+v: the named constant is not kept", o, got)
		}
	}
	if _, err := NewIndex(IndexOptions{MaxPostings: -2}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("NewIndex(MaxPostings -2): err = %v, want ErrInvalidOption", err)
	}
	if _, err := NewIndex(IndexOptions{MaxPostings: NoLimit}); err != nil {
		t.Errorf("NewIndex(MaxPostings NoLimit): %v", err)
	}
}
