package preprocess

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// AppendHTMLText appends the visible text of the HTML document src to dst and
// returns the extended buffer. It is the first stage of a Pipeline.
//
// The document is read with the streaming golang.org/x/net/html Tokenizer (no
// tree is built), so it survives any markup soup: unclosed or stray tags,
// attributes holding '>', <p> inside <table>, truncated documents.
//
//   - Dropped: comments, doctype, markup, and the content of script, style,
//     noscript, template, iframe, noembed, noframes and title (the title is
//     metadata, not body text, and mirrors often rewrite it).
//   - Character references (&amp;, &#233;, &nbsp;...) are decoded.
//   - Runs of white space (including U+00A0 and other Unicode spaces) become
//     one ' '. Block-level elements (p, div, br, li, h1-h6, table rows and
//     cells, pre, section, article, blockquote, dt, dd, ...) become one '\n'.
//     Inside pre, textarea and listing, line breaks are kept as '\n'.
//   - Soft hyphens (U+00AD) and byte-order marks are removed; invalid UTF-8
//     becomes U+FFFD, so the result is always valid UTF-8.
//
// The appended text never starts or ends with white space and never holds two
// consecutive separators.
func AppendHTMLText(dst, src []byte) []byte {
	return appendHTMLText(dst, src, nil)
}

// appendHTMLText is AppendHTMLText that also describes each line of the
// appended text in st when st is not nil.
func appendHTMLText(dst, src []byte, st *structure) []byte {
	w := textWriter{buf: dst, start: len(dst), st: st}
	z := html.NewTokenizer(bytes.NewReader(src))
	var (
		skipText  bool // the next text token is the content of a dropped raw-text element
		skipDepth int  // nesting of <template>
		preDepth  int  // nesting of pre-formatted elements
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// io.EOF: reading from memory has no other error.
			if st != nil {
				st.finish()
			}
			return w.buf
		case html.TextToken:
			if skipText || skipDepth > 0 {
				skipText = false
				continue
			}
			w.write(z.Text(), preDepth > 0)
		case html.StartTagToken, html.SelfClosingTagToken:
			skipText = false
			a := tagAtom(z.Raw())
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Iframe,
				atom.Noembed, atom.Noframes, atom.Title:
				// The tokenizer reads their content as one raw text token.
				skipText = true
			case atom.Template:
				if tt == html.StartTagToken {
					skipDepth++
				}
			case atom.Pre, atom.Listing, atom.Textarea:
				if tt == html.StartTagToken {
					preDepth++
				}
			}
			if skipDepth > 0 {
				continue
			}
			if st != nil {
				st.start(a, z.Raw(), tt == html.SelfClosingTagToken)
			}
			if isBlock(a) {
				w.brk = true
			} else if isSpacer(a) {
				w.space = true
			}
		case html.EndTagToken:
			skipText = false
			a := tagAtom(z.Raw())
			switch a {
			case atom.Template:
				if skipDepth > 0 {
					skipDepth--
				}
			case atom.Pre, atom.Listing, atom.Textarea:
				if preDepth > 0 {
					preDepth--
				}
			}
			if skipDepth == 0 {
				if isBlock(a) {
					w.brk = true
				}
				if st != nil {
					st.end(a)
				}
			}
		default: // comments, doctype
			skipText = false
		}
	}
}

// AppendPlainText appends the plain text src to dst, normalised as
// AppendHTMLText normalises text: runs of spaces and single line breaks
// become one ' ', a blank line (paragraph break) becomes one '\n', and the
// result is valid UTF-8 with no leading or trailing white space.
func AppendPlainText(dst, src []byte) []byte {
	w := textWriter{buf: dst, start: len(dst)}
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		line := src
		if i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			w.brk = true
			continue
		}
		w.space = true
		w.write(line, false)
	}
	return w.buf
}

