package charset_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	textunicode "golang.org/x/text/encoding/unicode"

	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/preprocess/charset"
)

const fr = "Les pages presque identiques encombrent l'index : la même dépêche reprise par dix journaux, à peine modifiée. Déjà vu, naïve café, élève, où, garçon."

// tinyPDF returns a small but complete PDF: one page whose content stream is
// deflated (as PDF writers do) when deflate is true, and plain ASCII
// otherwise.
func tinyPDF(t *testing.T, deflate bool) []byte {
	t.Helper()
	content := []byte("BT /F1 24 Tf 72 720 Td (Near-duplicate detection tells a crawler whether a page is new.) Tj ET")
	filter := ""
	if deflate {
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, flate.BestCompression)
		w.Write(content)
		w.Close()
		content, filter = z.Bytes(), " /Filter /FlateDecode"
	}
	var b bytes.Buffer
	var offs []int
	obj := func(s string) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), s)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>")
	obj(fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(content), filter, content))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return b.Bytes()
}

func tinyImage() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := range 16 {
		for y := range 16 {
			img.Set(x, y, color.RGBA{uint8(16 * x), uint8(16 * y), 128, 255})
		}
	}
	return img
}

func gzipped(t *testing.T, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(raw)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readPage(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// notTextBoth checks that Decode and the Pipeline refuse raw served as ct
// with an error that is ErrNotText (and, as before ErrNotText, ErrUndecodable).
func notTextBoth(t *testing.T, what string, raw []byte, ct string) {
	t.Helper()
	var p preprocess.Pipeline
	if _, cs, err := charset.Decode(raw, ct, true); !errors.Is(err, charset.ErrNotText) || !errors.Is(err, charset.ErrUndecodable) {
		t.Errorf("%s as %q: Decode = %v, %v; want ErrNotText", what, ct, cs, err)
	}
	if pg, err := p.ProcessContent(raw, ct); !errors.Is(err, charset.ErrNotText) {
		n := 0
		if pg != nil {
			n = len(pg.Terms)
		}
		t.Errorf("%s as %q: ProcessContent = %d terms, %v; want ErrNotText", what, ct, n, err)
	}
}

// A PDF, a gzip stream, a JPEG and other binary formats are not text,
// whether served with their own media type, none, or a text one.
func TestDecodeBinaryFormats(t *testing.T) {
	var jpg, pngb, zipb bytes.Buffer
	if err := jpeg.Encode(&jpg, tinyImage(), nil); err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(&pngb, tinyImage()); err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(&zipb)
	f, _ := zw.Create("page.html")
	f.Write([]byte(htmlPage("", en)))
	zw.Close()
	en85 := readPage(t, "postgresql-functions-datetime.html")
	for _, c := range []struct {
		what, ct string
		raw      []byte
	}{
		{"PDF", "application/pdf", tinyPDF(t, true)},
		{"ASCII-only PDF", "application/pdf", tinyPDF(t, false)},
		{"gzip stream", "application/gzip", gzipped(t, en85)},
		{"gzip of a short page", "application/gzip", gzipped(t, []byte(htmlPage("", zhHans)))},
		{"JPEG", "image/jpeg", jpg.Bytes()},
		{"PNG", "image/png", pngb.Bytes()},
		{"zip", "application/zip", zipb.Bytes()},
		{"ELF", "application/x-executable", append([]byte("\x7fELF\x02\x01\x01\x00"), en...)},
		{"WebAssembly", "application/wasm", append([]byte("\x00asm\x01\x00\x00\x00"), en...)},
		{"WebP", "image/webp", append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), en...)},
		{"MP4", "video/mp4", append([]byte("\x00\x00\x00\x18ftypmp42"), en...)},
		{"zstd", "application/zstd", append([]byte("\x28\xb5\x2f\xfd"), en...)},
	} {
		if len(c.raw) > 4<<10 && c.what != "gzip stream" {
			t.Fatalf("%s: %d bytes, not tiny", c.what, len(c.raw))
		}
		for _, ct := range []string{c.ct, "", "text/html", "text/html; charset=utf-8", "text/plain; charset=windows-1251", "application/octet-stream"} {
			notTextBoth(t, c.what, c.raw, ct)
		}
	}
}

