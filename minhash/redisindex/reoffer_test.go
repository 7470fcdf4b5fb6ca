package redisindex

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/preprocess"
)

// Offering a corpus a second and a third time keeps no new page and gives
// every page its first verdict, as the in-process Detector does: a page kept
// the first time is its own page (added, no matches), a page found a near-duplicate is matched to
// the page it was matched to first (the verdict Redis remembers), however
// the template model has grown since; on one slot and spread.
func TestReoffer(t *testing.T) {
	for _, spread := range []bool{false, true} {
		t.Run(fmt.Sprint("spread=", spread), func(t *testing.T) { reoffer(t, spread) })
	}
}

func reoffer(t *testing.T, spread bool) {
	c, prefix := client(t)
	pages, err := corpus.Read(filepath.Join("..", "..", "examples", "evaluate", "testdata", "en-sample"), 0)
	if err != nil {
		t.Fatal(err)
	}
	det, _ := New(Options{Client: c, Prefix: prefix, Spread: spread})
	var pipe preprocess.Pipeline
	first := make([]string, len(pages)) // "" when kept the first time, else the page matched
	kept := 0
	for round := range 3 {
		for i, p := range pages {
			d, err := neardup.NewDocument(&pipe, p.ID, p.URL, "", p.Raw)
			if err != nil {
				t.Fatal(err)
			}
			ms, added, err := det.MatchOrAdd(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			if round == 0 {
				if !added {
					first[i] = ms[0].ID
				}
				continue
			}
			if added != (first[i] == "") || added && len(ms) != 0 || !added && ms[0].ID != first[i] {
				t.Errorf("round %d: %s first matched %q, now %v, added %v", round+1, p.ID, first[i], ms, added)
			}
		}
		n, err := det.Len(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			kept = n
		} else if n != kept {
			t.Errorf("round %d: %d pages kept, %d after the first", round+1, n, kept)
		}
	}
	// The read script derives each page's keys from the template counts as
	// the Judge does (the sample's hosts learn templates as they go).
	if n := det.keyMisses.Load(); n != 0 {
		t.Errorf("%d reads derived other keys than the Judge's", n)
	}
}
