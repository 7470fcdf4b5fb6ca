package preprocess

import (
	"bytes"
	"strconv"

	"golang.org/x/net/html/atom"
)

// Block is one line of a Page's Text (the text of a block-level element, or
// a paragraph of plain text) with the analysed tokens it holds and what the
// markup says it is.
type Block struct {
	// Text is the line of Page.Text, without its '\n' (a sub-string of
	// Page.Text, not a copy).
	Text string
	// End ends the block's tokens: they are Page.Tokens[start:End], where
	// start is the End of the block before (0 for the first block). End
	// never exceeds len(Page.Tokens): once Options.MaxTokens is reached,
	// the blocks after hold no tokens.
	End int
	// Kind is what the markup marks the block as: Content, or a kind of
	// page furniture. Plain text is all Content.
	Kind BlockKind
	// Links is the share of the block's visible bytes (white space not
	// counted) inside links (<a href>), from 0 to 1; 0 for plain text.
	Links float32
	// Main reports whether the block's text lies, at least in part,
	// inside the element the markup marks as the page's main content:
	// <main>, role=main or an element whose id is a word such as content,
	// main or main-content; on a page without such a mark, <article> or an
	// element whose class is such a word, when what they mark holds at
	// least about a paragraph of Content text (200 visible bytes: a class
	// word may also name a component's small box, such as a header's
	// label). On a page that marks its main content,
	// the Content blocks outside it are usually a sidebar or a listing
	// around the text. False on pages that mark none and for plain text.
	Main bool
}

// BlockKind is what a page's markup says a block of text is. The zero value,
// Content, is the page's own text; the other kinds are page furniture, the
// text a site repeats around its pages.
//
// A kind comes from the HTML elements that enclose the block: their element
// names, their ARIA roles and the words of their class and id attributes
// (see Content, Navigation and the other constants for what each takes).
// Markup inside <main>, <article>, role=main or an element whose class or
// id is a word such as content, main or main-content is Content unless a
// nested element marks it otherwise, whatever encloses it, and a <header>
// or <footer> there (the article's own) stays Content. A line whose text lies
// partly in Content and partly in furniture is Content. The kinds are a
// hint read from markup, not a judgement of the text: a page without such
// markup is all Content.
type BlockKind uint8

const (
	// Content is text of the page itself.
	Content BlockKind = iota
	// Navigation is a navigation bar, menu, breadcrumb trail or pager:
	// <nav>, <menu>, role=navigation, menu or menubar, class words such
	// as nav, navbar, menu, breadcrumb(s) and pagination; and, outside
	// <main>/<article>, a list or table (ul, ol, dl, table) whose text is
	// mostly links: at least three links, at least 70 % of its text inside
	// them, at most 40 bytes of text per link on average.
	Navigation
	// Header is the page's banner: a <header> outside any <article>,
	// <section>, <main>, <aside> or <nav>, role=banner, or class words
	// such as header, masthead, banner and byline outside <main>/<article>.
	Header
	// Footer is the page's footer: a <footer> outside any <article>,
	// <section>, <main>, <aside> or <nav>, role=contentinfo, or class words
	// such as footer, foot, colophon, license and copyright outside
	// <main>/<article>.
	Footer
	// Aside is a sidebar or related-links box: <aside>, role=complementary,
	// class words such as sidebar-left, sphinxsidebar and related. (A
	// class of just "sidebar" is DocBook's in-text box and stays Content.)
	Aside
	// Form is a form or search box: <form>, role=search, class words
	// search and searchbox. A form holding more than 2 KB of text is taken
	// for a wrapper around the whole page (as ASP.NET pages have) and its
	// text keeps the kind around it.
	Form
	// Contents is a table of contents or a book's index: role=doc-toc,
	// class words toc and index (texinfo's index-fn), unless inside
	// furniture (a sidebar's toc is the sidebar's). It has a kind of its
	// own because the markup does not tell whose contents it lists: a
	// manual's table of contents beside every page lists the site's
	// (furniture every page repeats), a chapter page of DocBook, texinfo or
	// Sphinx lists its own sections (the page's outline, often most of its
	// text).
	Contents
)

var blockKindNames = [...]string{"content", "navigation", "header", "footer", "aside", "form", "contents"}

// String returns the kind's lower-case name ("content", "navigation", ...).
func (k BlockKind) String() string {
	if int(k) < len(blockKindNames) {
		return blockKindNames[k]
	}
	return "BlockKind(" + strconv.Itoa(int(k)) + ")"
}

