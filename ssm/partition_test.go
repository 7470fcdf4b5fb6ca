package ssm

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/preprocess"
)

// page returns a document whose top terms are words (each counted once more
// than the next) and whose raw page has size bytes.
func page(t *testing.T, id string, size int, words ...string) *neardup.Document {
	t.Helper()
	var terms []preprocess.Term
	for i, w := range words {
		terms = append(terms, preprocess.Term{Text: w, Count: len(words) - i + 1})
	}
	return &neardup.Document{ID: id, Raw: make([]byte, size), Page: &preprocess.Page{Terms: terms}}
}

func testPartitioner(t *testing.T, margin int) *Partitioner {
	t.Helper()
	p, err := NewPartitioner(PartitionOptions{
		Domains: []Domain{
			{Name: "software", Keywords: []string{"code", "test", "compil", "bug"}},
			{Name: "civil", Keywords: []string{"bridg", "concret", "load", "test"}},
		},
		Margin: margin,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPartitionDomainsAndSizes(t *testing.T) {
	p := testPartitioner(t, 0)
	if p.Parts() != 9 {
		t.Errorf("Parts = %d, want (2+1)·3", p.Parts())
	}
	for _, c := range []struct {
		name  string
		size  int
		words []string
		want  int
	}{
		{"software small", 100, []string{"code", "bug", "bridg"}, 0},
		{"civil middle", 64<<10 + 1, []string{"bridg", "load", "code"}, 1*3 + 1},
		{"tie goes to the lowest index", 200 << 10, []string{"code", "bridg", "lake"}, 0*3 + 2},
		{"shared word counts for both", 10, []string{"test", "load"}, 1 * 3},
		{"no match is other", 64 << 10, []string{"lake", "river"}, 2*3 + 0},
		{"64 KB is the first bucket", 64 << 10, []string{"code"}, 0},
		{"128 KB + 1 is the third", 128<<10 + 1, []string{"code"}, 2},
	} {
		got, err := p.Partition(page(t, c.name, c.size, c.words...))
		if err != nil || !slices.Equal(got, []int{c.want}) {
			t.Errorf("%s: Partition = %v, %v; want [%d]", c.name, got, err, c.want)
		}
	}
	if dom, b := p.Split(7); dom != 2 || b != 1 || p.DomainName(dom) != "other" {
		t.Errorf("Split(7) = %d (%s), %d", dom, p.DomainName(dom), b)
	}
}

func TestPartitionMargin(t *testing.T) {
	p := testPartitioner(t, 1024)
	for _, c := range []struct {
		size int
		want []int
	}{
		{64<<10 - 1024, []int{0}},         // 1024 bytes from the boundary: not within
		{64<<10 - 1023, []int{0, 1}},      // within: also the next bucket
		{64 << 10, []int{0, 1}},           //
		{64<<10 + 1, []int{1, 0}},         // just across: also the previous bucket
		{64<<10 + 1024, []int{1, 0}},      //
		{64<<10 + 1025, []int{1}},         //
		{128 << 10, []int{1, 2}},          //
		{1 << 22, []int{2}},               // the last bucket has no upper neighbour
		{100, []int{0}},                   // the first has no lower one
		{128<<10 + 1, []int{2, 1}},        //
		{128<<10 + 1 + 1023, []int{2, 1}}, //
	} {
		got, err := p.Partition(page(t, "m", c.size, "code"))
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("size %d: Partition = %v, %v; want %v", c.size, got, err, c.want)
		}
	}
}

func TestPartitionerErrors(t *testing.T) {
	dom := []Domain{{Name: "a", Keywords: []string{"x"}}}
	for _, c := range []struct {
		name string
		o    PartitionOptions
		want string
	}{
		{"no domain", PartitionOptions{}, "no domain"},
		{"empty vocabulary", PartitionOptions{Domains: []Domain{{Name: "a", Keywords: []string{"x"}}, {Name: "b"}}}, `domain 1 ("b") has an empty vocabulary`},
		{"empty words", PartitionOptions{Domains: []Domain{{Name: "a", Keywords: []string{""}}}}, "empty vocabulary"},
		{"overlap", PartitionOptions{Domains: dom, Sizes: []SizeRange{{0, 100}, {50, 0}}}, "overlap"},
		{"unsorted", PartitionOptions{Domains: dom, Sizes: []SizeRange{{0, 100}, {200, 300}, {101, 0}}}, "gap"},
		{"descending", PartitionOptions{Domains: dom, Sizes: []SizeRange{{0, 300}, {101, 0}}}, "overlap"},
		{"gap", PartitionOptions{Domains: dom, Sizes: []SizeRange{{0, 100}, {102, 0}}}, "gap"},
		{"unbounded early", PartitionOptions{Domains: dom, Sizes: []SizeRange{{0, 0}, {101, 0}}}, "overlaps"},
		{"bounded last", PartitionOptions{Domains: dom, Sizes: []SizeRange{{0, 100}}}, "no bucket"},
		{"not from 0", PartitionOptions{Domains: dom, Sizes: []SizeRange{{1, 0}}}, "want 0"},
		{"backwards", PartitionOptions{Domains: dom, Sizes: []SizeRange{{0, 10}, {11, 5}, {6, 0}}}, "before it starts"},
		{"no buckets", PartitionOptions{Domains: dom, Sizes: []SizeRange{}}, "no size bucket"},
		{"negative margin", PartitionOptions{Domains: dom, Margin: -1}, "Margin"},
		{"N", PartitionOptions{Domains: dom, N: -1}, "N = -1"},
	} {
		_, err := NewPartitioner(c.o)
		if !errors.Is(err, neardup.ErrInvalidOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrInvalidOption mentioning %q", c.name, err, c.want)
		}
	}
	p := testPartitioner(t, 0)
	if _, err := p.Partition(&neardup.Document{ID: "empty", Page: &preprocess.Page{}}); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Partition(no terms): err = %v, want ErrNoFeatures", err)
	}
	if _, err := p.Partition(nil); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Partition(nil): err = %v, want ErrNilDocument", err)
	}
}

