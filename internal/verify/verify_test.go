package verify

import (
	"fmt"
	"slices"
	"testing"

	"github.com/neardup/neardup"
)

func TestCandidates(t *testing.T) {
	kept := map[string]float64{"a": 3, "b": 1, "c": 9, "d": 1}
	score := func(id string) (float64, bool) {
		s, ok := kept[id]
		return s, ok && s <= 5
	}
	cands := []neardup.Match{{ID: "a", Score: 100}, {ID: "x"}, {ID: "c"}, {ID: "d"}, {ID: "b"}, {ID: "a"}}
	got := Candidates(cands, score)
	want := []neardup.Match{{ID: "b", Score: 1}, {ID: "d", Score: 1}, {ID: "a", Score: 3}}
	if !slices.Equal(got, want) {
		t.Errorf("Candidates = %v, want %v", got, want)
	}
	if got := Candidates(nil, score); got != nil {
		t.Errorf("Candidates(nil) = %v, want nil", got)
	}
}

func Example() {
	counts := map[string]int{"page-1": 40, "page-2": 47, "page-3": 90}
	// candidates from an earlier stage, checked by sentence count (T_s = 10)
	cands := []neardup.Match{{ID: "page-3"}, {ID: "page-2"}, {ID: "gone"}, {ID: "page-1"}}
	fmt.Println(Candidates(cands, func(id string) (float64, bool) {
		c, ok := counts[id]
		d := max(c-42, 42-c)
		return float64(d), ok && d <= 10
	}))
	// Output: [{page-1 2} {page-2 5}]
}
