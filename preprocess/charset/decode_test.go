package charset_test

import (
	"bytes"
	"errors"
	"mime"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	textunicode "golang.org/x/text/encoding/unicode"

	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/preprocess/charset"
)

// Texts in the languages of the legacy encodings.
const (
	zhHans = "近似重复网页检测是搜索引擎的重要问题。我们的爬虫每天抓取大量的网页，其中很多网页的内容几乎完全相同，只是广告、时间和导航栏有所不同。如果不去掉这些重复的网页，索引会变得很大，用户也会看到许多一样的结果。"
	zhHant = "這是一個測試頁面，我們用它來檢查編碼的偵測是否正確。網頁的內容包含了許多常用的漢字，例如我們、這個、時間、問題、學習和工作。搜尋引擎每天都要處理大量的網頁，其中有很多幾乎相同的頁面。"
	ja     = "これは文字コードの判定を確かめるためのテストページです。日本語の文章には、ひらがなとカタカナと漢字が混ざっています。私たちは毎日インターネットでたくさんのページを読みますが、その中にはほとんど同じ内容のページも多くあります。"
	ko     = "이것은 문자 인코딩 감지를 확인하기 위한 시험 페이지입니다. 우리는 매일 인터넷에서 많은 페이지를 읽습니다. 그중에는 거의 같은 내용의 페이지도 많이 있습니다."
	ru     = "Это тестовая страница для проверки определения кодировки. Мы читаем много страниц в интернете каждый день, и некоторые из них написаны в старых кодировках. Почти одинаковые страницы занимают место в индексе поисковой системы."
	en     = "Near-duplicate detection tells a crawler whether the page it just fetched nearly duplicates one it already keeps: mirrors, reprints, pages that differ only in ads."
)

// twins are the encodings of the legacy web with a text each can encode and
// the charset label a page declares.
var twins = []struct {
	label string
	enc   encoding.Encoding
	text  string
}{
	{"gbk", simplifiedchinese.GBK, zhHans},
	{"gb18030", simplifiedchinese.GB18030, zhHans},
	{"big5", traditionalchinese.Big5, zhHant},
	{"shift_jis", japanese.ShiftJIS, ja},
	{"euc-jp", japanese.EUCJP, ja},
	{"euc-kr", korean.EUCKR, ko},
	{"koi8-r", charmap.KOI8R, ru},
	{"windows-1251", charmap.Windows1251, ru},
	{"utf-16le", textunicode.UTF16(textunicode.LittleEndian, textunicode.IgnoreBOM), zhHans + en},
	{"utf-16be", textunicode.UTF16(textunicode.BigEndian, textunicode.IgnoreBOM), ru + en},
}

func htmlPage(meta, text string) string {
	r := []rune(text)
	return "<!DOCTYPE html><html><head>" + meta + "<title>t</title></head><body><h1>" +
		string(r[:8]) + "</h1><p>" + text + "</p><p>" + string(r[:len(r)/2]) + "</p></body></html>"
}