// A media type that is not text is refused, whatever the bytes; text media
// types, and those that say nothing, leave the decision to the bytes.
func TestDecodeMediaTypes(t *testing.T) {
	page := []byte(htmlPage(`<meta charset="utf-8">`, en))
	for _, ct := range []string{
		"application/pdf", "image/png", "image/jpeg; q=1", "application/zip", "application/gzip",
		"video/mp4", "audio/mpeg", "font/woff2", "application/x-msdownload", "multipart/form-data; boundary=x",
		"application/vnd.ms-excel", "APPLICATION/PDF",
	} {
		notTextBoth(t, "an HTML page", page, ct)
	}
	for _, ct := range []string{
		"", "text/html", "text/plain; charset=utf-8", "TEXT/HTML; Charset=UTF-8", "text/csv", "text/markdown",
		"application/xhtml+xml", "application/xml", "text/xml", "application/rss+xml", "application/atom+xml",
		"image/svg+xml", "application/json", "application/ld+json", "application/javascript",
		"application/octet-stream", "binary/octet-stream", "unknown/unknown", "*/*", "not a media type", "text/html; charset",
	} {
		if _, _, err := charset.Decode(page, ct, true); err != nil {
			t.Errorf("Decode(page, %q) = %v", ct, err)
		}
	}
}

// Compressed and random data, without a magic number to tell it, is not
// text: slices of a gzip stream and random bytes, whatever the charset
// declared.
func TestDecodeCompressed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 8<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, page := range []string{"postgresql-functions-datetime.html", "debian-reference-virtualized-system.zh.html"} {
		gz := gzipped(t, readPage(t, page))
		for _, n := range []int{8 << 10, 4 << 10, 1 << 10, 512} {
			for _, off := range []int{100, len(gz) / 3, len(gz) / 2} {
				slice := gz[off : off+n]
				for _, ct := range []string{"", "text/html", "text/html; charset=windows-1251", "text/html; charset=gbk", "text/plain; charset=shift_jis", "text/html; charset=iso-8859-1"} {
					notTextBoth(t, fmt.Sprintf("%d bytes at %d of the gzip of %s", n, off, page), slice, ct)
				}
			}
		}
	}
	for _, n := range []int{8 << 10, 4 << 10, 1 << 10, 512} {
		for _, ct := range []string{"", "text/html; charset=koi8-r", "text/html; charset=big5"} {
			notTextBoth(t, fmt.Sprintf("%d random bytes", n), random[:n], ct)
		}
	}
}

// Pages in every common encoding served with a wrong "charset=ISO-8859-1"
// (a server's default) decode to the text of their UTF-8 twin, declared by
// <meta> or not at all; a page the single-byte header is right for keeps it.
func TestDecodeWrongSingleByteHeader(t *testing.T) {
	var p preprocess.Pipeline
	all := append(slices.Clone(twins), []struct {
		label string
		enc   encoding.Encoding
		text  string
	}{
		{"windows-1252", charmap.Windows1252, fr},
		{"utf-8", textunicode.UTF8, zhHans},
		{"utf-8", textunicode.UTF8, ru},
		{"utf-8", textunicode.UTF8, ko},
		{"utf-8", textunicode.UTF8, ja},
	}...)
	right, wrong := 0, 0
	for _, tw := range all {
		want, err := p.Process([]byte(htmlPage(`<meta charset="utf-8">`, tw.text)))
		if err != nil {
			t.Fatal(err)
		}
		for _, how := range []string{"meta", "undeclared"} {
			for _, ct := range []string{"text/html; charset=ISO-8859-1", "text/html; charset=windows-1252", "text/plain; charset=iso-8859-1"} {
				meta := ""
				if how == "meta" {
					meta = `<meta http-equiv="Content-Type" content="text/html; charset=` + tw.label + `">`
				}
				raw := encode(t, tw.enc, htmlPage(meta, tw.text))
				got, err := p.ProcessContent(raw, ct)
				if err != nil {
					t.Errorf("%s, %s, %q: %v", tw.label, how, ct, err)
					wrong++
					continue
				}
				wantText := want.Text
				if strings.HasPrefix(ct, "text/plain") {
					wantPg, _ := p.ProcessContent([]byte(htmlPage(meta, tw.text)), "text/plain")
					wantText = wantPg.Text
				}
				if got.Text != wantText {
					t.Errorf("%s, %s, %q: text %q, want %q", tw.label, how, ct, trunc(got.Text), trunc(wantText))
					wrong++
					continue
				}
				right++
			}
		}
	}
	t.Logf("%d of %d pages under a wrong single-byte header decoded right", right, right+wrong)

	// Right single-byte headers stay.
	for _, c := range []struct {
		ct   string
		enc  encoding.Encoding
		text string
		name string
	}{
		{"text/html; charset=ISO-8859-1", charmap.Windows1252, fr, "windows-1252"},
		{"text/html; charset=windows-1251", charmap.Windows1251, ru, "windows-1251"},
		{"text/html; charset=koi8-r", charmap.KOI8R, ru, "koi8-r"},
		{"text/html; charset=iso-8859-2", charmap.ISO8859_2, "Źdźbło trawy. Zażółć gęślą jaźń, powiedział żółw do pszczoły w Łodzi.", "iso-8859-2"},
		{"text/html; charset=windows-1253", charmap.Windows1253, "Η ανίχνευση σχεδόν διπλότυπων σελίδων είναι σημαντική για τις μηχανές αναζήτησης.", "windows-1253"},
		{"text/html; charset=iso-8859-1", charmap.Windows1252, en, "windows-1252"},
	} {
		raw := encode(t, c.enc, htmlPage("", c.text))
		out, cs, err := charset.Decode(raw, c.ct, true)
		if err != nil || cs != (charset.Charset{c.name, "header"}) || !strings.Contains(string(out), c.text) {
			t.Errorf("%s page under %q: %v, %v, %q", c.name, c.ct, cs, err, trunc(string(out)))
		}
	}
}