// Thresholds of the structure rules (see BlockKind).
const (
	maxStack         = 256  // open elements tracked; deeper ones are not
	linkListMinLinks = 3    // links a link list holds at least
	linkListDensity  = 0.7  // share of a link list's text inside links
	linkListPerLink  = 40   // bytes of text per link, at most, on average
	formWrapperBytes = 2048 // a form with more text wraps the page
)

// mainMark is how strongly the markup marks text as the page's main
// content (Block.Main).
type mainMark uint8

const (
	markNone mainMark = iota
	// markWeak: inside <article> or an element whose class names main
	// content (content, main-content, entry-content, ...): words a
	// component may also use for a box of its own.
	markWeak
	// markStrong: inside <main>, role=main or an element whose id names
	// main content (ids are unique to a page).
	markStrong
)

// lineInfo is what the markup said about one line of extracted text.
type lineInfo struct {
	kind    BlockKind
	mark    mainMark // the strongest main-content mark over its text
	vis     int32    // visible bytes (white space not counted)
	linkVis int32    // visible bytes inside <a href>
	links   int32    // links with visible text
}

// openElem is an element on structure's stack.
type openElem struct {
	a         atom.Atom
	kind      BlockKind // the kind of text inside (own or inherited)
	main      bool      // inside <main>, <article> or role=main
	mark      mainMark  // the strongest main-content mark around it
	section   bool      // inside article, section, main, aside or nav
	list      bool      // ul, ol, dl or table: a candidate link list
	form      bool      // a <form> or role=search that set kind Form itself
	firstLine int32     // len(lines) when the element opened
}

// structure follows the element stack while AppendHTMLText's scanner
// extracts text and records a lineInfo per line of the text. It keeps at
// most maxLines lines; the later ones are not described.
type structure struct {
	lines    []lineInfo
	stack    []openElem
	maxLines int
	full     bool      // maxLines reached: visible text is no longer counted
	kind     BlockKind // top().kind, kept at hand for visible
	inLink   bool      // inside <a href>
	newLink  bool      // inside <a href> that has shown no text yet
}

func (st *structure) reset(maxLines int) {
	st.lines, st.stack = st.lines[:0], st.stack[:0]
	st.maxLines, st.full, st.inLink, st.newLink = maxLines, false, false, false
	st.kind = Content
}

// top returns the innermost tracked element, or a zero openElem (Content,
// outside main) when there is none.
func (st *structure) top() openElem {
	if len(st.stack) == 0 {
		return openElem{}
	}
	return st.stack[len(st.stack)-1]
}

// newLine starts a line of text in the current context.
func (st *structure) newLine() {
	if len(st.lines) >= st.maxLines {
		st.full = true
		return
	}
	st.lines = appendDoubling(st.lines, lineInfo{kind: st.kind})
}

// visible counts n visible bytes written to the current line.
func (st *structure) visible(n int) {
	if st.full || len(st.lines) == 0 {
		return
	}
	l := &st.lines[len(st.lines)-1]
	if k := st.kind; k != l.kind && (k == Content || l.kind == Content) {
		l.kind = Content // text of the page and furniture on one line
	}
	l.vis += int32(n)
	if len(st.stack) > 0 {
		l.mark = max(l.mark, st.stack[len(st.stack)-1].mark)
	}
	if st.inLink {
		l.linkVis += int32(n)
		if st.newLink {
			l.links++
			st.newLink = false
		}
	}
}

