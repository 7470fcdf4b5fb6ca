package preprocess

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// checkBlocks verifies the invariants of Page.Blocks: blocks are the lines
// of Text that hold a letter or digit, in order, and their token ranges
// tile Tokens. Only the first maxLines lines need a block.
func checkBlocks(t *testing.T, pg *Page, maxLines int) {
	t.Helper()
	lines := strings.Split(pg.Text, "\n")
	li, prev := 0, 0
	var toks []string
	for i, b := range pg.Blocks {
		for li < len(lines) && lines[li] != b.Text {
			if hasAlnum(lines[li]) && li < maxLines {
				t.Fatalf("line %d %q holds a letter or digit but is no block", li, lines[li])
			}
			li++
		}
		if li == len(lines) {
			t.Fatalf("block %d %q is not a line of Text (in order)", i, b.Text)
		}
		li++
		if !hasAlnum(b.Text) {
			t.Fatalf("block %d %q has no letter or digit", i, b.Text)
		}
		if b.End < prev || b.End > len(pg.Tokens) {
			t.Fatalf("block %d End %d after %d, %d tokens", i, b.End, prev, len(pg.Tokens))
		}
		if b.Kind > Contents || b.Links < 0 || b.Links > 1 {
			t.Fatalf("block %d kind %d links %v", i, b.Kind, b.Links)
		}
		toks = append(toks, pg.Tokens[prev:b.End]...)
		prev = b.End
	}
	for ; li < min(len(lines), maxLines); li++ {
		if hasAlnum(lines[li]) {
			t.Fatalf("line %d %q holds a letter or digit but is no block", li, lines[li])
		}
	}
	if !slices.Equal(toks, pg.Tokens) {
		t.Fatalf("block token ranges give %d tokens, want the %d of Tokens", len(toks), len(pg.Tokens))
	}
}

// checkLines verifies that appendHTMLText describes every line of the text
// it extracts.
func checkLines(t *testing.T, raw []byte) {
	t.Helper()
	var st structure
	st.reset(1 << 20)
	text := appendHTMLText(nil, raw, &st)
	want := 0
	if len(text) > 0 {
		want = strings.Count(string(text), "\n") + 1
	}
	if len(st.lines) != want {
		t.Fatalf("%d line descriptions for %d lines of %q", len(st.lines), want, text)
	}
	if got := AppendHTMLText(nil, raw); string(got) != string(text) {
		t.Fatalf("text with structure %q, without %q", text, got)
	}
}

