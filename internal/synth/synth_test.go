package synth

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

func newCrawl(t testing.TB, o Options) *Crawl {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDeterministic(t *testing.T) {
	o := Options{Seed: 7, Pages: 400}
	a, b := newCrawl(t, o), newCrawl(t, Options{Seed: 7, Pages: 400, HostCache: 3})
	other := newCrawl(t, Options{Seed: 8, Pages: 400})
	same := 0
	for i := 0; ; i++ {
		p, ok1 := a.Next()
		q, ok2 := b.Next()
		r, _ := other.Next()
		if ok1 != ok2 {
			t.Fatalf("page %d: one crawl ended", i)
		}
		if !ok1 {
			break
		}
		if !bytes.Equal(p.HTML, q.HTML) || p.ID != q.ID || p.URL != q.URL || p.Group != q.Group || p.Kind != q.Kind || p.Original != q.Original {
			t.Fatalf("page %d differs between two crawls of one seed (one with a 3-host cache)", i)
		}
		if bytes.Equal(p.HTML, r.HTML) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d pages identical under seeds 7 and 8", same)
	}
}

// A crawl is a prefix of a longer one, and At, All and Next agree.
func TestPrefixAtAll(t *testing.T) {
	short, long := newCrawl(t, Options{Seed: 3, Pages: 60}), newCrawl(t, Options{Seed: 3, Pages: 500})
	var all []Page
	for p := range long.All() {
		all = append(all, p)
	}
	if len(all) != 500 {
		t.Fatalf("All yielded %d pages, want 500", len(all))
	}
	n := 0
	for p, ok := short.Next(); ok; p, ok = short.Next() {
		if !bytes.Equal(p.HTML, all[n].HTML) || p.ID != all[n].ID {
			t.Fatalf("page %d of a 60-page crawl differs from the 500-page crawl's", n)
		}
		n++
	}
	if n != 60 {
		t.Fatalf("Next gave %d pages, want 60", n)
	}
	if p, ok := long.At(321); !ok || !bytes.Equal(p.HTML, all[321].HTML) || p.Index != 321 {
		t.Error("At(321) differs from All's page 321")
	}
	for _, i := range []int{-1, 500} {
		if _, ok := long.At(i); ok {
			t.Errorf("At(%d) ok", i)
		}
	}
	short.Reset()
	if p, _ := short.Next(); p.Index != 0 {
		t.Errorf("after Reset, Next gave page %d", p.Index)
	}
}

// TestLabels checks the labels on a crawl of 4,000 pages: every
// near-duplicate's group starts at an earlier Distinct page, re-offers
// repeat an earlier page's bytes and ID, each kind keeps or changes host and
// URL as documented, and the kinds come in about the default shares.
func TestLabels(t *testing.T) {
	const n = 4000
	c := newCrawl(t, Options{Seed: 11, Pages: n})
	byID := map[string]Page{}
	var pages []Page
	count := map[Kind]int{}
	for p := range c.All() {
		count[p.Kind]++
		if p.Index != len(pages) {
			t.Fatalf("page %d has Index %d", len(pages), p.Index)
		}
		if !utf8Valid(p.HTML) || !bytes.HasPrefix(p.HTML, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(p.HTML, []byte("</html>")) {
			t.Fatalf("page %d: not a whole UTF-8 HTML page", p.Index)
		}
		if p.Kind == Distinct {
			if p.Group != p.Index || p.Original != "" || p.ID != label('p', p.Index) || p.Duplicate() {
				t.Fatalf("distinct page %d: group %d, original %q, id %s", p.Index, p.Group, p.Original, p.ID)
			}
		} else {
			if p.Group >= p.Index || pages[p.Group].Kind != Distinct || p.Original != pages[p.Group].ID || !p.Duplicate() {
				t.Fatalf("%s page %d: group %d (a %s page), original %q", p.Kind, p.Index, p.Group, pages[p.Group].Kind, p.Original)
			}
			orig := pages[p.Group]
			switch p.Kind {
			case Refetch, Edit:
				if p.URL != orig.URL || bytes.Equal(p.HTML, orig.HTML) {
					t.Errorf("%s page %d: URL %s (original %s), identical bytes %v", p.Kind, p.Index, p.URL, orig.URL, bytes.Equal(p.HTML, orig.HTML))
				}
			case Boilerplate, Swap:
				if p.Host != orig.Host || p.URL == orig.URL || !strings.HasPrefix(p.URL, orig.URL) {
					t.Errorf("%s page %d: URL %s, original %s", p.Kind, p.Index, p.URL, orig.URL)
				}
			case Retemplate:
				if p.Host == orig.Host || p.Lang != orig.Lang {
					t.Errorf("retemplate page %d: host %s (%s), original %s (%s)", p.Index, p.Host, p.Lang, orig.Host, orig.Lang)
				}
			}
		}
		if p.Kind == Reoffer {
			q, ok := byID[p.ID]
			if !ok || !bytes.Equal(q.HTML, p.HTML) || q.URL != p.URL || q.Group != p.Group {
				t.Fatalf("re-offer %d (%s): no earlier page with its ID and bytes", p.Index, p.ID)
			}
		} else if _, dup := byID[p.ID]; dup {
			t.Fatalf("page %d: ID %s used before", p.Index, p.ID)
		} else {
			byID[p.ID] = p
		}
		pages = append(pages, p)
	}
	dups := n - count[Distinct]
	if share := float64(dups) / n; math.Abs(share-DefaultDuplicates) > 0.02 {
		t.Errorf("near-duplicates: %.3f of the pages, want about %.2f", share, DefaultDuplicates)
	}
	mix := DefaultMix().weights()
	for k := Refetch; k < numKinds; k++ {
		if got := float64(count[k]) / float64(dups); math.Abs(got-mix[k]) > 0.05 {
			t.Errorf("%s: %.3f of the near-duplicates, want about %.2f", k, got, mix[k])
		}
	}
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// articleWords returns the words (Chinese: characters) of page i's article
// as the page shows it.
func articleWords(c *Crawl, i int) []string {
	kind, target := c.decide(i)
	root := i
	if kind != Distinct {
		root = c.root(target)
	}
	pr := stream(c.opts.Seed, streamPage, uint64(root))
	h := c.host(c.hostRank(&pr))
	var a article
	c.writeArticle(&a, root, h, kind, i)
	var words []string
	for _, k := range a.order {
		text := string(a.buf[a.paras[k][0]:a.paras[k][1]])
		if h.zh {
			for _, r := range text {
				words = append(words, string(r))
			}
		} else {
			words = append(words, strings.Fields(text)...)
		}
	}
	return words
}

func shingles(words []string) map[string]bool {
	s := map[string]bool{}
	for i := 0; i+3 <= len(words); i++ {
		s[strings.Join(words[i:i+3], " ")] = true
	}
	return s
}

func jaccard(a, b map[string]bool) float64 {
	in := 0
	for k := range a {
		if b[k] {
			in++
		}
	}
	return float64(in) / float64(len(a)+len(b)-in)
}

// kept is the share of a's words (as a multiset) that b keeps.
func kept(a, b []string) float64 {
	have := map[string]int{}
	for _, w := range b {
		have[w]++
	}
	k := 0
	for _, w := range a {
		if have[w] > 0 {
			have[w]--
			k++
		}
	}
	return float64(k) / float64(len(a))
}

// TestContent checks the articles: a near-duplicate keeps its original's
// text (an edit at least 85 % of its words, a swap all of them in another
// order), and distinct articles, also on one host, share next to no text.
func TestContent(t *testing.T) {
	c := newCrawl(t, Options{Seed: 5, Pages: 3000, Hosts: 40})
	byHost := map[int64][]int{}
	worstEdit, swapped := 1.0, 0
	for i := range c.opts.Pages {
		kind, target := c.decide(i)
		if kind == Distinct {
			pr := stream(c.opts.Seed, streamPage, uint64(i))
			k := c.hostRank(&pr)
			byHost[k] = append(byHost[k], i)
			continue
		}
		root := c.root(target)
		got, orig := articleWords(c, i), articleWords(c, root)
		switch kind {
		case Edit:
			k := kept(orig, got)
			worstEdit = min(worstEdit, k)
			if k < 0.85 || slices.Equal(got, orig) {
				t.Errorf("edit %d keeps %.3f of its original's words (identical: %v)", i, k, slices.Equal(got, orig))
			}
		case Swap:
			if kept(orig, got) != 1 || len(got) != len(orig) {
				t.Errorf("swap %d: not the original's words", i)
			}
			if !slices.Equal(got, orig) {
				swapped++
			}
		case Refetch, Retemplate, Boilerplate:
			if !slices.Equal(got, orig) {
				t.Errorf("%s %d: the article differs from its original's", kind, i)
			}
		}
	}
	if swapped == 0 {
		t.Error("no swap changed the order of its article")
	}
	t.Logf("edits keep at least %.3f of the words", worstEdit)
	pairs, worst := 0, 0.0
	for _, ids := range byHost {
		for x := 0; x+1 < len(ids) && x < 20; x++ {
			j := jaccard(shingles(articleWords(c, ids[x])), shingles(articleWords(c, ids[x+1])))
			worst = max(worst, j)
			pairs++
		}
	}
	if pairs < 100 || worst > 0.05 {
		t.Errorf("distinct articles on one host: %d pairs, 3-shingle Jaccard up to %.3f, want below 0.05", pairs, worst)
	}
	t.Logf("%d pairs of distinct articles on one host: 3-shingle Jaccard at most %.4f", pairs, worst)
}

// hostSizes streams n pages and returns the pages per host.
func hostSizes(t testing.TB, o Options) map[string]int {
	sizes := map[string]int{}
	c := newCrawl(t, o)
	for p, ok := c.Next(); ok; p, ok = c.Next() {
		sizes[p.Host]++
	}
	return sizes
}

type sizeStats struct {
	hosts   int
	under5  float64 // share of hosts with fewer than five pages
	largest int
	over100 int // hosts with more than 100 pages
}

func stats(sizes map[string]int) sizeStats {
	s := sizeStats{hosts: len(sizes)}
	for _, n := range sizes {
		if n < 5 {
			s.under5++
		}
		if n > 100 {
			s.over100++
		}
		s.largest = max(s.largest, n)
	}
	s.under5 /= float64(len(sizes))
	return s
}

// TestHostSizes checks the shape of the host sizes: a long tail (most hosts
// show fewer than five pages) and a head of large hosts, none of which
// holds more than a few per cent of the crawl; with Hosts, no more hosts
// than that.
func TestHostSizes(t *testing.T) {
	const n = 10000
	s := stats(hostSizes(t, Options{Seed: 1, Pages: n}))
	t.Logf("%d pages: %d hosts, %.3f with fewer than 5 pages, largest %d, %d with more than 100", n, s.hosts, s.under5, s.largest, s.over100)
	if s.hosts < n/10 || s.hosts > n/2 || s.under5 < 0.6 || s.largest > n/20 || s.largest < n/200 || s.over100 < 3 {
		t.Errorf("host sizes out of shape")
	}
	b := stats(hostSizes(t, Options{Seed: 1, Pages: 3000, Hosts: 50}))
	if b.hosts > 50 || b.hosts < 40 {
		t.Errorf("Hosts 50: %d hosts", b.hosts)
	}
}

func TestOptions(t *testing.T) {
	nan := math.NaN()
	tooMany := MaxPages
	tooMany++ // negative where int has 32 bits: invalid too
	for _, o := range []Options{
		{},
		{Pages: -1},
		{Pages: tooMany},
		{Pages: 10, Duplicates: 0.95},
		{Pages: 10, Duplicates: nan},
		{Pages: 10, Chinese: 1.5},
		{Pages: 10, Chinese: nan},
		{Pages: 10, Short: 2},
		{Pages: 10, Hosts: -1},
		{Pages: 10, ZipfExponent: 1},
		{Pages: 10, ZipfExponent: 0.5},
		{Pages: 10, ZipfExponent: 5},
		{Pages: 10, ZipfExponent: nan},
		{Pages: 10, ZipfOffset: -1},
		{Pages: 10, ZipfOffset: math.Inf(1)},
		{Pages: 10, MedianWords: 100},
		{Pages: 10, MedianWords: 6000},
		{Pages: 10, HostCache: -1},
		{Pages: 10, Mix: Mix{Edit: -1}},
		{Pages: 10, Mix: Mix{Swap: nan}},
		{Pages: 10, Mix: Mix{Swap: math.Inf(1)}},
		{Pages: 10, Text: 2},
		{Pages: 10, Text: -1},
	} {
		_, err := New(o)
		if !errors.Is(err, ErrInvalidOption) || !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): %v, want ErrInvalidOption (neardup's)", o, err)
		} else if n := strings.Count(err.Error(), "synth:"); !strings.HasPrefix(err.Error(), "synth: Options.") || n != 1 {
			t.Errorf("New(%+v): %q, want one \"synth: Options.\" prefix", o, err)
		}
		if err := WriteCorpus(t.TempDir(), o); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("WriteCorpus(%+v): %v, want ErrInvalidOption", o, err)
		}
	}
	c := newCrawl(t, Options{Pages: 1})
	if o := c.Options(); o.Duplicates != DefaultDuplicates || o.Chinese != DefaultChinese || o.Mix != DefaultMix() || o.ZipfExponent != DefaultZipfExponent || o.MedianWords != DefaultMedianWords || c.Len() != 1 {
		t.Errorf("defaults: %+v", o)
	}

	// Negative shares mean none; a one-kind mix gives that kind only.
	c = newCrawl(t, Options{Pages: 600, Duplicates: -1, Chinese: -1, Short: -1})
	for p := range c.All() {
		if p.Kind != Distinct || p.Lang != "en" || p.Words < 150 {
			t.Fatalf("page %d: %s, %s, %d words", p.Index, p.Kind, p.Lang, p.Words)
		}
	}
	c = newCrawl(t, Options{Pages: 600, Duplicates: 0.9, Chinese: 1, Short: 1, Mix: Mix{Swap: 1}})
	for p := range c.All() {
		if p.Kind != Distinct && p.Kind != Swap || p.Lang != "zh" || p.Words > 150*8/5+1 {
			t.Fatalf("page %d: %s, %s, %d words", p.Index, p.Kind, p.Lang, p.Words)
		}
	}
}

// Short articles (50–150 words) exist, and their template outweighs them.
func TestShortPages(t *testing.T) {
	c := newCrawl(t, Options{Seed: 2, Pages: 1000, Chinese: -1})
	short, heavier := 0, 0
	var lengths []int
	for p := range c.All() {
		if p.Kind != Distinct {
			continue
		}
		lengths = append(lengths, p.Words)
		if p.Words <= 150 {
			short++
			text := visibleWords(p.HTML)
			if text > 2*p.Words {
				heavier++
			}
		}
	}
	slices.Sort(lengths)
	median := lengths[len(lengths)/2]
	t.Logf("%d distinct pages: %d short, median %d words", len(lengths), short, median)
	if share := float64(short) / float64(len(lengths)); share < 0.1 || share > 0.2 || heavier != short {
		t.Errorf("short articles: %.3f of the pages (want about %.2f), %d of %d outweighed by their template", share, DefaultShort, heavier, short)
	}
	if median < 300 || median > 600 {
		t.Errorf("median article %d words", median)
	}
}

// visibleWords counts the words outside tags, scripts and styles.
func visibleWords(html []byte) int {
	n, script := 0, false
	s := string(html)
	for len(s) > 0 {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			i = len(s)
		}
		if !script {
			n += len(strings.Fields(s[:i]))
		}
		s = s[i:]
		j := strings.IndexByte(s, '>')
		if j < 0 {
			break
		}
		tag := s[:j+1]
		script = strings.HasPrefix(tag, "<script") || (script && !strings.HasPrefix(tag, "</script"))
		s = s[j+1:]
	}
	return n
}