// start handles a start tag with atom a and raw text raw.
func (st *structure) start(a atom.Atom, raw []byte, selfClosing bool) {
	if a == atom.A {
		// <a> cannot nest: a new one ends the one before.
		st.inLink = hasAttr(raw, "href")
		st.newLink = st.inLink
		return
	}
	if selfClosing || !tracked(a) {
		return
	}
	parent := st.top()
	e := openElem{a: a, kind: parent.kind, main: parent.main, mark: parent.mark, section: parent.section, firstLine: int32(len(st.lines))}
	own, main := elementKind(a, parent)
	var class, id, role []byte
	if len(raw) > 4 { // "<a b>": room for an attribute
		class, id, role = tagAttrs(raw)
	}
	mark := markNone
	if main {
		mark = markWeak // <article>, or <main> (strong below)
	}
	if k, m := roleKind(role); m {
		main, mark = true, markStrong
	} else if k != Content {
		own = k
	}
	if own == Content {
		switch {
		case a == atom.Main || mainName(id):
			main, mark = true, markStrong
		case mainName(class):
			main, mark = true, max(mark, markWeak)
		}
	}
	e.mark = max(e.mark, mark)
	if own == Content && !main && a != atom.Body && a != atom.Html {
		own = classKind(class)
		if own == Content {
			own = idKind(id)
		}
	}
	switch {
	case main:
		e.kind, e.main, e.section = Content, true, true
	case parent.main && (own == Header || own == Footer):
		// The article's own header or footer.
	case own == Contents && parent.kind != Content && parent.kind != Contents:
		// A table of contents in a sidebar or a menu is the sidebar's.
	case own != Content:
		e.kind = own
		e.form = own == Form && parent.kind != Form
	}
	switch a {
	case atom.Section, atom.Aside, atom.Nav:
		e.section = true
	case atom.Ul, atom.Ol, atom.Dl, atom.Table:
		e.list = true
	}
	if len(st.stack) < maxStack {
		st.stack = append(st.stack, e)
		st.kind = e.kind
	}
}

// end handles an end tag with atom a: the innermost open element a and the
// elements inside it are closed. An end tag without an open element is
// ignored.
func (st *structure) end(a atom.Atom) {
	if a == atom.A {
		st.inLink, st.newLink = false, false
		return
	}
	if !tracked(a) {
		return
	}
	for i := len(st.stack) - 1; i >= 0; i-- {
		if st.stack[i].a == a {
			for len(st.stack) > i {
				st.pop()
			}
			return
		}
	}
}

// finish closes the elements left open at the end of the document.
func (st *structure) finish() {
	for len(st.stack) > 0 {
		st.pop()
	}
}

// pop closes the innermost element, applying the link-list and form-wrapper
// rules to the lines it held.
func (st *structure) pop() {
	e := st.stack[len(st.stack)-1]
	st.stack = st.stack[:len(st.stack)-1]
	st.kind = st.top().kind
	lines := st.lines[min(int(e.firstLine), len(st.lines)):]
	switch {
	case e.list && e.kind == Content && !e.main:
		var vis, linkVis, links int64
		for _, l := range lines {
			if l.kind == Content {
				vis, linkVis, links = vis+int64(l.vis), linkVis+int64(l.linkVis), links+int64(l.links)
			}
		}
		if links >= linkListMinLinks && float64(linkVis) >= linkListDensity*float64(vis) && vis <= linkListPerLink*links {
			for i := range lines {
				if lines[i].kind == Content {
					lines[i].kind = Navigation
				}
			}
		}
	case e.form:
		var vis int64
		for _, l := range lines {
			vis += int64(l.vis)
		}
		if vis > formWrapperBytes {
			outer := st.top().kind
			for i := range lines {
				if lines[i].kind == Form {
					lines[i].kind = outer
				}
			}
		}
	}
}

// tracked reports whether the structure follows elements a: those with a
// required end tag that may enclose blocks. Void elements, elements whose
// end tag may be left out (p, li, td, ...), raw-text elements, inline
// formatting and unknown elements are not followed.
func tracked(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body,
		atom.Center, atom.Details, atom.Dialog, atom.Dir, atom.Div, atom.Dl,
		atom.Fieldset, atom.Figure, atom.Footer, atom.Form, atom.Header,
		atom.Hgroup, atom.Html, atom.Main, atom.Menu, atom.Nav, atom.Ol,
		atom.Section, atom.Table, atom.Ul, atom.Span, atom.Search:
		return true
	}
	return false
}

// elementKind returns the kind element a marks by its name, and whether it
// is main content (<main>, <article>).
func elementKind(a atom.Atom, parent openElem) (BlockKind, bool) {
	switch a {
	case atom.Nav, atom.Menu:
		return Navigation, false
	case atom.Aside:
		return Aside, false
	case atom.Form, atom.Search:
		return Form, false
	case atom.Header:
		if !parent.section {
			return Header, false
		}
	case atom.Footer:
		if !parent.section {
			return Footer, false
		}
	case atom.Main, atom.Article:
		return Content, true
	}
	return Content, false
}