// tagAtom returns the atom of the tag whose raw text is raw ("<DIV a=b>",
// "</p >"), or 0 for a name that is not a known atom. Reading the name from
// Raw avoids the copy the Tokenizer's TagName makes of every tag name.
func tagAtom(raw []byte) atom.Atom {
	i := 1 // skip '<'
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	var buf [16]byte
	n := 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		if n == len(buf) {
			return 0 // longer than any atom we act on
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return atom.Lookup(buf[:n])
}

// isBlock reports whether an element starts or ends a line of text.
func isBlock(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body,
		atom.Br, atom.Caption, atom.Center, atom.Dd, atom.Details, atom.Dialog,
		atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption,
		atom.Figure, atom.Footer, atom.Form, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Head, atom.Header, atom.Hgroup, atom.Hr, atom.Html,
		atom.Legend, atom.Li, atom.Listing, atom.Main, atom.Menu, atom.Nav,
		atom.Ol, atom.Option, atom.P, atom.Pre, atom.Section, atom.Summary,
		atom.Table, atom.Tbody, atom.Td, atom.Textarea, atom.Tfoot, atom.Th,
		atom.Thead, atom.Tr, atom.Ul, atom.Select, atom.Optgroup, atom.Plaintext,
		atom.Xmp:
		return true
	}
	return false
}

// isSpacer reports whether an inline element separates words (an image or a
// form control between two words renders as a gap).
func isSpacer(a atom.Atom) bool {
	switch a {
	case atom.Img, atom.Input, atom.Button, atom.Label, atom.Svg, atom.Video,
		atom.Audio, atom.Embed, atom.Object, atom.Canvas:
		return true
	}
	return false
}

// textWriter appends text with white space collapsed. Separators are kept
// pending and written only before the next visible character, so the text
// never starts or ends with one.
type textWriter struct {
	buf   []byte
	start int        // len(buf) when writing began: nothing before it is ours
	space bool       // a ' ' is pending
	brk   bool       // a '\n' is pending (wins over space)
	st    *structure // when not nil, told of every line and visible run
}

// sep writes the pending separator, if any, before a visible character.
func (w *textWriter) sep() {
	if len(w.buf) > w.start {
		if w.brk {
			w.buf = append(w.buf, '\n')
			if w.st != nil {
				w.st.newLine()
			}
		} else if w.space {
			w.buf = append(w.buf, ' ')
		}
	} else if w.st != nil {
		w.st.newLine() // the first line
	}
	w.brk, w.space = false, false
}

// write appends s. In pre mode '\n' is a line break rather than a space.
// Runs of visible characters are copied with one append.
func (w *textWriter) write(s []byte, pre bool) {
	for i := 0; i < len(s); {
		// Find the run of visible characters starting at i.
		j := i
		for j < len(s) {
			c := s[j]
			if c < utf8.RuneSelf {
				if c <= ' ' || c == 0x7f {
					break
				}
				j++
				continue
			}
			r, size := utf8.DecodeRune(s[j:])
			if !plainRune(r) || (r == utf8.RuneError && size == 1) {
				break
			}
			j += size
		}
		if j > i {
			w.sep()
			w.buf = append(w.buf, s[i:j]...)
			if w.st != nil {
				w.st.visible(j - i)
			}
			i = j
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf { // white space or DEL
			if pre && c == '\n' {
				w.brk = true
			} else {
				w.space = true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			w.sep()
			w.buf = utf8.AppendRune(w.buf, utf8.RuneError)
			if w.st != nil {
				w.st.visible(3)
			}
		case r == 0xAD || r == 0xFEFF: // soft hyphen, BOM / zero-width no-break space
		case r == 0x2028 || r == 0x2029:
			w.brk = true
		case isSpaceRune(r):
			w.space = true
		}
		i += size
	}
}

// plainRune reports whether write copies the non-ASCII rune r unchanged:
// it is not white space, a line or paragraph separator, a soft hyphen or a
// BOM. (Invalid bytes decode to utf8.RuneError, which the caller tells from a
// real U+FFFD by its size.)
func plainRune(r rune) bool {
	if r > 0x3000 && r < 0xFEFF { // CJK, Hangul and most other scripts
		return true
	}
	return !(r == 0xAD || r == 0xFEFF || r == 0x2028 || r == 0x2029 || isSpaceRune(r))
}

// isSpaceRune reports non-ASCII white space and invisible separators.
func isSpaceRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0xA0: // C1 controls, NEL, no-break space
		return true
	case r >= 0x2000 && r <= 0x200B: // en quad .. zero width space
		return true
	case r == 0x1680, r == 0x202F, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}
