package preprocess

import (
	"slices"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
)

// Seed 004, Figs. 3-4: the sample input (from Khan et al.), its data-cleaning
// output (stop words and punctuation removed) and its Porter stems.
const (
	khanInput = "In this busy world, information in the web is growing tremendously as the volume of data is updated daily on web. And most of the people use the internet search engine to find and retrieve the information."
	khanFig3  = "busy information web growing tremendously volume data updated daily web people internet search engine retrieve information"
	khanFig4  = "busi inform web grow tremend volum data updat daili web peopl internet search engin retriev inform"
)

// TestSeed004Fig4Stems: the paper's stop-word-free text stems to exactly the
// printed stem sequence.
func TestSeed004Fig4Stems(t *testing.T) {
	p, err := New(Options{Language: English})
	if err != nil {
		t.Fatal(err)
	}
	pg, err := p.ProcessContent([]byte(khanFig3), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pg.Tokens, " "); got != khanFig4 {
		t.Errorf("stems of Fig. 3 output:\n got %s\nwant %s", got, khanFig4)
	}
}

// TestSeed004Fig3StopWords runs the paper's full input through stop-word
// removal (no stemming). The paper's list (~500 words) also drops "world",
// "use" and "find", which no standard English stop list (snowball's included)
// treats as stop words, so the default output keeps them; with those three as
// ExtraStopWords the output is exactly Fig. 3, and stemming it is Fig. 4.
func TestSeed004Fig3StopWords(t *testing.T) {
	p, _ := New(Options{Language: English, NoStem: true})
	pg, err := p.ProcessContent([]byte(khanInput), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	const wantDefault = "busy world information web growing tremendously volume data updated daily web people use internet search engine find retrieve information"
	if got := strings.Join(pg.Tokens, " "); got != wantDefault {
		t.Errorf("default stop list:\n got %s\nwant %s", got, wantDefault)
	}
	t.Logf("Khan et al.'s Fig. 3 also removes %q, %q, %q: not stop words in snowball's English list", "world", "use", "find")

	extra := []string{"world", "use", "find"}
	p, _ = New(Options{Language: English, NoStem: true, ExtraStopWords: extra})
	pg, _ = p.ProcessContent([]byte(khanInput), "text/plain")
	if got := strings.Join(pg.Tokens, " "); got != khanFig3 {
		t.Errorf("with ExtraStopWords %v:\n got %s\nwant %s", extra, got, khanFig3)
	}
	p, _ = New(Options{Language: English, ExtraStopWords: extra})
	pg, _ = p.ProcessContent([]byte(khanInput), "text/plain")
	if got := strings.Join(pg.Tokens, " "); got != khanFig4 {
		t.Errorf("full pipeline:\n got %s\nwant %s", got, khanFig4)
	}
	if len(pg.Sentences) != 2 {
		t.Errorf("sentences = %q, want 2", pg.Sentences)
	}
}

// TestPaperStemmingExamples checks the stemming examples of Zaheer et al. (§3.5)
// and Kumar and Govindarajulu (§3.1d) against snowball's English (Porter2) stemmer. The
// paper's claim and snowball's output agree on every one of them; the test
// asserts snowball's actual output and would report any disagreement.
func TestPaperStemmingExamples(t *testing.T) {
	cases := []struct {
		seed  string
		words []string
		paper string // the stem the paper claims
		want  string // snowball's actual output
	}{
		{"002", []string{"meetings", "meeting"}, "meet", "meet"},
		{"002", []string{"affects", "affection", "affecting"}, "affect", "affect"},
		{"002", []string{"closed", "closely", "closing"}, "close", "close"},
		{"000", []string{"orient", "oriented", "orientation"}, "orient", "orient"},
		{"000", []string{"runs", "run"}, "run", "run"},
	}
	var p Pipeline
	for _, c := range cases {
		for _, w := range c.words {
			if got := english.Stem(w, false); got != c.want {
				t.Errorf("seed %s: snowball stems %q to %q, want %q", c.seed, w, got, c.want)
			}
			if c.want != c.paper {
				t.Logf("seed %s: paper says %q -> %q, snowball gives %q", c.seed, w, c.paper, c.want)
			}
		}
		// Through the pipeline, all variants become one term.
		pg, err := p.ProcessContent([]byte(strings.Join(c.words, " ")), "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		want := []Term{{c.want, len(c.words)}}
		if !slices.Equal(pg.Terms, want) {
			t.Errorf("seed %s: terms of %v = %v, want %v", c.seed, c.words, pg.Terms, want)
		}
	}
}

// TestSeedStopWords: every stop word seeds 000 (§3.1c) and 004 (§3.1.1)
// name is an English stop word.
func TestSeedStopWords(t *testing.T) {
	kumar := []string{"is", "as", "it", "can", "an", "and", "by", "for", "from", "of", "the", "to", "with"}
	khan := []string{"a", "an", "the"}
	for _, w := range append(kumar, khan...) {
		if !IsStopWord(English, w) {
			t.Errorf("IsStopWord(en, %q) = false", w)
		}
	}
	for _, w := range []string{"web", "page", "information", "duplicate"} {
		if IsStopWord(English, w) {
			t.Errorf("IsStopWord(en, %q) = true", w)
		}
	}
}