// mainName reports whether a class or id attribute names the page's main
// text: one of its words is content, main, main-content, maincontent,
// page-content, entry-content, post-content or article-body.
func mainName(attr []byte) bool {
	for tok, rest := nextField(attr); tok != nil; tok, rest = nextField(rest) {
		if len(tok) > 16 {
			continue
		}
		var buf [16]byte
		switch string(lowerASCII(buf[:copy(buf[:], tok)])) {
		case "content", "main", "main-content", "maincontent", "main_content",
			"page-content", "entry-content", "post-content", "article-body":
			return true
		}
	}
	return false
}

// roleKind returns the kind an ARIA role attribute names, and whether it is
// role=main.
func roleKind(role []byte) (BlockKind, bool) {
	for r, rest := nextField(role); r != nil; r, rest = nextField(rest) {
		if len(r) > 16 {
			continue
		}
		var buf [16]byte
		switch string(lowerASCII(buf[:copy(buf[:], r)])) {
		case "navigation", "menu", "menubar":
			return Navigation, false
		case "doc-toc":
			return Contents, false
		case "banner":
			return Header, false
		case "contentinfo":
			return Footer, false
		case "complementary":
			return Aside, false
		case "search":
			return Form, false
		case "main":
			return Content, true
		}
	}
	return Content, false
}

// classKind returns the kind the first telling word of a class attribute
// names (nameKind, classOnlyKind), or Content.
func classKind(class []byte) BlockKind {
	for tok, rest := nextField(class); tok != nil; tok, rest = nextField(rest) {
		if k := nameKind(tok); k != Content {
			return k
		}
		if k := classOnlyKind(tok); k != Content {
			return k
		}
	}
	return Content
}

// classOnlyKind returns the kind a class word names that, as an id, is a
// section's anchor instead (a "License" section's id is license, Sphinx's
// index entries' are index-0, index-1): a part license, licence or
// copyright names Footer (openstackdocstheme's docs-license), byline
// Header (docs-byline, with the page's date), and index as the first of at
// most two parts Contents (a book's index: texinfo's index-fn). A part
// that makes nameKind name nothing makes it name nothing too.
func classOnlyKind(tok []byte) BlockKind {
	if len(tok) > 32 {
		return Content
	}
	var buf [32]byte
	w := lowerASCII(buf[:copy(buf[:], tok)])
	best := Content
	for i := 0; len(w) > 0; i++ {
		part := w
		if j := bytes.IndexAny(w, "-_"); j >= 0 {
			part, w = w[:j], w[j+1:]
		} else {
			w = nil
		}
		k := Content
		switch string(part) {
		case "license", "licence", "copyright":
			k = Footer
		case "byline":
			k = Header
		case "index":
			if i == 0 && !bytes.ContainsAny(w, "-_") {
				k = Contents
			}
		default:
			if partKind(part) == kindExcluded {
				return Content
			}
		}
		if k != Content && (best == Content || k < best) {
			best = k
		}
	}
	return best
}

// idKind returns the kind an id names. Ids are section anchors in much of
// the web ("FUNCTIONS-SEARCH", "_searching_on_the_package"), so only a
// short lower-case id of at most three words is read, as a class word is.
func idKind(id []byte) BlockKind {
	if len(id) == 0 || len(id) > 24 || bytes.Count(id, []byte("-"))+bytes.Count(id, []byte("_")) > 2 {
		return Content
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || c == '-' || c == '_' || '0' <= c && c <= '9') {
			return Content
		}
	}
	if string(id) == "sidebar" {
		return Aside
	}
	return nameKind(id)
}

// nameKind returns the kind one class or id word names. The word is split
// at '-' and '_'; a part such as "nav", "navbar", "menu", "breadcrumbs"
// marks Navigation (and any part starting "nav" or ending "nav" or
// "menu": navheader, topnav, megamenu), "toc" Contents, "footer" or
// "foot" Footer, "header", "head", "masthead" or "banner" Header, "sidebar" with another part,
// "side", "related" Aside, "search" Form. A word with a part naming the
// text itself (entry, post, article, content, section, page, card, table)
// or a state (has, with, no, is) names nothing: "entry-header",
// "page-header", "has-sidebar".
func nameKind(tok []byte) BlockKind {
	if len(tok) > 32 {
		return Content
	}
	var buf [32]byte
	w := buf[:len(tok)]
	copy(w, tok)
	w = lowerASCII(w)
	if string(w) == "sidebar" {
		return Content // DocBook's <sidebar>: a box in the text
	}
	best := Content
	for len(w) > 0 {
		i := bytes.IndexAny(w, "-_")
		part := w
		if i >= 0 {
			part, w = w[:i], w[i+1:]
		} else {
			w = nil
		}
		k := partKind(part)
		if k == kindExcluded {
			return Content
		}
		if k != Content && (best == Content || k < best) {
			best = k
		}
	}
	return best
}