func encode(t *testing.T, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Pages in each legacy encoding, declared by the HTTP header, by <meta> and
// not at all, give the Page of their UTF-8 twin.
func TestDecodeTwins(t *testing.T) {
	var p preprocess.Pipeline
	for _, tw := range twins {
		want, err := p.Process([]byte(htmlPage(`<meta charset="utf-8">`, tw.text)))
		if err != nil {
			t.Fatal(err)
		}
		for _, how := range []string{"header", "meta", "undeclared"} {
			meta, ct := "", ""
			switch how {
			case "header":
				ct = "text/html; charset=" + strings.ToUpper(tw.label)
			case "meta":
				meta = `<meta http-equiv="Content-Type" content="text/html; charset=` + tw.label + `">`
			}
			raw := encode(t, tw.enc, htmlPage(meta, tw.text))
			if utf8.Valid(raw) && !strings.HasPrefix(tw.label, "utf-16") {
				t.Fatalf("%s: the encoded page is valid UTF-8; the test proves nothing", tw.label)
			}
			got, err := p.ProcessContent(raw, ct)
			if err != nil {
				t.Errorf("%s, %s: %v", tw.label, how, err)
				continue
			}
			if got.Text != want.Text || !slices.Equal(got.Terms, want.Terms) {
				t.Errorf("%s, %s: text %q, want %q", tw.label, how, trunc(got.Text), trunc(want.Text))
			}
		}
	}
}

func trunc(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// The charset Decode reports says where it came from.
func TestDecodeSources(t *testing.T) {
	gbk := encode(t, simplifiedchinese.GBK, htmlPage(`<meta charset="gbk">`, zhHans))
	for _, c := range []struct {
		raw        []byte
		ct         string
		name, from string
	}{
		{append([]byte("\xEF\xBB\xBF"), "<p>x</p>"...), "", "utf-8", "bom"},
		{encode(t, textunicode.UTF16(textunicode.LittleEndian, textunicode.UseBOM), "<p>x</p>"), "", "utf-16le", "bom"},
		{encode(t, textunicode.UTF16(textunicode.BigEndian, textunicode.UseBOM), "<p>x</p>"), "", "utf-16be", "bom"},
		{gbk, "text/html; charset=gb2312", "gbk", "header"},
		{gbk, "", "gbk", "meta"},
		{gbk, "text/html", "gbk", "meta"},
		{[]byte("<p>plain ascii</p>"), "", "utf-8", "default"},
		{encode(t, charmap.Windows1252, "<p>déjà vu, naïve café</p>"), "", "windows-1252", "detected"},
		// a declaration that fails on most of the page gives way to detection
		{encode(t, japanese.ShiftJIS, htmlPage(`<meta charset="utf-8">`, ja)), "", "shift_jis", "detected"},
	} {
		_, cs, err := charset.Decode(c.raw, c.ct, true)
		if err != nil || cs.Name != c.name || cs.Source != c.from {
			t.Errorf("Decode(%q…, %q) = %v, %v; want %s from %s", c.raw[:min(12, len(c.raw))], c.ct, cs, err, c.name, c.from)
		}
	}
}

// One bad byte, or a page cut in mid-character, costs a character, not the
// page: the terms stay those of the clean copy.
func TestDecodeDamage(t *testing.T) {
	var p preprocess.Pipeline
	clean := []byte(htmlPage(`<meta charset="utf-8">`, zhHans+en))
	want, err := p.Process(clean)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(clean, []byte("重复"))
	damaged := slices.Clone(clean)
	damaged[i+1] = 0xFF // inside 重
	cut := clean[:len(clean)-2]
	for _, c := range []struct {
		name string
		raw  []byte
	}{{"one bad byte", damaged}, {"cut mid-character", cut[:bytes.LastIndex(cut, []byte("检"))+1]}} {
		got, err := p.Process(c.raw)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !utf8.ValidString(got.Text) {
			t.Errorf("%s: text is not valid UTF-8", c.name)
		}
		shared := 0
		for _, term := range got.Terms {
			if slices.ContainsFunc(want.Terms, func(x preprocess.Term) bool { return x.Text == term.Text }) {
				shared++
			}
		}
		if frac := float64(shared) / float64(len(want.Terms)); frac < 0.9 {
			t.Errorf("%s: shares %.2f of the clean copy's terms", c.name, frac)
		}
	}
	// The GBK twin with a bad byte still decodes as GBK.
	gbk := encode(t, simplifiedchinese.GBK, htmlPage("", zhHans))
	gbk[len(gbk)/2] = 0xFF
	if _, cs, err := charset.Decode(gbk, "", true); err != nil || cs.Name != "gbk" && cs.Name != "gb18030" {
		t.Errorf("GBK with a bad byte: %v, %v", cs, err)
	}
}

// NUL and other control characters separate words like spaces; binary data
// is an error.
func TestDecodeControlsAndBinary(t *testing.T) {
	var p preprocess.Pipeline
	got, err := p.Process([]byte("<p>alpha\x00beta\x01gamma\x7fdelta</p>"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "alpha beta gamma delta" {
		t.Errorf("text %q", got.Text)
	}
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i * 7919 >> 3)
	}
	if _, err := p.Process(bin); !errors.Is(err, charset.ErrNotText) || !errors.Is(err, charset.ErrUndecodable) {
		t.Errorf("binary data: err = %v, want ErrNotText", err)
	}
	if _, _, err := charset.Decode([]byte("\x00\x01\x02\x03\x04\x05"), "", false); !errors.Is(err, charset.ErrNotText) {
		t.Errorf("control characters only: err = %v", err)
	}
	// Bytes that look like text but that even the best encoding found
	// cannot decode are ErrUndecodable, not ErrNotText (rare: the legacy
	// single-byte encodings decode every byte).
	if _, cs, err := charset.Decode([]byte("p\xb8\xf2\xc0\x7f"), "", true); !errors.Is(err, charset.ErrUndecodable) || errors.Is(err, charset.ErrNotText) {
		t.Errorf("undecodable: %v, err = %v, want ErrUndecodable alone", cs, err)
	}
}

// FuzzDecode checks that Decode never panics, returns valid UTF-8 without
// control characters or an error wrapping ErrNotText or ErrUndecodable, and
// that ErrNotText is consistent: a media type that is not text, or a magic
// number in front, always gives it; a text media type without a charset, or
// one that says nothing, gives what no Content-Type gives; the Pipeline
// refuses what Decode refuses.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("<p>caf\xe9</p>"), "")
	f.Add([]byte("\xFF\xFEh\x00i\x00"), "")
	f.Add([]byte("<meta charset=shift_jis>\x82\xa0"), "")
	f.Add([]byte("abc\x00def"), "text/plain; charset=koi8-r")
	f.Add([]byte("\x81\x40\x81"), "text/html; charset=gbk")
	f.Add([]byte("%PDF-1.4\n1 0 obj"), "application/pdf")
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), "text/html")
	f.Add([]byte("\xff\xd8\xff\xe0\x00\x10JFIF"), "")
	f.Add([]byte("<p>\xd5\xe2\xca\xc7</p>"), "text/html; charset=ISO-8859-1")
	f.Add([]byte("<meta charset=gbk><p>\xd5\xe2\xca\xc7</p>"), "text/html; charset=windows-1252")
	f.Add([]byte("<p>\xe4\xb8\xad\xe6\x96\x87</p>"), "text/html; charset=iso-8859-1")
	f.Add([]byte("\x11\x80\x87\x65\x2f\x66\x2c\x00\x6d\x8b\xd5\x8b\x02\x30"), "")
	f.Add(bytes.Repeat([]byte{0xAB, 0x00}, 64), "")
	f.Add([]byte("<p>x</p>"), "image/png")
	f.Add([]byte("<p>x</p>"), "application/octet-stream")
	var p preprocess.Pipeline
	f.Fuzz(func(t *testing.T, raw []byte, ct string) {
		if len(raw) > 1<<16 {
			return
		}
		out, cs, err := charset.Decode(raw, ct, true)
		if err != nil {
			if !errors.Is(err, charset.ErrUndecodable) {
				t.Fatalf("error %v is not ErrUndecodable", err)
			}
		} else {
			if !utf8.Valid(out) {
				t.Fatalf("Decode(%q) = %q (%v): not valid UTF-8", raw, out, cs)
			}
			if len(out) > 4*len(raw)+16 {
				t.Fatalf("Decode grew %d bytes into %d", len(raw), len(out))
			}
			for _, r := range string(out) {
				if charset.IsControl(r) {
					t.Fatalf("Decode(%q) left control %U", raw, r)
				}
			}
		}
		notText := errors.Is(err, charset.ErrNotText)
		if mt, _, perr := mime.ParseMediaType(ct); perr == nil && !charset.TextMediaType(mt) && !notText {
			t.Fatalf("Decode(%q, %q) = %v: media type %s is not text", raw, ct, err, mt)
		}
		if _, _, err := charset.Decode(append([]byte("%PDF-"), raw...), "", true); !errors.Is(err, charset.ErrNotText) {
			t.Fatalf("a PDF: %v", err)
		}
		if _, _, err := charset.Decode(append([]byte("\xff\xd8\xff"), raw...), "text/html", false); !errors.Is(err, charset.ErrNotText) {
			t.Fatalf("a JPEG: %v", err)
		}
		_, cs0, err0 := charset.Decode(raw, "", true)
		for _, same := range []string{"text/html", "application/octet-stream"} {
			out1, cs1, err1 := charset.Decode(raw, same, true)
			if cs1 != cs0 || (err1 == nil) != (err0 == nil) || errors.Is(err1, charset.ErrNotText) != errors.Is(err0, charset.ErrNotText) {
				t.Fatalf("Decode(%q) as %q = %v, %v; without a Content-Type %v, %v", raw, same, cs1, err1, cs0, err0)
			}
			if ct == "" && err == nil && !bytes.Equal(out1, out) {
				t.Fatalf("Decode(%q) as %q differs", raw, same)
			}
		}
		if len(raw) > 0 {
			if _, perr := p.ProcessContent(raw, "text/html"); errors.Is(perr, charset.ErrNotText) != errors.Is(err0, charset.ErrNotText) {
				t.Fatalf("ProcessContent(%q, text/html) = %v; Decode %v", raw, perr, err0)
			}
		}
	})
}

// BenchmarkDecode measures the decoding step as the Pipeline runs it on the
// real UTF-8 pages of testdata: without a Content-Type, with a
// "text/html; charset=utf-8" one, and with a wrong "charset=ISO-8859-1".
func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct{ name, file, ct string }{
		{"en-85KB", "../testdata/postgresql-functions-datetime.html", ""},
		{"en-85KB-header", "../testdata/postgresql-functions-datetime.html", "text/html; charset=utf-8"},
		{"zh-50KB", "../testdata/debian-reference-virtualized-system.zh.html", ""},
		{"zh-50KB-latin1-header", "../testdata/debian-reference-virtualized-system.zh.html", "text/html; charset=ISO-8859-1"},
	} {
		raw, err := os.ReadFile(bc.file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := charset.DecodeKeepControls(raw, bc.ct, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