func TestBlockKinds(t *testing.T) {
	type line struct {
		text string
		kind BlockKind
	}
	cases := []struct {
		name string
		in   string
		want []line
	}{
		{"elements", `<header><h1>Site</h1></header><nav><a href=/>Home</a></nav><main><p>Body text.</p></main>` +
			`<aside>Related stuff</aside><form><label>Find</label></form><footer>Copyright 2024</footer>`,
			[]line{{"Site", Header}, {"Home", Navigation}, {"Body text.", Content}, {"Related stuff", Aside}, {"Find", Form}, {"Copyright 2024", Footer}}},
		{"roles", `<div role="banner">Logo</div><div role=navigation>Menu item</div><div role="main"><p>Text</p></div>` +
			`<div role="complementary">Ad box</div><div role="search">Query</div><div role="contentinfo">Imprint</div>`,
			[]line{{"Logo", Header}, {"Menu item", Navigation}, {"Text", Content}, {"Ad box", Aside}, {"Query", Form}, {"Imprint", Footer}}},
		{"classes", `<div class="site-header">Brand</div><ul class="navbar"><li>One<li>Two</ul><div class="breadcrumbs">A › B</div>` +
			`<div class=content><p>Words here</p></div><div id="sidebar">Side</div><div class="sidebar-left">Left</div><div class="page-footer x footer">Legal</div>`,
			[]line{{"Brand", Header}, {"One", Navigation}, {"Two", Navigation}, {"A › B", Navigation}, {"Words here", Content}, {"Side", Aside}, {"Left", Aside}, {"Legal", Footer}}},
		{"article header is content", `<article><header><h1>Title</h1><p>By Ann</p></header><p>Story</p><footer>Tags: x</footer></article>`,
			[]line{{"Title", Content}, {"By Ann", Content}, {"Story", Content}, {"Tags: x", Content}}},
		{"section header is content", `<section><header>Part one</header><p>Text</p></section><header>Page head</header>`,
			[]line{{"Part one", Content}, {"Text", Content}, {"Page head", Header}}},
		{"main wins over an enclosing class", `<div class="sidebar-right"><p>Side note</p><main><p>Main text</p><nav>Page 2</nav></main></div>`,
			[]line{{"Side note", Aside}, {"Main text", Content}, {"Page 2", Navigation}}},
		{"docbook sidebar and anchors stay content", `<div class="sidebar"><p>Tip: a box</p></div><div class="sect2" id="FUNCTIONS-SEARCH"><p>Search functions</p></div><div class="entry-header">Post title</div>`,
			[]line{{"Tip: a box", Content}, {"Search functions", Content}, {"Post title", Content}}},
		{"table of contents", `<div class="toc"><p><b>Table of Contents</b></p><dl class="toc"><dt><a href="a.html">9.1. Alpha</a></dl></div>` +
			`<nav role="doc-toc"><a href="#b">Beta</a></nav><ul class="nav toc"><li><a href="c.html">Gamma</a></ul><p>Text</p>`,
			[]line{{"Table of Contents", Contents}, {"9.1. Alpha", Contents}, {"Beta", Contents}, {"Gamma", Navigation}, {"Text", Content}}},
		{"table of contents in a sidebar", `<div class="sphinxsidebar"><div class="toc-tree"><ul><li><a href="a.html">Alpha</a></ul></div></div>` +
			`<nav><div class="toc">Beta</div></nav><div class="body"><div class="toc"><span class="index-x">Gamma</span></div></div>`,
			[]line{{"Alpha", Aside}, {"Beta", Navigation}, {"Gamma", Contents}}},
		{"generator furniture by class only", `<div class="row docs-byline"><div class="docs-updated">updated: 2022-09-23</div></div>` +
			`<div class="col-lg-8 docs-license"><p>Licensed under CC-BY 3.0.</p></div><table class="index-fn"><tr><td><a href="#a">abs</a></td></tr></table>` +
			`<div id="license"><p>Section about the license</p></div><div class="post-byline">By Ann</div><div class="indexbox">I</div>`,
			[]line{{"updated: 2022-09-23", Header}, {"Licensed under CC-BY 3.0.", Footer}, {"abs", Contents},
				{"Section about the license", Content}, {"By Ann", Content}, {"I", Content}}},
		{"link list", `<ul><li><a href="/a">Alpha</a><li><a href="/b">Beta</a><li><a href="/c">Gamma</a></ul><p>After</p>`,
			[]line{{"Alpha", Navigation}, {"Beta", Navigation}, {"Gamma", Navigation}, {"After", Content}}},
		{"list of sentences with a link", `<ul><li>The first point is long enough <a href=x>here</a><li>Second point of the list</li><li><a href=y>Third</a></ul>`,
			[]line{{"The first point is long enough here", Content}, {"Second point of the list", Content}, {"Third", Content}}},
		{"two links are no list", `<ul><li><a href="/a">Alpha</a><li><a href="/b">Beta</a></ul>`,
			[]line{{"Alpha", Content}, {"Beta", Content}}},
		{"link list in main is content", `<main><ul><li><a href="/a">Alpha</a><li><a href="/b">Beta</a><li><a href="/c">Gamma</a></ul></main>`,
			[]line{{"Alpha", Content}, {"Beta", Content}, {"Gamma", Content}}},
		{"mixed line is content", `<p><span class="breadcrumb">Home</span> and the text of the page</p>`,
			[]line{{"Home and the text of the page", Content}}},
		{"page-wide form", `<form id="aspnetForm"><p>` + strings.Repeat("Long text of the page. ", 150) + `</p></form><form><p>Search</p></form>`,
			[]line{{strings.TrimSpace(strings.Repeat("Long text of the page. ", 150)), Content}, {"Search", Form}}},
		{"unclosed nav ends with the document", `<nav><p>One<p>Two`,
			[]line{{"One", Navigation}, {"Two", Navigation}}},
		{"stray end tags", `</nav></div><div class="menu">M</div></div><p>P`,
			[]line{{"M", Navigation}, {"P", Content}}},
		{"body class ignored", `<body class="has-sidebar nav-open"><p>Text</p></body>`,
			[]line{{"Text", Content}}},
	}
	var p Pipeline
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pg, err := p.ProcessContent([]byte(c.in), "text/html")
			if err != nil {
				t.Fatal(err)
			}
			checkBlocks(t, pg, DefaultMaxTokens/4)
			checkLines(t, []byte(c.in))
			var got []line
			for _, b := range pg.Blocks {
				got = append(got, line{b.Text, b.Kind})
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("blocks of %q\n got %v\nwant %v", c.in, got, c.want)
			}
		})
	}
}

