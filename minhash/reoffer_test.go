package minhash_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// Offering a corpus a second and a third time keeps no new page and gives
// every page its first verdict: a page kept the first time matches itself,
// a page found a near-duplicate is found one again. The template model
// learns only from kept pages, so re-offers cannot teach it; and a detector
// restored from a snapshot after the first offer (a crawler restarted) gives
// the same verdicts.
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
			for round := range 3 {
				kept := 0
				for i, p := range pages {
					if docs[i] == nil {
						if docs[i], err = neardup.NewDocument(&pipe, p.ID, p.URL, p.Raw); err != nil {
							t.Fatal(err)
						}
					} else {
						// A fresh Document each round: nothing cached.
						docs[i] = &neardup.Document{ID: docs[i].ID, Host: docs[i].Host, Page: docs[i].Page}
					}
					ms, added, err := det.MatchOrAdd(docs[i])
					if err != nil {
						t.Fatal(err)
					}
					if round == 0 {
						first[i] = added
						continue
					}
					if added {
						kept++
						continue
					}
					self := len(ms) > 0 && ms[0].ID == p.ID
					if first[i] != self {
						t.Errorf("round %d: %s kept first %v, now matches %v", round+1, p.ID, first[i], ms)
					}
				}
				if round > 0 && kept > 0 {
					t.Errorf("round %d kept %d new pages", round+1, kept)
				}
				if round == 0 {
					var buf bytes.Buffer
					if _, err := det.WriteTo(&buf); err != nil {
						t.Fatal(err)
					}
					det, _ = minhash.New(minhash.Options{})
					if _, err := det.ReadFrom(&buf); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}
