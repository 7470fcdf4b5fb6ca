package ssm

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/snapshot"
	"github.com/neardup/neardup/preprocess"
)

// FuzzTable checks table extraction from preprocessed text and SSM's
// invariants: a table holds min(N, distinct terms) keywords indexed by count
// descending then text ascending; SSM(t, t) = 0; SSM equals the row-by-row
// Explain; SSM is finite; a table survives its snapshot encoding; and pages
// without terms are ErrNoFeatures.
func FuzzTable(f *testing.F) {
	f.Add("data mining data mining algorithm knowledge data", "hadoop framework data process", 10)
	f.Add("a b c d e f g h i j k l", "l k j", 3)
	f.Add("the and of", "words", 1)
	f.Add("数据挖掘数据挖掘算法", "数据处理框架", 10)
	f.Add("", "x", 5)
	var pipe preprocess.Pipeline
	f.Fuzz(func(t *testing.T, s1, s2 string, n int) {
		if n < 1 || n > 64 || len(s1) > 4096 || len(s2) > 4096 {
			return
		}
		table := func(id, s string) (Table, bool) {
			page, err := pipe.Process([]byte(s))
			if err != nil {
				return Table{}, false
			}
			d := &neardup.Document{ID: id, Page: page}
			tab, err := TableOf(d, n)
			if len(page.Terms) == 0 {
				if !errors.Is(err, neardup.ErrNoFeatures) {
					t.Fatalf("TableOf(no terms): err = %v, want ErrNoFeatures", err)
				}
				return Table{}, false
			}
			if err != nil {
				t.Fatal(err)
			}
			if tab.Len() != min(n, len(page.Terms)) {
				t.Fatalf("Len = %d, want min(%d, %d)", tab.Len(), n, len(page.Terms))
			}
			for i, term := range tab.terms {
				if term != page.Terms[i] || tab.Index(term.Text) != i+1 {
					t.Fatalf("keyword %d = %v (index %d), want %v", i+1, term, tab.Index(term.Text), page.Terms[i])
				}
			}
			return tab, true
		}
		a, ok := table("a", s1)
		if !ok {
			return
		}
		if s := SSM(a, a); s != 0 {
			t.Fatalf("SSM(a, a) = %v", s)
		}
		roundTrip(t, a, n)
		b, ok := table("b", s2)
		if !ok {
			return
		}
		for _, pair := range [][2]Table{{a, b}, {b, a}} {
			s := SSM(pair[0], pair[1])
			if math.IsNaN(s) || math.IsInf(s, 0) {
				t.Fatalf("SSM = %v", s)
			}
			if e := Explain(pair[0], pair[1]).SSM; math.Abs(e-s) > 1e-9*max(1, math.Abs(s)) {
				t.Fatalf("SSM = %v, Explain = %v", s, e)
			}
		}
	})
}

// roundTrip encodes t into a snapshot and decodes it back.
func roundTrip(t *testing.T, tab Table, n int) {
	t.Helper()
	var buf bytes.Buffer
	sw := snapshot.NewWriter(&buf, "ssm.test", nil)
	encodeTable(sw, tab)
	if _, err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	sr, err := snapshot.NewReader(&buf, "ssm.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	back := decodeTable(sr, n)
	if _, err := sr.Close(); err != nil {
		t.Fatal(err)
	}
	if back.String() != tab.String() || SSM(back, tab) != 0 {
		t.Fatalf("round trip: %v, want %v", back, tab)
	}
}

func TestNewTableErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		terms []preprocess.Term
	}{
		{"zero count", []preprocess.Term{tt("a", 2), tt("b", 0)}},
		{"negative count", []preprocess.Term{tt("a", -1)}},
		{"twice", []preprocess.Term{tt("a", 2), tt("a", 1)}},
		{"too many", make([]preprocess.Term, MaxN+1)},
	} {
		if _, err := NewTable(c.terms); !errors.Is(err, ErrBadTable) {
			t.Errorf("%s: err = %v, want ErrBadTable", c.name, err)
		}
	}
	if _, err := NewTable(nil); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("NewTable(nil): err = %v, want ErrNoFeatures", err)
	}
	if s := SSM(Table{}, Table{}); s != 0 {
		t.Errorf("SSM of two zero Tables = %v, want 0", s)
	}
	// Out of order in, sorted out: count descending, then text.
	tab, err := NewTable([]preprocess.Term{tt("b", 1), tt("c", 5), tt("a", 1)})
	if err != nil || tab.String() != "1 c 5, 2 a 1, 3 b 1" {
		t.Errorf("NewTable = %q, %v", tab, err)
	}
	// SSM with one empty table: only the other's S_DT terms.
	if s := SSM(Table{}, tab); math.Abs(s-math.Log(5)/1.5) > 1e-12 {
		t.Errorf("SSM(empty, t) = %v, want ln 5 / 1.5", s)
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, o := range []Options{{N: -1}, {N: MaxN + 1}, {Cutoff: -1}, {Cutoff: math.NaN()}, {Cutoff: math.Inf(1)}, {Rule: 7}} {
		if _, err := New(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
	if _, err := TableOf(&neardup.Document{Page: &preprocess.Page{}}, 0); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("TableOf(n = 0): err = %v", err)
	}
	var d Detector
	if o := d.Options(); o.N != DefaultN || o.Cutoff != DefaultCutoff || o.Rule != Magnitude {
		t.Errorf("zero Detector options = %+v", o)
	}
}

// TestSigned: a page whose keywords are those of a kept page at a fraction of
// their frequencies has a negative SSM; Signed calls it a near-duplicate
// however negative, Magnitude only within the cut-off.
func TestSigned(t *testing.T) {
	long, _ := NewTable([]preprocess.Term{tt("a", 1000), tt("b", 900), tt("c", 800)})
	short, _ := NewTable([]preprocess.Term{tt("a", 10), tt("b", 9), tt("c", 8)})
	s := SSM(short, long)
	if want := math.Log(0.01); math.Abs(s-want) > 1e-12 {
		t.Fatalf("SSM = %v, want ln(1/100) = %v", s, want)
	}
	if score, ok := (Options{Cutoff: 4, Rule: Signed}).near(s); !ok || score != -s {
		t.Errorf("Signed: %v, %v", score, ok)
	}
	if score, ok := (Options{Cutoff: 4, Rule: Magnitude}).near(s); ok || score != -s {
		t.Errorf("Magnitude: %v, %v", score, ok)
	}
}

// FuzzReadFrom feeds ReadFrom arbitrary bytes, seeded with a real snapshot:
// it must never panic, a failed read must leave the detector empty, and a
// successful one must give tables that match themselves.
func FuzzReadFrom(f *testing.F) {
	det, _ := New(Options{})
	for i, terms := range [][]preprocess.Term{
		{{Text: "data", Count: 9}, {Text: "mine", Count: 4}, {Text: "web", Count: 2}},
		{{Text: "hadoop", Count: 7}, {Text: "data", Count: 3}},
		{{Text: "crawl", Count: 5}, {Text: "page", Count: 5}, {Text: "link", Count: 1}},
	} {
		d := &neardup.Document{ID: fmt.Sprint("id", i), Page: &preprocess.Page{Text: "x", Terms: terms}}
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
			if tb, ok := back.Lookup(fmt.Sprint("id", id)); ok {
				if ms := back.c().MatchFeature(tb); len(ms) == 0 {
					t.Fatalf("a loaded table does not match itself")
				}
			}
		}
	})
}
