package preprocess

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"",
	" ",
	"plain text. Two sentences!",
	"<p>Hello <b>world</b>.</p><script>x<y</script>",
	"<html><head><title>t</title></head><body><p>a<p>b<table><p>c</table>",
	"<a title='>'>x</a><!-- c --><!DOCTYPE><![CDATA[x]]>",
	"通过使用虚拟系统，我们能在单个机器上同时运行多个系统。",
	"Linux内核2.6版本 e.g. Dr. Smith 3.14 U.S. ÉCOLE",
	"<pre>\n\n</pre><textarea>a</textarea><template><p>x",
	"\xff\xfe<p>",
	"<meta charset=latin1><p>caf\xe9</p>",
	"<svg><title>icon</title></svg>&#0;&#xD800;&amp",
	"a\u2028b\u00a0c\u200bd\u00ade",
}

// blockSeeds exercise the block structure (FuzzProcess only: the golden
// digests cover fuzzSeeds).
var blockSeeds = []string{
	"<body class=x><header role=banner>H</header><nav class='menu'><ul><li><a href=/>a</a><li><a href=/b>b</a><li><a href=c>c</a></ul></nav>" +
		"<main><article><header>T</header><p>x <a href=y>y</a></p></article></main><aside id=sidebar>s</aside><form role=search>q</form><footer>f",
	"<div class=\"toc sidebar-left\" id=main-nav><span class=breadcrumb>a</span> b</div></div></span><table class=navheader><tr><td>p<td>n</table>",
	"<div class='docs-byline x'>u</div><nav role=doc-toc><dl class=toc><dt><a href=a>1.</a></dl></nav><table class='index-fn copyright_'><tr><td><a href=b>i</a></table><div class=INDEX-a-b>z",
}

// checkPage verifies the invariants every Page holds.
func checkPage(t *testing.T, pg *Page) {
	t.Helper()
	if pg.Text == "" || !utf8.ValidString(pg.Text) {
		t.Fatalf("bad Text %q", pg.Text)
	}
	if strings.TrimSpace(pg.Text) != pg.Text {
		t.Fatalf("Text not trimmed: %q", pg.Text)
	}
	for _, s := range pg.Sentences {
		if s == "" || strings.TrimSpace(s) != s || !utf8.ValidString(s) || !strings.Contains(pg.Text, s) {
			t.Fatalf("bad sentence %q", s)
		}
	}
	sum := 0
	inTerms := make(map[string]bool, len(pg.Terms))
	for i, term := range pg.Terms {
		inTerms[term.Text] = true
		if term.Text == "" || term.Count <= 0 || !utf8.ValidString(term.Text) {
			t.Fatalf("bad term %+v", term)
		}
		if i > 0 && compareTerms(pg.Terms[i-1], term) >= 0 {
			t.Fatalf("terms out of order: %v, %v", pg.Terms[i-1], term)
		}
		sum += term.Count
	}
	if sum != len(pg.Tokens) {
		t.Fatalf("term counts sum to %d, %d tokens", sum, len(pg.Tokens))
	}
	for _, tok := range pg.Tokens {
		if tok == "" || !utf8.ValidString(tok) {
			t.Fatalf("bad token %q", tok)
		}
		if !inTerms[tok] {
			t.Fatalf("token %q not among the terms", tok)
		}
	}
	if pg.Language != Undetermined && !isSupported(pg.Language) {
		t.Fatalf("language %q", pg.Language)
	}
	checkBlocks(t, pg, DefaultMaxTokens/4)
}

func FuzzProcess(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, s := range blockSeeds {
		f.Add([]byte(s))
	}
	var p Pipeline
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkLines(t, raw)
		for _, ct := range []string{"", "text/html", "text/plain"} {
			pg, err := p.ProcessContent(raw, ct)
			if err != nil {
				if pg != nil {
					t.Fatal("page with error")
				}
				if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrInvalidUTF8) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("unexpected error %v", err)
				}
				continue
			}
			checkPage(t, pg)
		}
	})
}

func FuzzScanSentences(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		data := []byte(text)
		rest := data
		for len(rest) > 0 {
			adv, tok, err := ScanSentences(rest, true)
			if err != nil || adv <= 0 || adv > len(rest) {
				t.Fatalf("ScanSentences(%q) = %d, %q, %v", rest, adv, tok, err)
			}
			if tok != nil {
				if len(tok) == 0 || len(trimSentence(tok)) != len(tok) {
					t.Fatalf("token %q not trimmed or empty", tok)
				}
				off := cap(rest) - cap(tok)
				if off < 0 || off+len(tok) > adv {
					t.Fatalf("token %q not within the advanced bytes", tok)
				}
			}
			rest = rest[adv:]
		}
		// Without EOF, it never advances past data or loops.
		adv, tok, _ := ScanSentences(data, false)
		if adv < 0 || adv > len(data) || (tok != nil && len(tok) == 0) {
			t.Fatalf("atEOF=false: %d %q", adv, tok)
		}
	})
}

// TestConcurrentProcess shares one Pipeline (and its stem cache) across
// goroutines; run with -race.
func TestConcurrentProcess(t *testing.T) {
	p, _ := New(Options{StemCacheSize: 64}) // tiny: shards fill and reset
	inputs := []string{
		"<p>Running runners ran quickly through the meetings.</p>",
		"Les chats mangeaient les souris dans la maison.",
		"通过使用虚拟系统，我们能在单个机器上同时运行多个系统。",
		"Databases store information; informational indexes inform queries.",
	}
	want := make([][]string, len(inputs))
	for i, in := range inputs {
		pg, err := p.Process([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = pg.Tokens
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				i := (g + n) % len(inputs)
				pg, err := p.Process([]byte(inputs[i]))
				if err != nil {
					t.Error(err)
					return
				}
				if !slices.Equal(pg.Tokens, want[i]) {
					t.Errorf("input %d: %q, want %q", i, pg.Tokens, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
