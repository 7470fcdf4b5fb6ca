package main

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/neardup/neardup/internal/docid"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/synth"
)

// writeCorpus makes a small labeled corpus: three distinct articles, a copy of
// the first with a changed footer, and a plain-text copy of the second.
func writeCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"Rivers carve valleys over thousands of years. Sediment settles where the current slows. Floods rebuild the banks each spring and move the channel across the plain. Farmers have always settled on these fertile plains.",
		"Compilers translate source code into machine instructions. Parsers build syntax trees from tokens. Optimisers remove redundant computations and allocate registers. Linkers join the object files into one program.",
		"Bees communicate the location of flowers by dancing. The angle of the dance points toward the food relative to the sun. Its duration tells the distance. Colonies split in spring when a new queen is raised.",
	}
	page := func(body, footer string) string {
		return "<html><body><p>" + strings.ReplaceAll(body, ". ", ".</p><p>") + "</p><footer>" + footer + "</footer></body></html>"
	}
	rows := []struct{ id, group, body string }{
		{"p1", "g1", page(texts[0], "Footer one")},
		{"p2", "g2", page(texts[1], "Footer one")},
		{"p3", "g1", page(texts[0], "Footer two")},
		{"p4", "g3", page(texts[2], "Footer one")},
		{"p5", "g2", texts[1]},
	}
	var m strings.Builder
	m.WriteString("id\turl\tgroup\tfile\n")
	for _, r := range rows {
		file := "pages/" + r.id + ".html"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(r.body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&m, "%s\thttp://example.org/%s\t%s\t%s\n", r.id, r.id, r.group, file)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.tsv"), []byte(m.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestEvaluateTSV(t *testing.T) {
	dir := writeCorpus(t)
	var out, errs bytes.Buffer
	if err := run([]string{"-corpus", dir, "-methods", "simhash,cascade", "-tsv"}, &out, &errs); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || lines[0] != header {
		t.Fatalf("output:\n%s", out.String())
	}
	for i, name := range []string{"simhash", "cascade"} {
		cols := strings.Split(lines[i+1], "\t")
		if len(cols) != 12 || cols[0] != name {
			t.Fatalf("row %q", lines[i+1])
		}
		// Two true duplicates (p3, p5), three originals: the counts add up.
		var tp, fp, tn, fn int
		fmt.Sscan(strings.Join(cols[1:5], " "), &tp, &fp, &tn, &fn)
		if tp+fn != 2 || fp+tn != 3 {
			t.Errorf("%s: tp=%d fp=%d tn=%d fn=%d, want tp+fn=2, fp+tn=3", name, tp, fp, tn, fn)
		}
		if tp != 2 || fp != 0 {
			t.Errorf("%s: tp=%d fp=%d on copies that differ only in a footer, want 2 and 0", name, tp, fp)
		}
	}
}

func TestEvaluateErrors(t *testing.T) {
	var out, errs bytes.Buffer
	if err := run(nil, &out, &errs); err == nil {
		t.Error("no -corpus accepted")
	}
	if err := run([]string{"-corpus", t.TempDir()}, &out, &errs); err == nil {
		t.Error("missing manifest accepted")
	}
	dir := writeCorpus(t)
	if err := run([]string{"-corpus", dir, "-methods", "nosuch"}, &out, &errs); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown method: %v", err)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "manifest.tsv"), []byte("name\tfile\n"), 0o644)
	if err := run([]string{"-corpus", bad}, &out, &errs); err == nil {
		t.Error("bad header accepted")
	}
}