// UTF-16 without a byte-order mark is detected by its zero bytes (mostly
// Latin text) or by its characters (CJK text), in either byte order.
func TestDecodeUTF16WithoutBOM(t *testing.T) {
	var p preprocess.Pipeline
	for _, text := range []string{zhHans, zhHant, ja, ko, ru, en, fr, zhHans + en} {
		for _, html := range []bool{true, false} {
			src := text
			if html {
				src = htmlPage("", text)
			}
			for _, order := range []textunicode.Endianness{textunicode.LittleEndian, textunicode.BigEndian} {
				raw := encode(t, textunicode.UTF16(order, textunicode.IgnoreBOM), src)
				out, cs, err := charset.Decode(raw, "", html)
				name := charset.UTF16Name(order)
				if err != nil || string(out) != src || cs != (charset.Charset{name, "detected"}) {
					t.Errorf("%s, %q…, html %v: %v, %v, %q", name, trunc(text), html, cs, err, trunc(string(out)))
					continue
				}
				// (A UTF-8 header, a server's default, on UTF-16 English was
				// refused as control bytes.)
				for _, ct := range []string{"text/html", "text/html; charset=iso-8859-1", "text/plain; charset=utf-8", "text/html; charset=UTF-8"} {
					want, _ := p.ProcessContent([]byte(src), ct)
					got, err := p.ProcessContent(raw, ct)
					if err != nil || got.Text != want.Text {
						t.Errorf("%s, %q…, %q: ProcessContent = %v", name, trunc(text), ct, err)
					}
				}
			}
		}
	}
}

// Repeating binary patterns, with zero bytes on one side as UTF-16 has, are
// not taken for UTF-16 (or any) text.
func TestDecodeRepeatingPattern(t *testing.T) {
	counters := make([]byte, 0, 4096)
	for i := range 1024 {
		counters = append(counters, byte(i), byte(i>>8), 0, 0) // little-endian uint32s
	}
	shorts := make([]byte, 0, 4096)
	for i := range 2048 {
		shorts = append(shorts, byte(i*7), 0) // little-endian uint16s below 256
	}
	for _, c := range []struct {
		what string
		raw  []byte
	}{
		{"uint32 counters", counters},
		{"uint16 values", shorts},
		{"one 16-bit unit", bytes.Repeat([]byte{0xAB, 0x00}, 2048)},
		{"a 4-byte record", bytes.Repeat([]byte{0x12, 0x00, 0xC3, 0x00}, 1024)},
		{"an 8-byte record", bytes.Repeat([]byte{0x00, 0x4E, 0x00, 0x8B, 0xE9, 0x00, 0x2D, 0x00}, 512)},
		{"a CJK-looking pair", bytes.Repeat([]byte{0x84, 0x76, 0x00, 0x4E}, 1024)},
		{"a 24-byte record", bytes.Repeat([]byte("\x01\x00\x02\x00\xff\xfe\x10\x00\x00\x00\x41\x00\x42\x00\x43\x00\xd8\x00\x00\x00\x7f\x00\x00\x00"), 170)},
	} {
		for _, ct := range []string{"", "text/plain"} {
			notTextBoth(t, c.what, c.raw, ct)
		}
	}
}

