package editdist

import (
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agnivade/levenshtein"
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// TestDefinitions checks Definitions 1–3 and Properties 1–2 of An and Cheng
// (§IV.A, §IV.C) on small strings: edit (Definition 1) is Levenshtein's,
// m − n ≤ edit ≤ m (Property 1), LCC = m − edit (Definition 2) lies in
// [0, n] (Property 2), and the overlap factors are LCC/n and LCC/m
// (Definition 3).
func TestDefinitions(t *testing.T) {
	for _, c := range []struct {
		sour, dest string
		edit       int
	}{
		{"", "", 0},
		{"中", "中", 0},
		{"国", "中国", 1},           // Sour a subsequence of Dest: edit = m − n
		{"天地", "日月星", 3},         // totally different: edit = m
		{"我们是人", "我们不是人", 1},     // one insertion
		{"春夏秋冬", "春夏冬秋", 2},      // a transposition is two edits
		{"kitten", "sitting", 3}, // the textbook case
		{"中", "一二三四五六七八九中", 9},   // the paper's length 1 against length 10
	} {
		sour, dest := []rune(c.sour), []rune(c.dest)
		n, m := len(sour), len(dest)
		edit := Distance(sour, dest)
		if edit != c.edit {
			t.Errorf("edit(%q, %q) = %d, want %d", c.sour, c.dest, edit, c.edit)
		}
		if ref := levenshtein.ComputeDistance(c.sour, c.dest); edit != ref {
			t.Errorf("edit(%q, %q) = %d, agnivade %d", c.sour, c.dest, edit, ref)
		}
		if edit < m-n || edit > m {
			t.Errorf("Property 1: edit(%q, %q) = %d not in [m−n, m] = [%d, %d]", c.sour, c.dest, edit, m-n, m)
		}
		lcc := LCC(m, edit)
		if lcc != m-edit || lcc < 0 || lcc > n {
			t.Errorf("Property 2: LCC(%q, %q) = %d not in [0, n = %d]", c.sour, c.dest, lcc, n)
		}
		sf, df := OverlapFactors(lcc, n, m)
		if n > 0 && (sf != float64(lcc)/float64(n) || df != float64(lcc)/float64(m)) {
			t.Errorf("Definition 3: overlap factors of %q, %q = %v, %v", c.sour, c.dest, sf, df)
		}
	}
}

// TestLengthOneAgainstTen is the paper's example for β (§IV.C): a Sour of
// length 1 whose character occurs in a Dest of length 10 has
// OverlapFactor_Sour = 1 ≥ α, but only OverlapFactor_Dest = 0.1, so β
// keeps the pages apart. (The paper's text says "LCC(Sour, Dest) is 9":
// that is the edit distance; LCC is 1 by Definition 2 and Property 2.)
func TestLengthOneAgainstTen(t *testing.T) {
	sour, dest := []rune("中"), []rune("一二三四五六七八九中")
	edit := Distance(sour, dest)
	lcc := LCC(10, edit)
	sf, df := OverlapFactors(lcc, 1, 10)
	if edit != 9 || lcc != 1 || sf != 1 || df != 0.1 {
		t.Fatalf("edit %d, LCC %d, factors %v, %v; want 9, 1, 1, 0.1", edit, lcc, sf, df)
	}
	var th Thresholds
	if dup, _ := th.Duplicate(1, 10, edit, false); dup {
		t.Error("Definition 4 with the default β: a duplicate")
	}
	// Without β (β small enough) the shorter string alone would decide.
	if dup, _ := (Thresholds{Beta: 0.1}).Duplicate(1, 10, edit, false); !dup {
		t.Error("β = 0.1: not a duplicate, but OverlapFactor_Sour = 1 ≥ α and OverlapFactor_Dest = 0.1 ≥ β")
	}
}

// TestDefinition4 checks the decision's thresholds: α for pages of two
// hosts, α + ε for one host, β on the longer string.
func TestDefinition4(t *testing.T) {
	th := Thresholds{Alpha: 0.8, Beta: 0.5, Epsilon: 0.2}
	for _, c := range []struct {
		n, m, edit int
		same, want bool
	}{
		{10, 10, 2, false, true},  // LCC 8: 0.8 ≥ α
		{10, 10, 3, false, false}, // LCC 7: 0.7 < α
		{10, 10, 2, true, false},  // one host: α + ε = 1
		{10, 10, 0, true, true},   // identical
		{10, 12, 2, true, true},   // Sour a subsequence of Dest: LCC = n
		{10, 20, 10, false, true}, // LCC 10: 1 ≥ α, 0.5 ≥ β
		{10, 21, 11, false, false},
		{0, 5, 5, false, false}, // nothing to decide
	} {
		got, err := th.Duplicate(c.n, c.m, c.edit, c.same)
		if err != nil || got != c.want {
			t.Errorf("Duplicate(n %d, m %d, edit %d, same host %v) = %v, %v; want %v", c.n, c.m, c.edit, c.same, got, err, c.want)
		}
	}
	// No host rule: one host is like two.
	if got, _ := (Thresholds{Epsilon: NoHostRule}).Duplicate(10, 10, 2, true); !got {
		t.Error("NoHostRule: LCC 8 of 10 on one host is not a duplicate")
	}
}

func TestThresholdsInvalid(t *testing.T) {
	for _, th := range []Thresholds{
		{Alpha: 1.5}, {Alpha: -0.1}, {Beta: 0.9}, {Alpha: 0.5, Beta: 0.6}, {Beta: -1},
		{Alpha: 0.9, Epsilon: 0.2}, {Epsilon: 1.1},
	} {
		if _, err := th.Duplicate(3, 3, 0, false); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("%+v: err = %v, want ErrInvalidOption", th, err)
		}
		if _, err := New(Options{Thresholds: th}); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidOption", th, err)
		}
	}
	if _, err := New(Options{Extractor: Extractor{Feature: Han}}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("Feature without a Name: err = %v", err)
	}
	if _, err := New(Options{Extractor: Extractor{Terminators: "\xff"}}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("invalid UTF-8 terminators: err = %v", err)
	}
}