func TestMetrics(t *testing.T) {
	r := result{tp: 8, fp: 2, tn: 85, fn: 5}
	for name, c := range map[string]struct{ got, want float64 }{
		"precision":   {r.precision(), 0.8},
		"recall":      {r.recall(), 8.0 / 13},
		"f1":          {r.f1(), 2 * 0.8 * (8.0 / 13) / (0.8 + 8.0/13)},
		"specificity": {r.specificity(), 85.0 / 87},
		"accuracy":    {r.accuracy(), 0.93},
	} {
		if d := c.got - c.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
	if (result{}).f1() != 0 || (result{}).precision() != 0 {
		t.Error("empty result: want zero metrics, not NaN")
	}
}

func TestEvaluateShingleForms(t *testing.T) {
	dir := writeCorpus(t)
	var out, errs bytes.Buffer
	for _, form := range []string{"equation", "table", "normalized"} {
		out.Reset()
		if err := run([]string{"-corpus", dir, "-methods", "shingle", "-sf", form, "-tsv"}, &out, &errs); err != nil {
			t.Fatalf("-sf %s: %v", form, err)
		}
		if !strings.HasPrefix(strings.Split(out.String(), "\n")[1], "shingle\t") {
			t.Errorf("-sf %s: output %q", form, out.String())
		}
	}
	if err := run([]string{"-corpus", dir, "-methods", "shingle", "-sf", "cosine"}, &out, &errs); err == nil {
		t.Error("-sf cosine accepted")
	}
}

// TestSampleCorpora streams the sample corpora that ship in testdata (real
// pages, see their READMEs) through every method at its defaults, as the
// README's command does, and checks that the shipped defaults stay accurate
// on them. The floors sit a little below what the methods measure today, so
// that a change to a default or to preprocessing that costs accuracy fails.
func TestSampleCorpora(t *testing.T) {
	floors := map[string]map[string]float64{ // corpus -> method -> least F1
		"en-sample": {"minhash": 0.98, "simhash": 0.95, "cascade": 0.95, "shingle": 0.95, "editdist-latin": 0.88, "kmodes": 0.93, "ssm": 0.94, "ssm-partitioned": 0.94},
		"zh-sample": {"minhash": 0.98, "simhash": 0.95, "cascade": 0.95, "shingle": 0.95, "editdist": 0.93, "kmodes": 0.95, "ssm": 0.95, "ssm-partitioned": 0.95},
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	all := newMethodSet(fs)
	for corpus, methods := range floors {
		pages, err := readCorpus(filepath.Join("testdata", corpus), 0)
		if err != nil {
			t.Fatal(err)
		}
		for name, floor := range methods {
			m, ok := all.lookup(name)
			if !ok {
				t.Fatalf("no method %q", name)
			}
			r, err := evaluate(m, pagesSource(corpus, pages), false)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: tp %d fp %d tn %d fn %d, F1 %.4f", corpus, name, r.tp, r.fp, r.tn, r.fn, r.f1())
			if r.errors > 0 || r.f1() < floor {
				t.Errorf("%s %s: F1 %.4f (floor %.2f), %d pages undecided (%v)", corpus, name, r.f1(), floor, r.errors, r.firstErr)
			}
		}
	}
}

// TestSweepTrialsPlot: -sweep and -trials print their rows; with the plot
// build tag -plot draws them, and without it -plot fails at once, saying
// how to build it.
func TestSweepTrialsPlot(t *testing.T) {
	dir := writeCorpus(t)
	var out, errs bytes.Buffer
	svg := filepath.Join(t.TempDir(), "sweep.svg")
	err := run([]string{"-corpus", dir, "-sweep", "simhash", "-tsv", "-plot", svg}, &out, &errs)
	if !canPlot {
		if err == nil || !strings.Contains(err.Error(), "go run -tags plot ./examples/evaluate") || out.Len() != 0 {
			t.Fatalf("-plot without the plot build tag: %v, output %q", err, out.String())
		}
		err = run([]string{"-corpus", dir, "-sweep", "simhash", "-tsv"}, &out, &errs)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 14 || !strings.HasPrefix(lines[1], "simhash T_B=2\t") {
		t.Errorf("sweep output:\n%s", out.String())
	}
	if b, err := os.ReadFile(svg); canPlot && (err != nil || !bytes.Contains(b, []byte("<svg"))) {
		t.Errorf("plot: %v, %d bytes", err, len(b))
	}
	out.Reset()
	png := filepath.Join(t.TempDir(), "trials.png")
	args := []string{"-corpus", dir, "-methods", "simhash,minhash", "-trials", "2", "-tsv"}
	if canPlot {
		args = append(args, "-plot", png)
	}
	if err := run(args, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 5 || !strings.Contains(lines[2], "trial=2/2 size=5 dd=2") {
		t.Errorf("trials output:\n%s", out.String())
	}
	if b, err := os.ReadFile(png); canPlot && (err != nil || !bytes.HasPrefix(b, []byte("\x89PNG"))) {
		t.Errorf("png plot: %v", err)
	}
	for _, bad := range [][]string{
		{"-corpus", dir, "-sweep", "nosuch"},
		{"-corpus", dir, "-plot", svg},
		{"-corpus", dir, "-sweep", "simhash", "-plot", "x.pdf"},
	} {
		if err := run(bad, &out, &errs); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// A duplicate matched to a page of another group is a wrong match, which
// counts against precision and recall.
func TestWrongMatch(t *testing.T) {
	r := result{tp: 8, fp: 1, tn: 80, fn: 1, wrong: 2}
	if p := r.precision(); p != 8.0/11 {
		t.Errorf("precision %v", p)
	}
	if q := r.recall(); q != 8.0/11 {
		t.Errorf("recall %v", q)
	}
}

// -synthetic streams a generated crawl: every near-duplicate of the crawl is
// counted once (tp, fn or wrong), and bad -synthetic values are errors.
func TestSynthetic(t *testing.T) {
	const n = 300
	var out, errs bytes.Buffer
	if err := run([]string{"-synthetic", fmt.Sprint(n), "-seed", "3", "-methods", "simhash,ssm-partitioned", "-tsv"}, &out, &errs); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	c, err := synth.New(synth.Options{Seed: 3, Pages: n})
	if err != nil {
		t.Fatal(err)
	}
	dups := 0
	for p := range c.All() {
		if p.Duplicate() {
			dups++
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s", out.String())
	}
	for _, line := range lines[1:] {
		cols := strings.Split(line, "\t")
		var tp, fp, tn, fn, wrong int
		fmt.Sscan(strings.Join(cols[1:5], " "), &tp, &fp, &tn, &fn)
		fmt.Sscan(cols[11], &wrong)
		if tp+fn+wrong != dups || tp+fp+tn+fn+wrong != n {
			t.Errorf("%s: tp %d fp %d tn %d fn %d wrong %d, want %d near-duplicates in %d pages", cols[0], tp, fp, tn, fn, wrong, dups, n)
		}
	}
	out.Reset()
	if err := run([]string{"-synthetic", "200", "-methods", "simhash", "-trials", "2", "-tsv"}, &out, &errs); err != nil || !strings.Contains(out.String(), "trial=2/2 size=200 ") {
		t.Errorf("-synthetic with -trials: %v\n%s", err, out.String())
	}
	for _, bad := range [][]string{
		{"-synthetic", "-5"},
		{"-synthetic", "10", "-corpus", writeCorpus(t)},
	} {
		if err := run(bad, &out, &errs); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// -digests prints one line per page in manifest order, the same on every
// run, and pages that preprocess differently get different digests.
func TestDigests(t *testing.T) {
	dir := writeCorpus(t)
	var outs [2]string
	for i := range outs {
		var out, errs bytes.Buffer
		if err := run([]string{"-corpus", dir, "-digests"}, &out, &errs); err != nil {
			t.Fatalf("%v\n%s", err, errs.String())
		}
		outs[i] = out.String()
	}
	if outs[0] != outs[1] {
		t.Fatalf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
	lines := strings.Split(strings.TrimSpace(outs[0]), "\n")
	seen := map[string]bool{}
	for i, line := range lines {
		d, id, ok := strings.Cut(line, " ")
		if !ok || len(d) != 64 || id != fmt.Sprintf("p%d", i+1) {
			t.Errorf("line %d = %q, want a SHA-256 and p%d", i, line, i+1)
		}
		seen[d] = true
	}
	if len(lines) != 5 || len(seen) != 5 {
		t.Errorf("%d lines, %d distinct digests; want 5 of each:\n%s", len(lines), len(seen), outs[0])
	}
}

// -hostsizes counts a corpus's hosts: here a generated crawl of 2,000 pages,
// whose host count and near-duplicates the generator gives too.
func TestHostSizes(t *testing.T) {
	var out, errs bytes.Buffer
	if err := run([]string{"-synthetic", "2000", "-hostsizes"}, &out, &errs); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want a header and one row:\n%s", len(lines), out.String())
	}
	f := strings.Fields(lines[1])
	src, _ := syntheticSource(2000, 1, "")
	hosts, dups := map[string]bool{}, 0
	for p := range src.all {
		hosts[docid.Host(p.url)] = true
		if p.dup {
			dups++
		}
	}
	if f[0] != "2000" || f[1] != fmt.Sprint(len(hosts)) || !strings.Contains(lines[1], fmt.Sprintf("%.1f %%", 100*float64(dups)/2000)) {
		t.Errorf("row %q, want 2000 pages, %d hosts, %.1f %% near-duplicates", lines[1], len(hosts), 100*float64(dups)/2000)
	}
}