// The charset Decode reports for a wrong single-byte or UTF-16 header says
// what overruled it.
func TestDecodeWrongHeaderSources(t *testing.T) {
	gbkMeta := encode(t, simplifiedchinese.GBK, htmlPage(`<meta charset="gbk">`, zhHans))
	gbk := encode(t, simplifiedchinese.GBK, htmlPage("", zhHans))
	if utf8.Valid(gbk) {
		t.Fatal("the GBK page is valid UTF-8; the test proves nothing")
	}
	const latin1 = "text/html; charset=ISO-8859-1"
	for _, c := range []struct {
		raw        []byte
		ct         string
		name, from string
	}{
		{[]byte(htmlPage("", zhHans)), latin1, "utf-8", "detected"},
		{[]byte(htmlPage(`<meta charset="utf-8">`, ru)), latin1, "utf-8", "meta"},
		{gbkMeta, latin1, "gbk", "meta"},
		{gbk, latin1, "gb18030", "detected"},
		{[]byte(htmlPage("", en)), latin1, "windows-1252", "header"},
		{encode(t, charmap.KOI8R, htmlPage(`<meta charset="koi8-r">`, ru)), "text/html; charset=windows-1251", "koi8-r", "meta"},
		{encode(t, charmap.Windows1251, htmlPage(`<meta charset="iso-8859-1">`, ru)), "", "windows-1251", "detected"},
		{encode(t, textunicode.UTF16(textunicode.LittleEndian, textunicode.IgnoreBOM), htmlPage("", ko)), latin1, "utf-16le", "detected"},
		// a UTF-16 header on a page that is not UTF-16 is passed over
		{[]byte(htmlPage("", zhHans)), "text/html; charset=utf-16le", "utf-8", "default"},
		{[]byte(htmlPage(`<meta charset="utf-8">`, en)), "text/html; charset=utf-16", "utf-8", "meta"},
		{gbk, "text/html; charset=utf-16be", "gb18030", "detected"},
		{encode(t, textunicode.UTF16(textunicode.BigEndian, textunicode.IgnoreBOM), htmlPage("", ru)), "text/html; charset=utf-16be", "utf-16be", "header"},
	} {
		_, cs, err := charset.Decode(c.raw, c.ct, true)
		if err != nil || cs.Name != c.name || cs.Source != c.from {
			t.Errorf("Decode(%q…, %q) = %v, %v; want %s from %s", trunc(string(c.raw[:min(60, len(c.raw))])), c.ct, cs, err, c.name, c.from)
		}
	}
}

// A page of traditional Chinese in Big5 under a wrong <meta
// charset="iso-8859-1"> decodes as Big5, as its UTF-8 twin reads: the
// simplified list of common characters alone made it Windows-1252 mojibake
// (a third of its tokens, language en).
func TestDecodeBig5UnderLatin1Meta(t *testing.T) {
	src, err := os.ReadFile("testdata/debian-reference-index.zh-tw.latin1-meta.html")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := encoding.ReplaceUnsupported(traditionalchinese.Big5.NewEncoder()).Bytes(src)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := traditionalchinese.Big5.NewDecoder().Bytes(raw) // src as Big5 keeps it
	if err != nil {
		t.Fatal(err)
	}
	var p preprocess.Pipeline
	want, err := p.Process(twin)
	if err != nil || want.Language != preprocess.Chinese || len(want.Tokens) < 300 {
		t.Fatalf("UTF-8 twin: %v, language %s, %d tokens", err, want.Language, len(want.Tokens))
	}
	for _, ct := range []string{"", "text/html", "text/html; charset=iso-8859-1"} {
		got, err := p.ProcessContent(raw, ct)
		if err != nil || got.Text != want.Text || got.Language != preprocess.Chinese || !slices.Equal(got.Tokens, want.Tokens) {
			n := 0
			if got != nil {
				n = len(got.Tokens)
			}
			t.Errorf("Big5 under %q: %v, %d tokens, want %d", ct, err, n, len(want.Tokens))
		}
		if _, cs, err := charset.Decode(raw, ct, true); err != nil || cs.Name != "big5" {
			t.Errorf("Decode(Big5 page, %q) = %v, %v; want big5", ct, cs, err)
		}
	}
}