// TestPartitioned runs the Partitioner under a cluster.Detector with an
// ssm Detector in each part: a near-duplicate is found in its part, and a
// twin across a size boundary only with a margin.
func TestPartitioned(t *testing.T) {
	for _, margin := range []int{0, 4096} {
		p := testPartitioner(t, margin)
		det, err := cluster.New(cluster.Options{Partitioner: p, NewDetector: func(int, int) (neardup.Detector, error) { return New(Options{}) }})
		if err != nil {
			t.Fatal(err)
		}
		words := []string{"code", "bug", "compil", "lake", "river"}
		kept := page(t, "kept", 64<<10-100, words...)
		if err := det.Add(t.Context(), kept); err != nil {
			t.Fatal(err)
		}
		same := page(t, "same-bucket", 64<<10-50, words...)
		if ms, err := det.Match(t.Context(), same); err != nil || len(ms) != 1 || ms[0].ID != "kept" || ms[0].Score != 0 {
			t.Errorf("margin %d: Match(same bucket) = %v, %v", margin, ms, err)
		}
		across := page(t, "across", 64<<10+100, words...)
		ms, err := det.Match(t.Context(), across)
		if found := err == nil && len(ms) == 1; found != (margin > 0) {
			t.Errorf("margin %d: Match(across the boundary) = %v, %v", margin, ms, err)
		}
		other := page(t, "civil", 64<<10-100, "bridg", "load", "concret", "lake", "river")
		if ms, err := det.Match(t.Context(), other); err != nil || len(ms) != 0 {
			t.Errorf("margin %d: Match(other domain) = %v, %v", margin, ms, err)
		}
	}
}

func TestAnalyzeKeywords(t *testing.T) {
	var pipe preprocess.Pipeline
	got, err := AnalyzeKeywords(&pipe, "Compilers", "testing", "the", "", "compiler")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "compil" || got[1] != "test" {
		t.Errorf("AnalyzeKeywords = %q, want [compil test]", got)
	}
	if _, err := AnalyzeKeywords(nil, "x"); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("AnalyzeKeywords(nil): err = %v", err)
	}
}
