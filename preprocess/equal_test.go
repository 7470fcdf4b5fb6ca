package preprocess

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/pages.golden from the current pipeline")

const goldenPagesFile = "testdata/pages.golden"

// goldenCases returns every input of the golden test: the testdata pages
// (whole and cut at odd places, with several option sets, through every
// entry point) and the fuzz seeds.
func goldenCases(t *testing.T) (names []string, digests []string) {
	t.Helper()
	pipelines := []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"nostem", Options{NoStem: true}},
		{"keepstop", Options{KeepStopWords: true}},
		{"fr", Options{Language: French}},
		{"zh", Options{Language: Chinese}},
		{"nocache-min1", Options{StemCacheSize: -1, MinTokenLen: 1, MaxTokenLen: 12}},
		{"extra", Options{ExtraStopWords: []string{"Function", "timestamp", "系统"}}},
	}
	type entry struct {
		name string
		f    func(*Pipeline, []byte) (*Page, error)
	}
	entries := []entry{
		{"Process", (*Pipeline).Process},
		{"ProcessContent-html", func(p *Pipeline, raw []byte) (*Page, error) { return p.ProcessContent(raw, "text/html") }},
		{"ProcessContent-text", func(p *Pipeline, raw []byte) (*Page, error) { return p.ProcessContent(raw, "text/plain") }},
	}
	add := func(name string, pg *Page, err error) {
		names = append(names, name)
		digests = append(digests, Digest(pg, err))
	}
	files := []string{
		"testdata/postgresql-functions-datetime.html",
		"testdata/debian-reference-virtualized-system.zh.html",
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(file)
		for _, pc := range pipelines {
			p, err := New(pc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				for run := range 2 { // the second run goes through the warm stem cache and pooled scratch
					pg, err := e.f(p, raw)
					add(fmt.Sprintf("%s/%s/%s/%d", base, pc.name, e.name, run), pg, err)
				}
			}
		}
		var p Pipeline
		for _, n := range []int{1, 7, 100, 1000, 4099, 10007, 33333, len(raw) - 1} {
			if n > len(raw) {
				continue
			}
			pg, err := p.ProcessContent(raw[:n], "text/html")
			add(fmt.Sprintf("%s/prefix-%d", base, n), pg, err)
			pg, err = p.ProcessContent(raw[len(raw)-n:], "text/html")
			add(fmt.Sprintf("%s/suffix-%d", base, n), pg, err)
		}
	}
	var p Pipeline
	for i, s := range fuzzSeeds {
		for _, e := range entries {
			pg, err := e.f(&p, []byte(s))
			add(fmt.Sprintf("seed-%02d/%s", i, e.name), pg, err)
		}
		add(fmt.Sprintf("seed-%02d/AppendHTMLText", i), &Page{Text: string(AppendHTMLText(nil, []byte(s)))}, nil)
	}
	return names, digests
}

// TestGoldenPages pins the pipeline's exact output (Text, Sentences, Tokens,
// Terms, Language) on the testdata pages and the fuzz seeds, so changes made
// for speed can be checked to change nothing. After an intended change of
// behaviour, regenerate with: go test ./preprocess -run GoldenPages -update
func TestGoldenPages(t *testing.T) {
	names, digests := goldenCases(t)
	if *updateGolden {
		var b strings.Builder
		for i := range names {
			fmt.Fprintf(&b, "%s %s\n", digests[i], names[i])
		}
		if err := os.WriteFile(goldenPagesFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(goldenPagesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		d, name, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("bad golden line %q", sc.Text())
		}
		want[name] = d
	}
	if len(want) != len(names) {
		t.Errorf("golden file has %d cases, test makes %d", len(want), len(names))
	}
	for i, name := range names {
		if want[name] != digests[i] {
			t.Errorf("%s: digest %s, golden %s", name, digests[i][:12], want[name][:min(12, len(want[name]))])
		}
	}
}