func TestBlockLinks(t *testing.T) {
	var p Pipeline
	pg, err := p.ProcessContent([]byte(`<p>four <a href=x>link</a></p><p><a name=y>anchor</a> only</p>`), "text/html")
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Blocks) != 2 || pg.Blocks[0].Links != 0.5 || pg.Blocks[1].Links != 0 {
		t.Errorf("blocks %+v, want links 0.5 and 0 (an <a> without href is no link)", pg.Blocks)
	}
}

// TestBlockMain checks Block.Main: true for text inside an element that
// marks the main content, however it is marked, false for the text around
// it (an ikiwiki blog's sidebar of recent posts is a plain div) and for
// plain text.
func TestBlockMain(t *testing.T) {
	var p Pipeline
	cases := []struct {
		in   string
		want []bool
	}{
		{`<div class="sidebar"><p>Recent posts</p></div><div id="content"><p>The post itself.</p></div>`, []bool{false, true}},
		{`<main><p>Inside main</p></main><p>After main</p>`, []bool{true, false}},
		{`<article><h1>Title</h1><p>` + strings.Repeat("The body of the article. ", 12) + `</p></article><div>Related stories</div>`, []bool{true, true, false}},
		{`<div role="main"><p>Role main</p></div><div>Outside</div>`, []bool{true, false}},
		{`<div class="page-content">` + strings.Repeat("Page content ", 24) + `<span>and more</span></div>`, []bool{true}},
		{`<div><p>No main at all</p><p>Second</p></div>`, []bool{false, false}},
		// A class word or <article> marks main content only when it holds
		// about a paragraph (200 visible bytes): here a component's box.
		{`<div class="ui header"><div class="content">Account</div></div><div><p>The long unmarked text of the page, which is most of it.</p></div>`, []bool{false, false}},
		{`<div class="content">` + strings.Repeat("The forum post's text, a paragraph of it. ", 8) + `</div><div>Profile</div><div>` + strings.Repeat("The board's long unmarked rules and announcements. ", 10) + `</div>`, []bool{true, false, false}},
		// A strong mark (an id, <main>, role=main) wins: the <article>
		// teasers beside it are not main content.
		{`<main><p>Main text</p></main><aside><article>Teaser</article></aside><div><article>Another teaser</article></div>`, []bool{true, false, false}},
	}
	for _, c := range cases {
		pg, err := p.ProcessContent([]byte(c.in), "text/html")
		if err != nil {
			t.Fatal(err)
		}
		var got []bool
		for _, b := range pg.Blocks {
			got = append(got, b.Main)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Main of the blocks of %q = %v, want %v", c.in, got, c.want)
		}
	}
	pg, err := p.ProcessContent([]byte("Plain text\n\nis never main"), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range pg.Blocks {
		if b.Main {
			t.Errorf("plain text block %q has Main set", b.Text)
		}
	}
}

func TestBlocksPlainText(t *testing.T) {
	var p Pipeline
	pg, err := p.ProcessContent([]byte("Navigation Home\n\n--- | ---\n\nThe text of the page."), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	checkBlocks(t, pg, DefaultMaxTokens/4)
	if len(pg.Blocks) != 2 || pg.Blocks[0].Kind != Content || pg.Blocks[1].Kind != Content {
		t.Errorf("blocks %+v, want two Content blocks (the line without letters skipped)", pg.Blocks)
	}
}

// TestBlocksTestdata checks the block invariants on the real pages of
// testdata, with the default and a small token limit.
func TestBlocksTestdata(t *testing.T) {
	small, _ := New(Options{MaxTokens: 100})
	for _, f := range []string{"testdata/postgresql-functions-datetime.html", "testdata/debian-reference-virtualized-system.zh.html"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkLines(t, raw)
		for _, p := range []*Pipeline{new(Pipeline), small} {
			pg, err := p.ProcessContent(raw, "text/html")
			if err != nil {
				t.Fatal(err)
			}
			checkBlocks(t, pg, p.Options().maxLines())
			if len(pg.Blocks) < 20 {
				t.Errorf("%s: %d blocks", f, len(pg.Blocks))
			}
			var kinds [Contents + 1]int
			for _, b := range pg.Blocks {
				kinds[b.Kind]++
			}
			if kinds[Content] == 0 || kinds[Navigation] == 0 {
				t.Errorf("%s: blocks by kind %v, want content and navigation (navheader)", f, kinds)
			}
			if strings.Contains(f, "postgresql") && kinds[Contents] == 0 {
				t.Errorf("%s: blocks by kind %v, want contents (the chapter's toc)", f, kinds)
			}
		}
	}
}

func TestBlockKindString(t *testing.T) {
	for k, want := range map[BlockKind]string{Content: "content", Navigation: "navigation", Form: "form", Contents: "contents", 9: "BlockKind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}
