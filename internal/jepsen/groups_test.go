package jepsen

import (
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/simhash"
)

// The generated groups are what the checker takes them for: in process,
// each backend's detector keeps exactly one page of each group whatever
// member comes first, and no page is near a page of another group. A
// group whose copies one detector does not match would be reported as a
// group keeping two pages.
func TestGroups(t *testing.T) {
	groups := GroupsSpec{Seed: 41, Groups: 100, Members: 4}.Make(t)
	for name, newDet := range map[string]func() (neardup.MatchAdder, error){
		"minhash": func() (neardup.MatchAdder, error) { return minhash.New(minhash.Options{}) },
		"simhash": func() (neardup.MatchAdder, error) { return simhash.New(simhash.Options{MaxDistance: simhashDistance}) },
	} {
		for first := range 4 {
			det, err := newDet()
			if err != nil {
				t.Fatal(err)
			}
			for gi, g := range groups {
				for i := range g {
					d := g[(first+i)%len(g)]
					ms, added, err := det.MatchOrAdd(t.Context(), d)
					if err != nil {
						t.Fatal(err)
					}
					if added != (i == 0) {
						t.Errorf("%s: group %d, %s offered %d-th: added %v, matches %v", name, gi, d.ID, i+1, added, ms)
					}
					for _, m := range ms {
						if groupOf(m.ID) != groupOf(d.ID) {
							t.Errorf("%s: %s matches %s of another group", name, d.ID, m.ID)
						}
					}
				}
			}
		}
	}
}
