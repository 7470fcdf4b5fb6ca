package preprocess

import (
	"testing"
	"unicode/utf8"
)

func TestAppendHTMLText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "<p>Hello world</p>", "Hello world"},
		{"script style comment", "<p>a<script>var x = '<p>no</p>';</script>b</p><style>p{color:red}</style><!-- hidden -->c", "ab\nc"},
		{"noscript template", "<div>x<noscript>enable js</noscript><template><p>tpl</p></template>y</div>", "xy"},
		{"title dropped", "<html><head><title>T</title></head><body><h1>H</h1></body></html>", "H"},
		{"entities", "<p>caf&eacute; &amp; cr&#232;me&nbsp;br&#xFB;l&eacute;e &lt;tag&gt;</p>", "café & crème brûlée <tag>"},
		{"block breaks", "<h1>Title</h1><p>one</p><ul><li>a</li><li>b</li></ul>x<br>y", "Title\none\na\nb\nx\ny"},
		{"inline no break", "<p>hel<b>lo</b> <i>wor</i>ld</p>", "hello world"},
		{"whitespace collapse", "<p>  a \n\t b   </p>\n\n<p> c </p>", "a b\nc"},
		{"pre keeps lines", "<pre>line 1\nline 2</pre>", "line 1\nline 2"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>", "a\nb\nc"},
		{"unclosed tags", "<div><p>one<p>two<li>three", "one\ntwo\nthree"},
		{"p inside table", "<table><p>para</p><tr><td>cell</td></tr></table>", "para\ncell"},
		{"attribute with >", `<a title="a > b" href='x>y'>link</a> text`, "link text"},
		{"unclosed script", "<p>before</p><script>never closed", "before"},
		{"stray end tags", "</div></p>text</script></span>", "text"},
		{"soft hyphen", "<p>infor&shy;mation</p>", "information"},
		{"uppercase tags", "<P>a</P><SCRIPT>x</SCRIPT><BR>b", "a\nb"},
		{"truncated tag", "<p>text</p><div class=\"x", "text"},
		{"no text", "<html><head><title>t</title><script>s</script></head><body> <!-- c --> </body></html>", ""},
		{"cdata and doctype", "<!DOCTYPE html><p>a</p>", "a"},
		{"image spacer", "word<img src=x>word", "word word"},
		{"cjk", "<p>第一段。</p><p>第二段</p>", "第一段。\n第二段"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(AppendHTMLText(nil, []byte(c.in)))
			if got != c.want {
				t.Errorf("AppendHTMLText(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestAppendHTMLTextAppends(t *testing.T) {
	got := string(AppendHTMLText([]byte("prefix"), []byte("<p>x</p>")))
	if got != "prefixx" {
		t.Errorf("got %q, want %q", got, "prefixx")
	}
}

func TestAppendHTMLTextInvalidUTF8(t *testing.T) {
	got := AppendHTMLText(nil, []byte("<p>a\xffb</p>"))
	if !utf8.Valid(got) || string(got) != "a\uFFFDb" {
		t.Errorf("got %q", got)
	}
}

func TestAppendPlainText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"one\ntwo", "one two"},
		{"para one\nstill one\n\npara two", "para one still one\npara two"},
		{"  \r\n a\t\tb \r\n\r\n\r\n c  ", "a b\nc"},
		{"", ""},
		{" \n\t\n", ""},
	}
	for _, c := range cases {
		if got := string(AppendPlainText(nil, []byte(c.in))); got != c.want {
			t.Errorf("AppendPlainText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
