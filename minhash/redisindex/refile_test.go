package redisindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/minhash/internal/judge"
	"github.com/neardup/neardup/preprocess"
)

// A page kept before its host's template was learnt is filed under the
// keys of its content then, template and all; once the template is learnt
// the Detector files it again under its own text's keys, which a reprint
// on another host shares. The repository keeps the keys it filed the page
// under, so the client counts the keys a page it gathers shares with the
// query as the Detector files it now (Judge.SharedKeys): the reprint is
// matched to the page, as the Detector matches it, on one slot and spread.
func TestRefiledKeys(t *testing.T) {
	words := func(r *rand.Rand, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%dq", r.IntN(50_000))
		}
		return strings.Join(w, " ")
	}
	page := func(paras ...string) []byte {
		return []byte("<html><body><article><p>" + strings.Join(paras, "</p><p>") + "</p></article></body></html>")
	}
	r := rand.New(rand.NewPCG(6, 7))
	// The host's template: paragraphs in every page of a.example, in its
	// content, ten times the article's text.
	var tmpl []string
	for range 10 {
		tmpl = append(tmpl, words(r, 40))
	}
	text := words(r, 40) // the first page's own text, reprinted on b.example
	type offer struct{ id, url string }
	var offers []offer
	raw := map[string][]byte{}
	add := func(id, url string, b []byte) {
		offers = append(offers, offer{id, url})
		raw[id] = b
	}
	add("a1", "https://a.example/1", page(append(tmpl[:5:5], append([]string{text}, tmpl[5:]...)...)...))
	// Three more pages of the host, each with text of its own twice the
	// template's (so that they are not near a1 and are kept), teach the
	// Detector the template.
	for i := 2; i <= 4; i++ {
		add(fmt.Sprint("a", i), fmt.Sprint("https://a.example/", i), page(append(tmpl[:5:5], append([]string{words(r, 800)}, tmpl[5:]...)...)...))
	}
	add("b1", "https://b.example/1", page(words(r, 8), text))

	ctx := context.Background()
	var pipe preprocess.Pipeline
	// matched offers the pages to det in order and returns the page each
	// was matched to.
	matched := func(t *testing.T, det neardup.MatchAdder) map[string]string {
		got := map[string]string{}
		for _, o := range offers {
			d, err := neardup.NewDocument(&pipe, o.id, o.url, "", raw[o.id])
			if err != nil {
				t.Fatal(err)
			}
			ms, _, err := det.MatchOrAdd(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) > 0 {
				got[o.id] = ms[0].ID
			}
		}
		return got
	}
	in, err := minhash.New(minhash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := matched(t, in)
	if want["b1"] != "a1" {
		t.Fatalf("the Detector matched b1 to %q, want a1 (the test's pages no longer make the case): %v", want["b1"], want)
	}
	// The case: of the keys a1 was filed under when kept (its host had no
	// template yet), b1 shares one, which the scripts gather it through
	// (the key is rare); as the Detector files a1 now, it shares more.
	j, err := judge.NewJudge(judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(id string) *judge.Record {
		d, err := neardup.NewDocument(&pipe, id, "https://"+id, "", raw[id])
		if err != nil {
			t.Fatal(err)
		}
		r, err := j.Record(d)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	query := j.QueryKeys(rec("b1"), nil)
	shared := 0
	for _, k := range j.Keys(rec("a1"), nil) {
		if slices.Contains(query, k) {
			shared++
		}
	}
	if shared != 1 {
		t.Fatalf("b1 shares %d of the keys a1 was first filed under, want 1 (the test's pages no longer make the case)", shared)
	}
	for _, spread := range []bool{false, true} {
		t.Run(fmt.Sprint("spread=", spread), func(t *testing.T) {
			det := repository(t, spread)
			got := matched(t, det)
			for _, o := range offers {
				if got[o.id] != want[o.id] {
					t.Errorf("%s matched %q, the Detector %q", o.id, got[o.id], want[o.id])
				}
			}
		})
	}
}