func TestWriteCorpus(t *testing.T) {
	dir := t.TempDir()
	if err := WriteCorpus(dir, Options{Seed: 4, Pages: 300}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := newCrawl(t, Options{Seed: 4, Pages: 300})
	sc := bufio.NewScanner(f)
	sc.Scan()
	if sc.Text() != "id\turl\tgroup\tfile\tkind\toriginal" {
		t.Fatalf("header %q", sc.Text())
	}
	rows := 0
	for sc.Scan() {
		p, _ := c.Next()
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 6 || cols[0] != p.ID || cols[1] != p.URL || cols[2] != p.GroupLabel() || cols[4] != p.Kind.String() || cols[5] != p.Original {
			t.Fatalf("row %d: %q", rows, sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(dir, cols[3]))
		if err != nil || !bytes.Equal(b, p.HTML) {
			t.Fatalf("row %d: file %s: %v", rows, cols[3], err)
		}
		rows++
	}
	if rows != 300 {
		t.Errorf("%d rows, want 300", rows)
	}
}

func TestKindString(t *testing.T) {
	if Reoffer.String() != "reoffer" || Kind(99).String() != "kind(99)" || Distinct.String() != "distinct" {
		t.Error(Reoffer.String(), Kind(99).String())
	}
}

// With Text Bigram, 4-word phrases of article text recur across distinct
// pages: the share of a distinct English page's article 4-grams found in
// another distinct page is several times the Words crawl's (0.62 against
// 0.18, with the templates' paragraphs counted). (Catches a Bigram
// that does not follow the model, or a Text option that changes nothing.)
func TestBigramPhrasesRecur(t *testing.T) {
	shared := func(text Text) float64 {
		c := newCrawl(t, Options{Seed: 5, Pages: 400, Text: text, Chinese: -1, Duplicates: -1})
		pages := map[string]int{} // 4-gram -> distinct pages holding it
		total := 0
		var grams [][]string
		for p := range c.All() {
			var words []string
			for _, para := range strings.Split(string(p.HTML), "<p>")[1:] {
				para, _, _ = strings.Cut(para, "</p>")
				words = append(words, strings.Fields(strings.ToLower(para))...)
			}
			seen := map[string]bool{}
			for i := 0; i+4 <= len(words); i++ {
				g := strings.Join(words[i:i+4], " ")
				if !seen[g] {
					seen[g] = true
					pages[g]++
				}
			}
			var gs []string
			for g := range seen {
				gs = append(gs, g)
			}
			grams = append(grams, gs)
		}
		n := 0
		for _, gs := range grams {
			for _, g := range gs {
				total++
				if pages[g] > 1 {
					n++
				}
			}
		}
		return float64(n) / float64(total)
	}
	w, b := shared(Words), shared(Bigram)
	t.Logf("4-grams of a page found in another: words %.4f, bigram %.4f", w, b)
	if b < 2.5*w || b < 0.4 {
		t.Errorf("shared 4-grams: bigram %.4f, words %.4f: want bigram ≥ 2.5× words and ≥ 0.4", b, w)
	}
	if Bigram.String() != "bigram" || Words.String() != "words" {
		t.Errorf("Text names: %s, %s", Words, Bigram)
	}
}

// NewRecords: the same options give the same records; a planted record's
// word set is near the Jaccard similarity it was written for (within the
// rounding of one word of its source's); bad options are ErrInvalidOption.
// Catches a planted copy that replaces the wrong number of words.
func TestRecords(t *testing.T) {
	rs, err := NewRecords(RecordsOptions{Seed: 1, N: 3000})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := NewRecords(RecordsOptions{Seed: 1, N: 3000})
	if !slices.Equal(rs, again) {
		t.Error("NewRecords is not deterministic")
	}
	planted := 0
	for i, r := range rs {
		if r.Of < 0 {
			continue
		}
		planted++
		a, b := rs[r.Of].Elements(), r.Elements()
		if j := Jaccard(a, b); math.Abs(j-r.Planted) > 1/float64(len(a))+0.01 {
			t.Errorf("record %d: Jaccard %.3f with %d, planted at %.3f (%d words)", i, j, r.Of, r.Planted, len(a))
		}
	}
	if planted < 200 || planted > 400 {
		t.Errorf("%d planted records of 3000, want about 300", planted)
	}
	for _, o := range []RecordsOptions{{}, {N: 10, Planted: 0.95}, {N: 10, Planted: math.NaN()}} {
		if _, err := NewRecords(o); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("NewRecords(%+v): %v", o, err)
		}
	}
}
