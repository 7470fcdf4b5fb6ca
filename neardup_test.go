package neardup_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/preprocess"
)

// textDetector is a test Detector: a document matches a kept one when their
// texts have the same length class (len/bucket); Score is the length difference.
type textDetector struct {
	bucket int
	failOn string // Add fails for this ID
	mu     sync.Mutex
	kept   map[string]int
	adds   atomic.Int64
}

func newText(bucket int) *textDetector { return &textDetector{bucket: bucket, kept: map[string]int{}} }

func (t *textDetector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	if err := neardup.Check(d); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(d.Page.Text)
	var ms []neardup.Match
	for id, m := range t.kept {
		if m/t.bucket == n/t.bucket {
			ms = append(ms, neardup.Match{ID: id, Score: float64(abs(m - n))})
		}
	}
	neardup.SortMatches(ms)
	return ms, nil
}

func (t *textDetector) Verify(ctx context.Context, d *neardup.Document, cands []neardup.Match) ([]neardup.Match, error) {
	all, err := t.Match(ctx, d)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, c := range cands {
		want[c.ID] = true
	}
	var out []neardup.Match
	for _, m := range all {
		if want[m.ID] {
			out = append(out, m)
		}
	}
	return out, nil
}

func (t *textDetector) Add(ctx context.Context, d *neardup.Document) error {
	if d.ID == t.failOn {
		return errors.New("boom")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.kept[d.ID]; ok {
		return neardup.ErrDuplicateID
	}
	t.kept[d.ID] = len(d.Page.Text)
	t.adds.Add(1)
	return nil
}

func (t *textDetector) Remove(ctx context.Context, id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.kept[id]; !ok {
		return neardup.ErrUnknownID
	}
	delete(t.kept, id)
	return nil
}

// addOnly is a Detector without Verify.
type addOnly struct{}

func (addOnly) Match(context.Context, *neardup.Document) ([]neardup.Match, error) { return nil, nil }
func (addOnly) Add(context.Context, *neardup.Document) error                      { return nil }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func doc(id, text string) *neardup.Document {
	return &neardup.Document{ID: id, Page: &preprocess.Page{Text: text}}
}

func ids(ms []neardup.Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func TestCascadeStages(t *testing.T) {
	coarse, fine := newText(10), newText(5)
	c, err := neardup.NewCascade(coarse, fine)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*neardup.Document{doc("a", "0123456789012"), doc("b", "012345678901234567"), doc("c", "01234567890123456789012")} {
		if err := c.Add(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	// len 14: coarse bucket 1 (10..19) holds a(13) and b(18); fine bucket 2 (10..14) holds a only.
	ms, err := c.Match(t.Context(), doc("q", "01234567890123"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ids(ms)); got != "[a]" {
		t.Fatalf("cascade matches = %s, want [a]", got)
	}
	if ms[0].Score != 1 {
		t.Errorf("score = %v, want the last stage's score 1", ms[0].Score)
	}
	// Nothing in the coarse bucket: the fine stage is never asked.
	if ms, _ := c.Match(t.Context(), doc("q2", "0123")); len(ms) != 0 {
		t.Errorf("Match = %v, want none", ms)
	}
}

func TestNewCascadeErrors(t *testing.T) {
	for name, stages := range map[string][]neardup.Detector{
		"none":        nil,
		"nil stage":   {newText(1), nil},
		"no verifier": {newText(1), addOnly{}},
	} {
		if _, err := neardup.NewCascade(stages...); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("%s: err = %v, want ErrInvalidOption", name, err)
		}
	}
	// A first stage needs no Verifier.
	if _, err := neardup.NewCascade(addOnly{}, newText(1)); err != nil {
		t.Errorf("addOnly first: %v", err)
	}
}

func TestCascadeNilDocument(t *testing.T) {
	c, _ := neardup.NewCascade(newText(1))
	for _, d := range []*neardup.Document{nil, {ID: "x"}} {
		if _, err := c.Match(t.Context(), d); !errors.Is(err, neardup.ErrNilDocument) {
			t.Errorf("Match(%v) err = %v", d, err)
		}
		if err := c.Add(t.Context(), d); !errors.Is(err, neardup.ErrNilDocument) {
			t.Errorf("Add(%v) err = %v", d, err)
		}
		if _, _, err := c.MatchOrAdd(t.Context(), d); !errors.Is(err, neardup.ErrNilDocument) {
			t.Errorf("MatchOrAdd(%v) err = %v", d, err)
		}
	}
}

func TestCascadeAddRollsBack(t *testing.T) {
	first, second := newText(10), newText(10)
	second.failOn = "bad"
	c, _ := neardup.NewCascade(first, second)
	if err := c.Add(t.Context(), doc("bad", "hello")); err == nil {
		t.Fatal("Add succeeded, want the second stage's error")
	}
	if len(first.kept) != 0 {
		t.Errorf("first stage still keeps %v after a failed Add", first.kept)
	}
	if err := c.Add(t.Context(), doc("ok", "hello")); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(t.Context(), doc("ok", "hello")); !errors.Is(err, neardup.ErrDuplicateID) {
		t.Errorf("second Add err = %v, want ErrDuplicateID", err)
	}
	if err := c.Remove(t.Context(), "ok"); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove(t.Context(), "ok"); !errors.Is(err, neardup.ErrUnknownID) {
		t.Errorf("Remove twice err = %v, want ErrUnknownID", err)
	}
}

// Many goroutines offer copies of the same page: exactly one is kept.
func TestCascadeMatchOrAddConcurrent(t *testing.T) {
	det := newText(100)
	c, _ := neardup.NewCascade(det, newText(100))
	var wg sync.WaitGroup
	var added atomic.Int64
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := doc(fmt.Sprint("copy", i), "the same page")
			_, ok, err := c.MatchOrAdd(t.Context(), d)
			if err != nil {
				t.Error(err)
			}
			if ok {
				added.Add(1)
			}
			if _, err := c.Match(t.Context(), d); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if added.Load() != 1 || det.adds.Load() != 1 {
		t.Fatalf("added %d copies (detector saw %d), want exactly 1", added.Load(), det.adds.Load())
	}
}

func TestFeatureComputedOnce(t *testing.T) {
	type key struct{}
	d := doc("x", "text")
	var calls atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := neardup.Feature(d, key{}, func(d *neardup.Document) (int, error) {
				calls.Add(1)
				return len(d.Page.Text), nil
			})
			if err != nil || v != 4 {
				t.Errorf("Feature = %v, %v", v, err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("compute ran %d times, want 1", calls.Load())
	}
	// Errors are cached too, and keys do not collide.
	type other struct{}
	boom := errors.New("boom")
	for range 2 {
		if _, err := neardup.Feature(d, other{}, func(*neardup.Document) (string, error) { calls.Add(1); return "", boom }); err != boom {
			t.Fatalf("err = %v", err)
		}
	}
	if calls.Load() != 2 {
		t.Fatalf("compute ran %d times, want 2", calls.Load())
	}
}

type lenPartitioner struct{ probe bool }

func (p lenPartitioner) Partition(d *neardup.Document) ([]int, error) {
	n := len(d.Page.Text) / 10
	if p.probe && n > 0 {
		return []int{n, n + 1, n - 1}, nil
	}
	if p.probe {
		return []int{n, n + 1}, nil
	}
	return []int{n}, nil
}

// TestPartitioned: a cluster.Detector with a fixed Partitioner keeps a page
// in its home part and compares it within every part it is given.
func TestPartitioned(t *testing.T) {
	for _, probe := range []bool{false, true} {
		pd, err := partitioned(lenPartitioner{probe}, func(int) (neardup.Detector, error) { return newText(1000), nil })
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range []string{strings.Repeat("x", 5), strings.Repeat("x", 25), strings.Repeat("x", 45)} {
			if _, ok, err := pd.MatchOrAdd(t.Context(), doc(fmt.Sprint(i), text)); err != nil || !ok {
				t.Fatalf("MatchOrAdd %d: %v %v", i, ok, err)
			}
		}
		ms, err := pd.Match(t.Context(), doc("q", strings.Repeat("x", 15)))
		if err != nil {
			t.Fatal(err)
		}
		got := ids(ms)
		sort.Strings(got)
		want := "[]" // part 1 is empty
		if probe {
			want = "[0 1]" // parts 0 and 2 are probed too
		}
		if fmt.Sprint(got) != want {
			t.Errorf("probe=%v: matches %v, want %s", probe, got, want)
		}
		if err := pd.Add(t.Context(), doc("1", "x")); !errors.Is(err, neardup.ErrDuplicateID) {
			t.Errorf("duplicate Add err = %v", err)
		}
		if err := pd.Remove(t.Context(), "1"); err != nil {
			t.Fatal(err)
		}
		if err := pd.Remove(t.Context(), "1"); !errors.Is(err, neardup.ErrUnknownID) {
			t.Errorf("Remove twice err = %v", err)
		}
	}
	if _, err := partitioned(lenPartitioner{}, nil); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("no NewDetector: err = %v", err)
	}
}

// partitioned returns a cluster.Detector that keeps a detector made by
// newDetector in each part of p.
func partitioned(p interface {
	Partition(*neardup.Document) ([]int, error)
}, newDetector func(part int) (neardup.Detector, error)) (*cluster.Detector, error) {
	o := cluster.Options{Partitioner: p}
	if newDetector != nil {
		o.NewDetector = func(part, _ int) (neardup.Detector, error) { return newDetector(part) }
	}
	return cluster.New(o)
}

// NewDocument refuses a nil Analyzer, and a page over the analyzer's
// MaxBytes is refused with ErrTooLarge.
func TestNewDocumentErrors(t *testing.T) {
	if _, err := neardup.NewDocument(nil, "x", "", "", []byte("<p>text</p>")); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("nil analyzer: %v, want ErrInvalidOption", err)
	}
	pipe, err := preprocess.New(preprocess.Options{MaxBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := preprocess.ReadPage(strings.NewReader(strings.Repeat("word ", 1000)), pipe.Options().MaxBytes)
	if err != nil || len(raw) != 201 {
		t.Fatalf("ReadPage: %d bytes, %v; want MaxBytes+1 = 201", len(raw), err)
	}
	if _, err := neardup.NewDocument(pipe, "big", "", "", raw); !errors.Is(err, preprocess.ErrTooLarge) {
		t.Errorf("over MaxBytes: %v, want ErrTooLarge", err)
	}
	d, err := neardup.NewDocument(pipe, "u1", "https://Example.org/a", "text/plain", []byte(strings.Repeat("word ", 40)))
	if err != nil || d.ID != "u1" || d.Host != "example.org" {
		t.Errorf("exactly MaxBytes: %+v, %v", d, err)
	}
}