// TestDecideAgnivade is the property test of the bounded decision: on random
// and edited strings (Han, Latin, mixed, empty, very unequal lengths), for
// several thresholds and both host rules, Decide equals Definition 4 applied
// to agnivade's distance, and reports that distance when it decides
// "duplicate".
func TestDecideAgnivade(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ths := []Thresholds{{}, {Alpha: 0.9, Beta: 0.9, Epsilon: 0.1}, {Alpha: 0.6, Beta: 0.3}, {Alpha: 1, Beta: 1, Epsilon: NoHostRule}, {Alpha: 0.7, Beta: 0.7}}
	checked, dups := 0, 0
	for _, p := range pairs(r) {
		a, b := p[0], p[1]
		ref := levenshtein.ComputeDistance(string(a), string(b))
		for _, th := range ths {
			for _, same := range []bool{false, true} {
				want, err := th.Duplicate(len(a), len(b), ref, same)
				if err != nil {
					t.Fatal(err)
				}
				got, d, err := th.Decide(a, b, same)
				if err != nil {
					t.Fatal(err)
				}
				if got != want || (got && d != ref) {
					t.Fatalf("%+v same host %v: Decide(%q, %q) = %v, %d; reference %v, %d", th, same, string(a), string(b), got, d, want, ref)
				}
				checked++
				if got {
					dups++
				}
			}
		}
	}
	if dups == 0 || dups == checked {
		t.Fatalf("%d of %d decisions duplicates: the test does not exercise both answers", dups, checked)
	}
}