// kindExcluded is partKind's answer for a part that makes the whole word
// name nothing.
const kindExcluded BlockKind = 255

func partKind(p []byte) BlockKind {
	switch string(p) {
	case "":
		return Content
	case "menu", "menubar", "breadcrumb", "breadcrumbs", "crumb", "crumbs", "pagination", "pager":
		return Navigation
	case "toc":
		return Contents
	case "footer", "foot", "colophon":
		return Footer
	case "header", "head", "masthead", "banner", "headerbar", "topbar":
		return Header
	case "sidebar", "side", "related":
		return Aside
	case "search", "searchbox", "searchform":
		return Form
	case "entry", "post", "article", "content", "section", "page", "card", "table", "has", "with", "no", "is":
		return kindExcluded
	}
	if bytes.HasPrefix(p, []byte("nav")) || bytes.HasSuffix(p, []byte("nav")) || bytes.HasSuffix(p, []byte("menu")) {
		return Navigation
	}
	if bytes.HasSuffix(p, []byte("sidebar")) {
		return Aside
	}
	return Content
}

// lowerASCII lower-cases the ASCII letters of b in place and returns it.
func lowerASCII(b []byte) []byte {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// tagAttrs returns the values of the class, id and role attributes of the
// raw start tag raw (sub-slices of raw, character references not decoded;
// nil when absent). Reading raw avoids the copies the Tokenizer's TagAttr
// makes of every attribute.
func tagAttrs(raw []byte) (class, id, role []byte) {
	for name, val, rest := nextAttr(raw, tagNameEnd(raw)); name != nil; name, val, rest = nextAttr(raw, rest) {
		switch {
		case equalFoldASCII(name, "class"):
			class = val
		case equalFoldASCII(name, "id"):
			id = val
		case equalFoldASCII(name, "role"):
			role = val
		}
	}
	return class, id, role
}

// hasAttr reports whether the raw start tag raw has the attribute name.
func hasAttr(raw []byte, name string) bool {
	for n, _, rest := nextAttr(raw, tagNameEnd(raw)); n != nil; n, _, rest = nextAttr(raw, rest) {
		if equalFoldASCII(n, name) {
			return true
		}
	}
	return false
}

// tagNameEnd returns the index just past the tag name of the raw tag raw.
func tagNameEnd(raw []byte) int {
	i := 1
	for i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	return i
}

// nextAttr reads the attribute at or after raw[i]: its name, its value
// (unquoted) and the index after it; name is nil when there are no more.
// It follows the HTML5 tokenizer's attribute states closely enough for
// class, id, role and href.
func nextAttr(raw []byte, i int) (name, val []byte, next int) {
	for i < len(raw) && (isTagSpace(raw[i]) || raw[i] == '/') {
		i++
	}
	if i >= len(raw) || raw[i] == '>' {
		return nil, nil, len(raw)
	}
	start := i
	i++ // an attribute name may start with '='
	for i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' && raw[i] != '=' {
		i++
	}
	name = raw[start:i]
	for i < len(raw) && isTagSpace(raw[i]) {
		i++
	}
	if i >= len(raw) || raw[i] != '=' {
		return name, nil, i
	}
	i++
	for i < len(raw) && isTagSpace(raw[i]) {
		i++
	}
	if i < len(raw) && (raw[i] == '"' || raw[i] == '\'') {
		q := raw[i]
		j := bytes.IndexByte(raw[i+1:], q)
		if j < 0 {
			return name, raw[i+1:], len(raw)
		}
		return name, raw[i+1 : i+1+j], i + 2 + j
	}
	start = i
	for i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '>' {
		i++
	}
	return name, raw[start:i], i
}

// nextField returns the first space-separated word of b and the rest after
// it; the word is nil when b has none. (bytes.Fields without allocating.)
func nextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && isTagSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return nil, nil
	}
	j := i
	for j < len(b) && !isTagSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

func isTagSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// equalFoldASCII reports whether b equals the lower-case ASCII s, ignoring
// ASCII case.
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
