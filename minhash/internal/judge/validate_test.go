package judge

import (
	"errors"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

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
	for name, jj := range map[string]*Judge{"nil judge": nil, "zero judge": {}} {
		if n := jj.SharedKeys(jj.QueryHashes(r, nil), r, nil); n != 0 {
			t.Errorf("%s: SharedKeys(r, r) = %d, want 0", name, n)
		}
	}
	if n := j.SharedKeys(j.QueryHashes(nil, nil), r, nil) + j.SharedKeys(j.QueryHashes(r, nil), nil, nil); n != 0 {
		t.Errorf("SharedKeys with a nil record = %d, want 0", n)
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
		if _, err := NewJudge(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("NewJudge(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
	for _, o := range []Options{{TemplatePages: NoTemplates}, {MaxPostings: NoLimit}} {
		j, err := NewJudge(o)
		if err != nil {
			t.Errorf("NewJudge(%+v): %v", o, err)
			continue
		}
		if got := j.Options(); o.TemplatePages != 0 && got.TemplatePages != o.TemplatePages || o.MaxPostings != 0 && got.MaxPostings != o.MaxPostings {
			t.Errorf("NewJudge(%+v).Options() = %+v: the named constant is not kept", o, got)
		}
	}
}
