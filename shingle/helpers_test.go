package shingle

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

var tagRe = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<!--.*?-->|<[^>]*>`)

// visibleText is a crude HTML-to-text for tests that must not depend on the
// preprocess package: tags, scripts and styles dropped, nothing decoded.
func visibleText(html []byte) string {
	return strings.Join(strings.Fields(tagRe.ReplaceAllString(string(html), " ")), " ")
}

// words lower-cases s and splits it into runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// testdataWords returns the words of the first n bytes of the visible text of
// testdata/name (all of it when n ≤ 0).
func testdataWords(tb testing.TB, name string, n int) []string {
	tb.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	text := visibleText(b)
	if n > 0 && n < len(text) {
		text = text[:n]
	}
	return words(text)
}

func doc(id string, tokens ...string) *neardup.Document {
	return &neardup.Document{ID: id, Page: &preprocess.Page{Tokens: tokens}}
}

// docWithVector returns a document whose vector for v.M() is v, as if its
// tokens had produced it (for the paper's tables, given as counts).
func docWithVector(tb testing.TB, id string, v *Vector) *neardup.Document {
	tb.Helper()
	d := doc(id)
	got, err := neardup.Feature(d, featureKey{v.M()}, func(*neardup.Document) (*Vector, error) { return v, nil })
	if err != nil || got != v {
		tb.Fatalf("seeding vector of %s: %v", id, err)
	}
	return d
}

// synthetic returns n token sequences drawn from a Zipf vocabulary: base
// pages of random lengths and, for a fraction of them, edited copies (token
// substitutions, deletions, insertions at a given rate), so that some pairs
// are near the threshold.
func synthetic(seed uint64, n, minLen, maxLen int) [][]string {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	z := rand.NewZipf(r, 1.1, 2, 50000)
	word := func() string { return fmt.Sprintf("w%d", z.Uint64()) }
	var out [][]string
	for len(out) < n {
		if len(out) > 0 && r.IntN(3) == 0 {
			src := out[r.IntN(len(out))]
			rate := []float64{0, 0.001, 0.005, 0.01, 0.03, 0.1}[r.IntN(6)]
			var cp []string
			for _, t := range src {
				switch x := r.Float64(); {
				case x < rate/3:
					cp = append(cp, word())
				case x < 2*rate/3:
				case x < rate:
					cp = append(cp, t, word())
				default:
					cp = append(cp, t)
				}
			}
			if len(cp) == 0 {
				cp = append(cp, word())
			}
			out = append(out, cp)
			continue
		}
		l := minLen + r.IntN(maxLen-minLen+1)
		ts := make([]string, l)
		for i := range ts {
			ts[i] = word()
		}
		out = append(out, ts)
	}
	return out
}
