package minhash_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// Offering a corpus a second and a third time keeps no new page and gives
// every page its first verdict: a page kept the first time is its own page
// (added, no matches: neardup.MatchAdder), a page found a near-duplicate is
// found one again, of another page. The template model learns only from
// kept pages, so re-offers cannot teach it; and a detector restored from a
// snapshot after the first offer (a crawler restarted) gives the same
// verdicts.
func TestReoffer(t *testing.T) {
	for _, name := range []string{"en-sample", "zh-sample"} {
		t.Run(name, func(t *testing.T) {
			pages, err := corpus.Read(filepath.Join("..", "examples", "evaluate", "testdata", name), 0)
			if err != nil {
				t.Fatal(err)
			}
			det, _ := minhash.New(minhash.Options{})
			var pipe preprocess.Pipeline
			docs := make([]*neardup.Document, len(pages))
			first := make([]bool, len(pages)) // kept the first time
			kept := 0
			for round := range 3 {
				for i, p := range pages {
					if docs[i] == nil {
						if docs[i], err = neardup.NewDocument(&pipe, p.ID, p.URL, "", p.Raw); err != nil {
							t.Fatal(err)
						}
					} else {
						// A fresh Document each round: nothing cached.
						docs[i] = &neardup.Document{ID: docs[i].ID, Host: docs[i].Host, Page: docs[i].Page}
					}
					ms, added, err := det.MatchOrAdd(t.Context(), docs[i])
					if err != nil {
						t.Fatal(err)
					}
					if round == 0 {
						first[i] = added
						continue
					}
					if added != first[i] || added && len(ms) != 0 || !added && (len(ms) == 0 || ms[0].ID == p.ID) {
						t.Errorf("round %d: %s kept first %v, now added %v, matches %v", round+1, p.ID, first[i], added, ms)
					}
				}
				if round == 0 {
					kept = det.Len()
					var buf bytes.Buffer
					if _, err := det.WriteTo(&buf); err != nil {
						t.Fatal(err)
					}
					det, _ = minhash.New(minhash.Options{})
					if _, err := det.ReadFrom(&buf); err != nil {
						t.Fatal(err)
					}
				} else if det.Len() != kept {
					t.Errorf("round %d: %d pages kept, %d after the first", round+1, det.Len(), kept)
				}
			}
		})
	}
}

// A page not kept is matched again, offered again, to the page it matched
// first, at the same distance, through a snapshot too; once that page is
// removed it is judged anew.
func TestVerdictRemembered(t *testing.T) {
	var pipe preprocess.Pipeline
	body := "<p>Glaciers store snow that falls on their high plateau year after year, and the snow is buried and slowly compressed into ice.</p><p>Tiny bubbles of air trapped between the grains preserve samples of the ancient atmosphere for hundreds of thousands of years. Scientists drill long cores through the ice sheet and measure the oxygen isotopes of each layer to estimate the temperature of the air when the snow fell, and the dust in each layer tells of the winds.</p>"
	doc := func(id, html string) *neardup.Document {
		d, err := neardup.NewDocument(&pipe, id, "https://ice.example/"+id, "", []byte(html))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	det, _ := minhash.New(minhash.Options{})
	if _, added, _ := det.MatchOrAdd(t.Context(), doc("q", body)); !added {
		t.Fatal("first page not kept")
	}
	ms, added, _ := det.MatchOrAdd(t.Context(), doc("p", body+"<p>Updated on Monday.</p>"))
	if added || ms[0].ID != "q" {
		t.Fatalf("copy: added %v, matches %v", added, ms)
	}
	first := ms[0]
	// The host's template grows: three more kept pages open with the same
	// first paragraph, which so becomes template, and the two pages'
	// contents change. Their verdict does not.
	para := body[:strings.Index(body, "</p>")+4]
	for i, own := range []string{
		"Coral reefs build limestone skeletons in warm shallow seas where sunlight reaches the sea floor every day.",
		"Desert dunes migrate downwind as sand grains hop over the crest and slide down the steep lee face.",
		"River deltas spread fans of silt where slow water drops its load at the edge of a lake or sea.",
	} {
		if _, added, _ := det.MatchOrAdd(t.Context(), doc(fmt.Sprint("other", i), para+"<p>"+own+" "+own+"</p>")); !added {
			t.Fatalf("page %d not kept", i)
		}
	}
	var buf bytes.Buffer
	if _, err := det.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, _ := minhash.New(minhash.Options{})
	if _, err := back.ReadFrom(&buf); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*minhash.Detector{det, back} {
		before := d.Comparisons()
		if ms, _ := d.Match(t.Context(), doc("p", body+"<p>Updated on Monday.</p>")); len(ms) != 1 || ms[0] != first {
			t.Errorf("offered again: %v, want %v", ms, first)
		}
		if n := d.Comparisons() - before; n != 0 {
			t.Errorf("offered again, it was compared with %d pages: its verdict was not remembered", n)
		}
	}
	if err := back.Remove(t.Context(), "q"); err != nil {
		t.Fatal(err)
	}
	if ms, _, _ := back.MatchOrAdd(t.Context(), doc("p", body+"<p>Updated on Monday.</p>")); len(ms) != 0 {
		t.Errorf("after its match was removed: %v, want kept", ms)
	}
}
