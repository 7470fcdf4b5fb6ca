package preprocess

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// langPage is one labelled page of testdata/lang.
type langPage struct {
	lang   Language
	source string
	text   string
}

// readLangPages reads the labelled pages of testdata/lang (see its README):
// one gzipped file per language, named by its tag, each page a "== source"
// line and its text.
func readLangPages(t testing.TB) []langPage {
	t.Helper()
	files, err := filepath.Glob("testdata/lang/*.txt.gz")
	if err != nil || len(files) == 0 {
		t.Fatalf("no labelled pages in testdata/lang: %v", err)
	}
	var pages []langPage
	for _, name := range files {
		lang := Language(strings.TrimSuffix(filepath.Base(name), ".txt.gz"))
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		for sc.Scan() {
			line := sc.Text()
			if src, ok := strings.CutPrefix(line, "== "); ok {
				pages = append(pages, langPage{lang: lang, source: src})
				continue
			}
			if len(pages) == 0 {
				t.Fatalf("%s: text before the first page", name)
			}
			p := &pages[len(pages)-1]
			if isCJKLang(lang) {
				p.text += line // the lines of a CJK page are cut anywhere
			} else {
				p.text += line + "\n"
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return pages
}

func isCJKLang(l Language) bool { return l == Chinese || l == Japanese }

// cutWords returns the first n words of text: white-space separated
// words, or for Chinese and Japanese two characters a word.
func cutWords(l Language, text string, n int) string {
	if isCJKLang(l) {
		r := []rune(text)
		return string(r[:min(len(r), 2*n)])
	}
	return strings.Join(slices.Collect(func(yield func(string) bool) {
		for i, w := range strings.Fields(text) {
			if i == n || !yield(w) {
				return
			}
		}
	}), " ")
}

// langCuts are the page lengths, in words, at which TestDetectLanguageAccuracy
// measures; 0 is the whole page (200 words or more).
var langCuts = []int{0, 100, 50, 25, 10}

// langScore is DetectLanguage's outcome on one language's pages cut to one
// length.
type langScore struct{ right, wrong, undetermined int }

func (s langScore) n() int { return s.right + s.wrong + s.undetermined }

// scoreLanguages runs DetectLanguage on every labelled page at every cut.
func scoreLanguages(t testing.TB, pages []langPage) (map[Language][]langScore, []string) {
	scores := map[Language][]langScore{}
	var wrong []string
	for _, p := range pages {
		if scores[p.lang] == nil {
			scores[p.lang] = make([]langScore, len(langCuts))
		}
		for ci, n := range langCuts {
			text := p.text
			if n > 0 {
				text = cutWords(p.lang, text, n)
			}
			got := DetectLanguage(text)
			s := &scores[p.lang][ci]
			switch got {
			case p.lang:
				s.right++
			case Undetermined:
				s.undetermined++
			default:
				s.wrong++
				wrong = append(wrong, fmt.Sprintf("%s page %s cut to %d words: %s", p.lang, p.source, n, got))
			}
		}
	}
	return scores, wrong
}

// TestDetectLanguageAccuracy checks DetectLanguage's contract on the
// labelled pages of testdata/lang (at least 20 languages): on pages of 200
// words or more, each language is detected at an accuracy of 0.98 or more;
// on shorter cuts of them it answers the right language or Undetermined,
// wrongly on at most 2% of a language's pages. With -v it prints the table
// of docs/BENCHMARKS.md. It fails when a language's function words are
// dropped from detectLangs (its pages become Undetermined or another
// language) or when the confidence thresholds are loosened until related
// languages (da/no, es/ca/pt, cs/pl, ru/uk/bg/sr) are confused.
func TestDetectLanguageAccuracy(t *testing.T) {
	pages := readLangPages(t)
	scores, wrong := scoreLanguages(t, pages)
	langs := slices.Sorted(func(yield func(Language) bool) {
		for l := range scores {
			if !yield(l) {
				return
			}
		}
	})
	if len(langs) < 20 {
		t.Errorf("%d languages in testdata/lang, want at least 20", len(langs))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| language | pages | accuracy, 200+ words | 100 words: right / undetermined / wrong | 50 words | 25 words | 10 words |\n|---|---|---|---|---|---|---|\n")
	for _, l := range langs {
		sc := scores[l]
		fmt.Fprintf(&b, "| %s | %d | %.2f |", l, sc[0].n(), float64(sc[0].right)/float64(sc[0].n()))
		for _, s := range sc[1:] {
			fmt.Fprintf(&b, " %d / %d / %d |", s.right, s.undetermined, s.wrong)
		}
		b.WriteString("\n")
		if !isSupported(l) {
			t.Errorf("testdata/lang/%s: not a supported language", l)
		}
		if acc := float64(sc[0].right) / float64(sc[0].n()); acc < 0.98 {
			t.Errorf("%s: accuracy %.3f on pages of 200+ words, want >= 0.98", l, acc)
		}
		for ci, s := range sc {
			if float64(s.wrong) > 0.02*float64(s.n()) {
				t.Errorf("%s cut to %d words: %d of %d pages given a wrong language, want at most 2%% (Undetermined instead)", l, langCuts[ci], s.wrong, s.n())
			}
		}
	}
	t.Logf("DetectLanguage on testdata/lang:\n%s", b.String())
	for _, w := range wrong {
		t.Log("wrong: " + w)
	}
}

func TestDetectLangsIndexes(t *testing.T) {
	for _, c := range []struct {
		i int
		l Language
	}{{swedishIdx, Swedish}, {norwegianIdx, Norwegian}, {danishIdx, Danish}} {
		if detectLangs[c.i].lang != c.l {
			t.Errorf("detectLangs[%d] = %s, want %s", c.i, detectLangs[c.i].lang, c.l)
		}
	}
	if len(detectLangs) > 32 {
		t.Errorf("%d detectLangs: more than a uint32 mask holds", len(detectLangs))
	}
}