// chinesePage is a news page as fetched: navigation, advertisements, related
// links and a copyright line around an article whose sentences end in 。.
const chinesePage = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>新闻中心</title>
<script>var ad = "广告。";</script><style>.x{}</style></head><body>
<div class="nav"><a href="/">首页</a> | <a href="/news">新闻</a> | <a href="/sports">体育</a></div>
<div class="ad">限时优惠 立即购买！</div>
<div class="article"><h1>城市公园今日开放</h1>
<p>市政府今天宣布新公园正式开放。公园占地五十公顷，种植了上千棵树。</p>
<p>市民可以免费入园。开放时间为早上六点到晚上十点。(摄影: Li Wei.) 详见 2024.</p>
</div>
<ul class="related"><li>相关新闻：公园建设启动</li><li>图片报道</li></ul>
<div class="footer">版权所有 © 2024 新闻网 保留所有权利</div>
</body></html>`

// TestExtractChinesePage extracts the feature string of a Chinese page with
// its tags stripped only (no content extraction): only the article's
// 。-ended sentences count; navigation, ads, related links, copyright, the
// script's string and a 。 after a Latin letter or digit do not.
func TestExtractChinesePage(t *testing.T) {
	page, err := new(preprocess.Pipeline).Process([]byte(chinesePage))
	if err != nil {
		t.Fatal(err)
	}
	got := string(Extractor{}.Extract(page.Text))
	if want := "放树园点"; got != want {
		t.Fatalf("feature string %q, want %q (text %q)", got, want, page.Text)
	}
	got = string(Extractor{Terminators: ChineseTerminators}.Extract(page.Text))
	if want := "买放树园点"; got != want { // the ad comes first
		t.Fatalf("with ！？: feature string %q, want %q", got, want)
	}
}

func TestExtractLatin(t *testing.T) {
	text := `Visit example.com for more. Pi is 3.14 today! He said "Stop." Is it done? I.e. this... Well (ok.) Done`
	got := Latin().Extract(text)
	var want []rune
	for _, w := range []string{"more", "today", "stop", "done", "e", "ok"} {
		r, _ := Word(w, "")
		want = append(want, r)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Latin features of %q: %d runes %U, want %d %U", text, len(got), got, len(want), want)
	}
	// Case does not matter; the hashed runes are valid and outside the BMP.
	a, _ := Word("MORE", " ")
	if a != want[0] || a < 0x10000 || a > 0x10FFFF {
		t.Fatalf("Word(MORE) = %U, want %U in the supplementary planes", a, want[0])
	}
	if _, ok := Word("3", " "); ok {
		t.Fatal("a number is a word")
	}
	if _, ok := Word(strings.Repeat("x", 200), ""); !ok {
		t.Fatal("a long word yields nothing")
	}
}

// TestNoFeatures: a page without 。 (or of images only) cannot be decided:
// an error wrapping neardup.ErrNoFeatures, from Match, Add and MatchOrAdd.
func TestNoFeatures(t *testing.T) {
	det, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"Only English here.", `<p><img src="a.png"><img src="b.png"> 图片</p>`, "一二三，四五六"} {
		d, err := neardup.NewDocument(new(preprocess.Pipeline), "p", "", "", []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := det.Match(t.Context(), d); !errors.Is(err, neardup.ErrNoFeatures) {
			t.Errorf("Match(%q): err = %v, want ErrNoFeatures", raw, err)
		}
		if err := det.Add(t.Context(), d); !errors.Is(err, neardup.ErrNoFeatures) {
			t.Errorf("Add(%q): err = %v, want ErrNoFeatures", raw, err)
		}
		if _, _, err := det.MatchOrAdd(t.Context(), d); !errors.Is(err, neardup.ErrNoFeatures) {
			t.Errorf("MatchOrAdd(%q): err = %v, want ErrNoFeatures", raw, err)
		}
	}
	if det.Len() != 0 {
		t.Fatalf("Len = %d after undecidable pages", det.Len())
	}
}

// TestSameHost: two pages of one host that share most of a template's
// sentences but differ in content need α + ε; across hosts α suffices.
func TestSameHost(t *testing.T) {
	det, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	pipe := new(preprocess.Pipeline)
	doc := func(id, url, text string) *neardup.Document {
		d, err := neardup.NewDocument(pipe, id, url, "", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := "甲。乙。丙。丁。戊。己。庚。辛。壬。癸。"
	edited := "甲。乙。丙。丁。戊。己。庚。辛。子。丑。" // LCC 8 of 10
	if err := det.Add(t.Context(), doc("a", "http://news.example.cn/1", base)); err != nil {
		t.Fatal(err)
	}
	if ms, _ := det.Match(t.Context(), doc("b", "http://news.example.cn/2", edited)); len(ms) != 0 {
		t.Errorf("same host, LCC 8 of 10: matches %v, want none (α + ε = 1)", ms)
	}
	ms, _ := det.Match(t.Context(), doc("c", "http://mirror.example.com/1", edited))
	if len(ms) != 1 || ms[0].ID != "a" || ms[0].Score != 0.2 || ms[0].Measure != NonOverlap {
		t.Errorf("other host, LCC 8 of 10: matches %v, want a at 0.2", ms)
	}
}

// TestBagLowerBound checks the packed bag distance against counting rune by
// rune, and that it never exceeds the edit distance.
func TestBagLowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, p := range pairs(r) {
		a, b := p[0], p[1]
		ba, bb := bagOf(a), bagOf(b)
		var ca, cb [bagBuckets]int
		for _, x := range a {
			ca[bagBucket(x)]++
		}
		for _, x := range b {
			cb[bagBucket(x)]++
		}
		plus, minus, full := 0, 0, false
		for i := range ca {
			full = full || ca[i] > 127 || cb[i] > 127
			plus += max(ca[i]-cb[i], 0)
			minus += max(cb[i]-ca[i], 0)
		}
		want := max(plus, minus)
		if full {
			want = 0
		}
		got := ba.lowerBound(&bb)
		if got != want {
			t.Fatalf("lowerBound(%q, %q) = %d, want %d", string(a), string(b), got, want)
		}
		if d := Distance(a, b); got > d {
			t.Fatalf("lowerBound(%q, %q) = %d above the distance %d", string(a), string(b), got, d)
		}
	}
}

// sampleFeatures returns the feature strings of the first n pages of a sample
// corpus that ships with examples/evaluate, extracted with e.
func sampleFeatures(t *testing.T, corpus string, n int, e Extractor) [][]rune {
	t.Helper()
	dir := filepath.Join("..", "examples", "evaluate", "testdata", corpus)
	manifest, err := os.ReadFile(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var pipe preprocess.Pipeline
	var out [][]rune
	for _, line := range strings.Split(strings.TrimSpace(string(manifest)), "\n")[1:] {
		if len(out) == n {
			break
		}
		f, err := os.Open(filepath.Join(dir, strings.Split(line, "\t")[3]))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		page, err := pipe.Process(raw)
		if err != nil {
			continue
		}
		if s := e.Extract(page.Text); len(s) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// TestDecideRealStrings is the property test on real feature strings: every
// pair among the first pages of the sample corpora (Chinese with the Han
// feature, English with Latin's), its distance and its decision under the
// default thresholds, equal agnivade's distance put through Definition 4.
func TestDecideRealStrings(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 15
	}
	var th Thresholds
	for _, c := range []struct {
		corpus string
		e      Extractor
	}{{"zh-sample", Extractor{}}, {"en-sample", Latin()}} {
		fs := sampleFeatures(t, c.corpus, n, c.e)
		if len(fs) < n/2 {
			t.Fatalf("%s: %d pages with features", c.corpus, len(fs))
		}
		dups := 0
		for i := range fs {
			for j := range i {
				a, b := fs[i], fs[j]
				ref := levenshtein.ComputeDistance(string(a), string(b))
				if d := Distance(a, b); d != ref {
					t.Fatalf("%s pages %d, %d: Distance %d, agnivade %d", c.corpus, i, j, d, ref)
				}
				for _, same := range []bool{false, true} {
					want, _ := th.Duplicate(len(a), len(b), ref, same)
					got, d, _ := th.Decide(a, b, same)
					if got != want || (got && d != ref) {
						t.Fatalf("%s pages %d, %d (same host %v): Decide %v %d, reference %v %d", c.corpus, i, j, same, got, d, want, ref)
					}
					if got {
						dups++
					}
				}
			}
		}
		t.Logf("%s: %d feature strings, %d pairs, %d duplicate decisions", c.corpus, len(fs), len(fs)*(len(fs)-1)/2, dups)
	}
}

// TestMaxLength: an enormous page (over a million one-character sentences)
// keeps only the first MaxLength feature runes, so that comparing it costs a
// bounded time; NoLimit keeps them all; a negative MaxLength is invalid.
func TestMaxLength(t *testing.T) {
	text := strings.Repeat("中。国。", 1<<19) // 6 MB, 1,048,576 features
	d := &neardup.Document{ID: "huge", Page: &preprocess.Page{Text: text}}
	det, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := det.FeatureOf(d)
	if err != nil || len(f.String) != DefaultMaxLength {
		t.Fatalf("feature string of %d runes (%v), want DefaultMaxLength = %d", len(f.String), err, DefaultMaxLength)
	}
	if err := det.Add(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	d2 := &neardup.Document{ID: "huge2", Page: &preprocess.Page{Text: "国。" + text}}
	if ms, err := det.Match(t.Context(), d2); err != nil || len(ms) != 1 {
		t.Fatalf("Match of a shifted copy = %v, %v", ms, err)
	}
	small, _ := New(Options{MaxLength: 3})
	if f, _ := small.FeatureOf(d); string(f.String) != "中国中" {
		t.Fatalf("MaxLength 3: %q", string(f.String))
	}
	all, _ := New(Options{MaxLength: NoLimit})
	if f, _ := all.FeatureOf(&neardup.Document{ID: "x", Page: &preprocess.Page{Text: text[:60000]}}); len(f.String) != 10000 {
		t.Fatalf("NoLimit: %d runes, want 10000", len(f.String))
	}
	if _, err := New(Options{MaxLength: -2}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Fatalf("MaxLength -2: err = %v", err)
	}
}

// TestLookup checks that Lookup gives back the feature a page was kept with,
// and nothing for an ID that is not kept.
func TestLookup(t *testing.T) {
	det, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := neardup.NewDocument(new(preprocess.Pipeline), "a", "http://news.example.cn/1", "", []byte("甲。乙。丙。丁。"))
	if err != nil {
		t.Fatal(err)
	}
	if err := det.Add(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	want, err := det.FeatureOf(d)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := det.Lookup("a")
	if !ok || string(got.String) != string(want.String) || got.Host != want.Host {
		t.Errorf("Lookup(a) = %q %q, %v; want %q %q", string(got.String), got.Host, ok, string(want.String), want.Host)
	}
	if _, ok := det.Lookup("b"); ok {
		t.Error("Lookup(b) found a page that was never kept")
	}
}

// TestOptionsRoundTrip checks that New(det.Options()) makes the same
// detector: the same resolved options, ε = 0 included (NoHostRule, or α = 1
// leaving no room for ε), and the same decision on a same-host pair.
func TestOptionsRoundTrip(t *testing.T) {
	for _, o := range []Options{
		{},
		{Thresholds: Thresholds{Epsilon: NoHostRule}},
		{Thresholds: Thresholds{Alpha: PaperAlpha, Epsilon: PaperEpsilon}},
		{Thresholds: Thresholds{Alpha: 1}},
		{Thresholds: Thresholds{Alpha: 0.7, Beta: 0.5, Epsilon: NoHostRule}, MaxLength: NoLimit},
		{Extractor: Latin(), MaxLength: 100, Thresholds: Thresholds{Epsilon: 0.1}},
	} {
		det, err := New(o)
		if err != nil {
			t.Fatalf("New(%+v): %v", o, err)
		}
		got := det.Options()
		again, err := New(got)
		if err != nil {
			t.Fatalf("New(%+v.Options()) = %v", o, err)
		}
		if a, b := det.opts, again.opts; a.Thresholds != b.Thresholds || a.MaxLength != b.MaxLength ||
			a.Extractor.Name != b.Extractor.Name || a.Extractor.Terminators != b.Extractor.Terminators {
			t.Errorf("New(%+v): options in effect %+v, after a round trip %+v", o, a, b)
		}
		if again.Options().Thresholds != got.Thresholds {
			t.Errorf("New(%+v): Options() %+v, after a round trip %+v", o, got.Thresholds, again.Options().Thresholds)
		}
		// LCC 8 of 10 on one host: a duplicate iff α + ε ≤ 0.8.
		want, _ := det.opts.Thresholds.Duplicate(10, 10, 2, true)
		if dup, _ := again.opts.Thresholds.Duplicate(10, 10, 2, true); dup != want {
			t.Errorf("New(%+v): same-host LCC 8 of 10 duplicate = %v, after a round trip %v", o, want, dup)
		}
	}
	det, _ := New(Options{Thresholds: Thresholds{Epsilon: NoHostRule}})
	if got := det.Options().Thresholds.Epsilon; got != NoHostRule {
		t.Errorf("NoHostRule: Options().Thresholds.Epsilon = %v, want NoHostRule", got)
	}
	var zero Detector
	if got := zero.Options().Thresholds; got != (Thresholds{Alpha: DefaultAlpha, Beta: DefaultBeta, Epsilon: DefaultEpsilon}) {
		t.Errorf("zero Detector: Options().Thresholds = %+v, want the defaults", got)
	}
}
