package charset

import (
	"bytes"
	"fmt"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	textunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// MaxUndecodable is the largest share of a page's characters that may be
// undecodable (U+FFFD after decoding) before the page is rejected with
// ErrUndecodable; below it, each undecodable byte becomes U+FFFD.
const MaxUndecodable = 0.3

// MaxControl is the largest share of a page's bytes that may be control
// characters other than white space (NUL, the other C0 codes but ESC) before
// the page is taken for binary data and rejected with ErrNotText; below it,
// each becomes a space. Text has none or a few; UTF-16 is told apart first.
const MaxControl = 0.1

// Charset tells how Decode read a page: the WHATWG name of the encoding and
// where it came from.
type Charset struct {
	Name   string // "utf-8", "gb18030", "shift_jis", ...
	Source string // "bom", "header" (Content-Type), "meta", "detected" or "default"
}

// Decode returns raw as UTF-8, and how it was read.
//
// First it refuses what is not text, with an error wrapping ErrNotText:
//   - a contentType (an HTTP Content-Type value such as "text/html;
//     charset=Shift_JIS", "" when unknown) whose media type is not a text
//     type, whatever the bytes look like. Text types are text/*, */html,
//     */xml, */json, the subtypes ending in +xml or +json
//     (application/xhtml+xml, application/rss+xml, image/svg+xml,
//     application/ld+json, ...), application/javascript and
//     application/ecmascript (and their x- forms). An empty or unparsable
//     contentType, and the types that say nothing (application/octet-stream,
//     binary/octet-stream, application/unknown, unknown/unknown, */*), leave
//     the decision to the bytes. Any other media type (image/*,
//     application/pdf, application/zip, ...) is refused.
//   - bytes that start with the magic number of a binary format: PDF, gzip,
//     zip, zlib, compress, zstd, bzip2, xz, 7z, RAR, LZ4, tar, PNG, JPEG,
//     GIF, WebP, TIFF, BMP, ICO, JPEG 2000/XL, MP4/QuickTime/HEIF,
//     Matroska/WebM, Ogg, FLAC, MP3, WAV, AVI, MIDI, fonts, ELF, Mach-O,
//     Windows executables, WebAssembly, Java class, OLE, SQLite, ...
//   - bytes that are not valid UTF-8 and read as binary data: more than
//     MaxControl control bytes, compressed or random data (byte entropy
//     close to 8 bits over a sample of 512 bytes or more), a short pattern
//     repeated, or, for UTF-16, implausible characters (unpaired
//     surrogates, controls, private use and unassigned code points). Of
//     these tests, valid UTF-8 gets only the one of control bytes.
//
// The encoding is then, in order: the byte-order mark (UTF-8, UTF-16LE,
// UTF-16BE); the charset of contentType; for HTML (html true), a charset
// declared in a <meta> element in the first 1024 bytes; UTF-8 when raw is
// valid UTF-8; UTF-16 without a mark, told by its zero bytes (mostly Latin
// text: markup, digits, spaces) or by its characters (CJK text, or Cyrillic,
// Greek, ... text with little markup: no unpaired surrogates, controls or
// private use, and a good share of ASCII, letters below U+2000 and common
// Han, kana or Hangul); and otherwise the most plausible of the encodings of
// the web's legacy pages (GB18030, Big5, Shift_JIS, EUC-JP, EUC-KR, KOI8-R,
// Windows-1251, Windows-1252), judged by how few bytes each fails to decode
// and how much the text reads like its language. Labels are the WHATWG
// Encoding Standard's (ISO-8859-1 and US-ASCII read as Windows-1252, GBK as
// GB18030, as browsers do).
//
// A declaration is checked against the page. A UTF-16 charset in contentType
// is passed over when the page has no byte-order mark and does not look like
// UTF-16, and a UTF-8 one when the page looks like UTF-16 (English in UTF-16
// is valid UTF-8 with a NUL every other byte). A multi-byte encoding that fails on much of the page gives way to
// detection. A single-byte one (ISO-8859-x, Windows-125x, KOI8, ...: every
// byte decodes to something, so failures do not show) gives way, when it
// comes from contentType, to a <meta> charset that names another encoding
// and decodes the page cleanly; and, from either, to UTF-8 when the page is
// valid UTF-8 with multi-byte characters, to UTF-16 when it looks like
// UTF-16, and to the detected encoding when that reads clearly more like its
// language than the declared one does. So a server's default
// "charset=ISO-8859-1" does not turn a Chinese, Russian or Korean page into
// mojibake, where a browser would follow the header.
//
// Bytes that cannot be decoded become U+FFFD and control characters (NUL
// included) other than white space become spaces, so one stray byte or a
// page cut in mid-character costs a character, not the page. A page of
// which more than MaxUndecodable cannot be decoded is not text in the
// encoding chosen: Decode returns an error wrapping ErrUndecodable.
//
// The result may share memory with raw: it is raw itself, less a UTF-8
// byte-order mark, when raw is valid UTF-8 that needs no change. Decode
// only reads raw.
func Decode(raw []byte, contentType string, html bool) ([]byte, Charset, error) {
	return decode(raw, contentType, html, true)
}

// DecodeKeepControls is Decode for a caller that reads control characters
// as white space itself (an HTML tokenizer, a word splitter): it is Decode,
// except that control characters other than NUL may be left in the result.
// They are when raw is valid UTF-8 without NUL that Decode takes for UTF-8
// at once (undeclared, declared so, or under a single-byte charset that the
// page belies); raw is then returned as it is, less a byte-order mark,
// which saves Decode's pass over the page. Its charset and errors are
// Decode's. Do not use it when the text goes where a control character does
// harm (a terminal, XML).
func DecodeKeepControls(raw []byte, contentType string, html bool) ([]byte, Charset, error) {
	return decode(raw, contentType, html, false)
}

// decode is Decode; with all false it replaces control characters in valid
// UTF-8 only when the page holds a NUL (DecodeKeepControls).
func decode(raw []byte, contentType string, html, all bool) ([]byte, Charset, error) {
	label := ""
	if contentType != "" {
		mt, params, err := mime.ParseMediaType(contentType)
		if mt != "" && !textMediaType(mt) {
			return nil, Charset{}, fmt.Errorf("%w: media type %s", ErrNotText, mt)
		}
		if err == nil {
			label = params["charset"]
		}
	}
	if f := binaryFormat(raw); f != "" {
		return nil, Charset{}, fmt.Errorf("%w: %s data", ErrNotText, f)
	}
	enc, cs := declared(raw, label, html)
	if enc == textunicode.UTF8 && cs.Source != "bom" && controlShare(raw) > MaxControl && looksUTF16(raw) {
		// UTF-16 without a mark under a UTF-8 header or <meta>: English
		// in UTF-16 is valid UTF-8 with a NUL every other byte, which no
		// UTF-8 text has. Detect instead.
		enc, cs = nil, Charset{}
	}
	if enc == textunicode.UTF8 || enc == nil && !utf16ByZeros(raw) {
		// The common case: UTF-8, declared or not, and valid.
		body := bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
		if utf8.Valid(body) {
			share := controlShare(body)
			switch {
			case share <= MaxControl:
				if enc == nil {
					cs = Charset{"utf-8", "default"}
				}
				if !all && bytes.IndexByte(body, 0) < 0 {
					return body, cs, nil
				}
				return clean(body), cs, nil
			case enc != nil || !looksUTF16(raw):
				// (UTF-16 of an alphabet just above ASCII, Cyrillic say, is
				// valid UTF-8 full of control bytes.)
				return nil, cs, fmt.Errorf("%w: %.0f%% of the page are control bytes", ErrNotText, 100*share)
			}
		}
	}
	var out []byte
	if enc != nil {
		if err := binaryData(raw, cs.Name); err != nil {
			return nil, cs, err
		}
		out = decodeWith(enc, raw)
		if wrongShare(enc, raw, out) > maxWrong {
			enc = nil // a wrong declaration: detect instead
		}
	}
	if enc == nil {
		order, isUTF16 := utf16Order(raw)
		switch {
		case isUTF16:
			enc, cs = textunicode.UTF16(order, textunicode.IgnoreBOM), Charset{utf16Name(order), "detected"}
		case utf8.Valid(raw):
			enc, cs = textunicode.UTF8, Charset{"utf-8", "default"}
		default:
			cs = Charset{}
		}
		if err := binaryData(raw, cs.Name); err != nil {
			return nil, cs, err
		}
		if enc == nil { // checked for binary data first: detection is slow on it
			cs = detectCharset(raw)
			enc, _ = htmlindex.Get(cs.Name)
		}
		out = decodeWith(enc, raw)
	}
	if bad := undecodable(out); bad > MaxUndecodable {
		return nil, cs, fmt.Errorf("%w: %.0f%% of the page cannot be decoded as %s", ErrUndecodable, 100*bad, cs.Name)
	}
	return clean(out), cs, nil
}

func utf16Name(order textunicode.Endianness) string {
	if order == textunicode.BigEndian {
		return "utf-16be"
	}
	return "utf-16le"
}

// binaryData returns an error wrapping ErrNotText when raw, to be decoded in
// the encoding name, is binary data rather than text (see Decode), or nil.
func binaryData(raw []byte, name string) error {
	sample := raw[:min(len(raw), 4<<10)]
	if strings.HasPrefix(name, "utf-16") {
		order := textunicode.LittleEndian
		if name == "utf-16be" {
			order = textunicode.BigEndian
		}
		sample = bytes.TrimPrefix(bytes.TrimPrefix(sample, []byte("\xFF\xFE")), []byte("\xFE\xFF"))
		if bad, _ := utf16Plausibility(sample, order); bad > maxImplausible {
			return fmt.Errorf("%w: %.0f%% of the page are implausible as UTF-16", ErrNotText, 100*bad)
		}
		if periodic(sample) {
			return fmt.Errorf("%w: a repeated pattern", ErrNotText)
		}
		return nil
	}
	if share := controlShare(sample); share > MaxControl {
		return fmt.Errorf("%w: %.0f%% of the page are control bytes", ErrNotText, 100*share)
	}
	if compressed(sample) {
		return fmt.Errorf("%w: compressed or random data", ErrNotText)
	}
	if !isASCII(sample) && periodic(sample) {
		return fmt.Errorf("%w: a repeated pattern", ErrNotText)
	}
	return nil
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// declared returns the encoding raw declares (by its byte-order mark, the
// Content-Type charset label or, for HTML, a <meta> charset), or nil, with
// a single-byte declaration checked by singleByte.
func declared(raw []byte, label string, html bool) (encoding.Encoding, Charset) {
	switch {
	case bytes.HasPrefix(raw, []byte("\xEF\xBB\xBF")):
		return textunicode.UTF8, Charset{"utf-8", "bom"}
	case bytes.HasPrefix(raw, []byte("\xFF\xFE")):
		return textunicode.UTF16(textunicode.LittleEndian, textunicode.ExpectBOM), Charset{"utf-16le", "bom"}
	case bytes.HasPrefix(raw, []byte("\xFE\xFF")):
		return textunicode.UTF16(textunicode.BigEndian, textunicode.ExpectBOM), Charset{"utf-16be", "bom"}
	}
	if e, name := lookup(label, true); e != nil && (!strings.HasPrefix(name, "utf-16") || looksUTF16(raw)) {
		// (A UTF-16 header on a page without a byte-order mark that does
		// not look like UTF-16 is passed over.)
		if isSingleByte(e) {
			return singleByte(raw, e, Charset{name, "header"}, html)
		}
		return e, Charset{name, "header"}
	}
	if html {
		if e, name := lookup(metaCharset(raw), false); e != nil {
			if isSingleByte(e) {
				return singleByte(raw, e, Charset{name, "meta"}, false)
			}
			return e, Charset{name, "meta"}
		}
	}
	return nil, Charset{}
}

// isSingleByte reports whether e is a single-byte encoding (ISO-8859-x,
// Windows-125x, KOI8, IBM866, Mac): one that decodes every byte to some
// character, so that a wrong one shows no failures.
func isSingleByte(e encoding.Encoding) bool {
	_, ok := e.(*charmap.Charmap)
	return ok
}

// maxClean is the share of a page's non-ASCII characters a <meta> charset
// may fail to decode and still overrule a single-byte Content-Type charset.
const maxClean = 0.01

// singleByteMargin is how much better than a declared single-byte encoding
// the detected one must score (see detectCharset) to overrule it.
const singleByteMargin = 0.2

// singleByte checks the single-byte encoding e that cs declares against
// raw (see Decode) and returns the encoding to decode raw with: e, the
// <meta> charset (with meta true, for a Content-Type declaration), UTF-8,
// or nil to detect the encoding. For a page of ASCII, which every
// single-byte encoding of the web decodes as UTF-8 does, it returns UTF-8
// under cs's name, to take the fast path.
func singleByte(raw []byte, e encoding.Encoding, cs Charset, meta bool) (encoding.Encoding, Charset) {
	if meta {
		if m, name := lookup(metaCharset(raw), false); m != nil && name != cs.Name {
			if isSingleByte(m) || wrongShare(m, raw, decodeWith(m, raw)) <= maxClean {
				return m, Charset{name, "meta"}
			}
		}
	}
	if looksUTF16(raw) {
		return nil, Charset{}
	}
	if utf8.Valid(raw) {
		if isASCII(raw) {
			return textunicode.UTF8, cs
		}
		return textunicode.UTF8, Charset{"utf-8", "detected"}
	}
	if binaryData(raw, cs.Name) != nil {
		return e, cs // refused later; detection is slow on binary data
	}
	sample := raw[:min(len(raw), 64<<10)]
	best, bestScore := detectScore(sample)
	if best != cs.Name && bestScore > charsetScore(e, judgeFor(cs.Name), sample)+singleByteMargin {
		return nil, Charset{}
	}
	return e, cs
}

// lookup returns the encoding of a WHATWG label and its canonical name, or
// nil. UTF-16 is taken from a Content-Type header (utf16 true) only: a
// <meta> that can be read as ASCII does not stand in a UTF-16 page.
func lookup(label string, utf16 bool) (encoding.Encoding, string) {
	label = strings.ToLower(strings.TrimSpace(label))
	if label == "" {
		return nil, ""
	}
	e, err := htmlindex.Get(label)
	if err != nil {
		return nil, ""
	}
	name, err := htmlindex.Name(e)
	if err != nil || name == "replacement" || (!utf16 && strings.HasPrefix(name, "utf-16")) {
		return nil, ""
	}
	return e, name
}

// looksUTF16 reports whether raw looks like UTF-16 without a byte-order mark
// (see utf16Order).
func looksUTF16(raw []byte) bool {
	_, ok := utf16Order(raw)
	return ok
}

// maxImplausible is the largest share of a UTF-16 page's code units that may
// be implausible in text (see utf16Plausibility).
const maxImplausible = 0.02

// minPlausible is the smallest share of the code units of UTF-16 without a
// byte-order mark and without the zero bytes of mostly Latin text that must
// be ASCII text, alphabetic letters or common CJK characters (see
// utf16Plausibility).
const minPlausible = 0.3

// utf16Order reports whether raw looks like UTF-16 without a byte-order
// mark, and its byte order. Most of a page's characters are often ASCII
// (markup, spaces, digits), and in UTF-16 each has a zero byte beside it,
// all on the same side, while other text has few zero bytes; the order the
// zero bytes tell must decode to plausible characters. A page without that
// pattern (CJK text, or Cyrillic, Greek, ... text with little markup) is
// UTF-16 in the order that decodes to plausible characters, a good share of
// them ASCII, letters of the alphabets below U+2000 or common Han, kana or
// Hangul, when it is not valid UTF-8 and has zero bytes on one side only. A
// short pattern repeated is not UTF-16.
func utf16Order(raw []byte) (textunicode.Endianness, bool) {
	return utf16Detect(raw, true)
}

// utf16ByZeros is looksUTF16 by the zero bytes only: the cheap test.
func utf16ByZeros(raw []byte) bool {
	_, ok := utf16Detect(raw, false)
	return ok
}

// utf16Detect is utf16Order; with checkChars false it does not look for
// UTF-16 without the zero bytes of mostly Latin text.
func utf16Detect(raw []byte, checkChars bool) (textunicode.Endianness, bool) {
	sample := raw[:min(len(raw), 4096)&^1]
	if len(sample) < 16 {
		return textunicode.LittleEndian, false
	}
	even, odd := 0, 0
	for i := 0; i < len(sample); i += 2 {
		if sample[i] == 0 {
			even++
		}
		if sample[i+1] == 0 {
			odd++
		}
	}
	half := len(sample) / 2
	order, zeros := textunicode.LittleEndian, false
	switch {
	case odd > half*3/10 && even < half/20:
		zeros = true
	case even > half*3/10 && odd < half/20:
		order, zeros = textunicode.BigEndian, true
	}
	if zeros {
		bad, _ := utf16Plausibility(sample, order)
		return order, bad <= maxImplausible && !periodic(sample)
	}
	if !checkChars {
		return order, false
	}
	if min(even, odd) > half/20 || validUTF8Sample(sample) && controlShare(sample) <= MaxControl {
		return order, false
	}
	badLE, goodLE := utf16Plausibility(sample, textunicode.LittleEndian)
	badBE, goodBE := utf16Plausibility(sample, textunicode.BigEndian)
	bad, good := badLE, goodLE
	if goodBE > goodLE {
		order, bad, good = textunicode.BigEndian, badBE, goodBE
	}
	return order, bad <= maxImplausible && good >= minPlausible && !periodic(sample)
}

// validUTF8Sample reports whether sample, the first bytes of a page, is
// valid UTF-8 but for a character cut at its end.
func validUTF8Sample(sample []byte) bool {
	for cut := 0; cut < utf8.UTFMax && cut <= len(sample); cut++ {
		if utf8.Valid(sample[:len(sample)-cut]) {
			return true
		}
	}
	return false
}

// utf16Plausibility decodes sample as UTF-16 in order and returns the share
// of its characters that are implausible in text (unpaired surrogates,
// control characters other than white space, private use, noncharacters,
// unassigned code points) and the share that are ASCII text, letters below
// U+2000 (Latin, Greek, Cyrillic, Hebrew, Arabic, Indic, Thai, ...) or
// common Han, kana or Hangul. In the wrong byte order, ASCII and those
// letters become characters of U+2000 and above.
func utf16Plausibility(sample []byte, order textunicode.Endianness) (bad, good float64) {
	n, nbad, ngood := 0, 0, 0
	unit := func(i int) rune {
		if order == textunicode.BigEndian {
			return rune(sample[i])<<8 | rune(sample[i+1])
		}
		return rune(sample[i+1])<<8 | rune(sample[i])
	}
	for i := 0; i+1 < len(sample); i += 2 {
		n++
		r := unit(i)
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if i+3 >= len(sample) {
				continue // cut in mid-pair
			}
			if lo := unit(i + 2); lo >= 0xDC00 && lo < 0xE000 {
				i += 2 // a pair: a supplementary character
				continue
			}
			nbad++
		case r >= 0xDC00 && r < 0xE000:
			nbad++
		case r < 0x80:
			if isControl(r) {
				nbad++
			} else {
				ngood++
			}
		case r < 0xA0, r >= 0xE000 && r < 0xF900, r >= 0xFDD0 && r < 0xFDF0, r >= 0xFFFE:
			nbad++
		case r < 0x2000 && unicode.IsLetter(r), commonHanSet[r] || r >= 0x3041 && r <= 0x30FF || commonHangulSet[r]:
			ngood++
		case !unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r):
			nbad++
		}
		if float64(nbad) > maxImplausible*float64(len(sample)/2) {
			break // implausible whatever follows
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(nbad) / float64(n), float64(ngood) / float64(n)
}

// metaCharset returns the charset a <meta charset> or <meta http-equiv
// content="...; charset=..."> declares in the first 1024 bytes of raw, or "".
func metaCharset(raw []byte) string {
	head := bytes.ToLower(raw[:min(len(raw), 1024)])
	for off := 0; ; {
		i := bytes.Index(head[off:], []byte("<meta"))
		if i < 0 {
			return ""
		}
		tag := head[off+i:]
		if end := bytes.IndexByte(tag, '>'); end >= 0 {
			tag = tag[:end]
		}
		off += i + 5
		j := bytes.Index(tag, []byte("charset"))
		if j < 0 {
			continue
		}
		v := bytes.TrimLeft(tag[j+len("charset"):], " \t\r\n")
		if !bytes.HasPrefix(v, []byte("=")) {
			continue
		}
		v = bytes.TrimLeft(v[1:], " \t\r\n\"'")
		if end := bytes.IndexAny(v, "\"' \t\r\n;/>"); end >= 0 {
			v = v[:end]
		}
		if len(v) > 0 {
			return string(v)
		}
	}
}

// decodeWith decodes raw with e, replacing what cannot be decoded with
// U+FFFD (a UTF-8 "decoder" only replaces invalid sequences).
func decodeWith(e encoding.Encoding, raw []byte) []byte {
	if e == textunicode.UTF8 {
		raw = bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
		if utf8.Valid(raw) {
			return raw
		}
		return bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	}
	out, _, err := transform.Bytes(e.NewDecoder(), raw)
	if err != nil {
		return bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	}
	return out
}

// maxWrong is the share of a page's non-ASCII characters a declared
// encoding may fail to decode before detection overrules the declaration.
const maxWrong = 0.1

// wrongShare returns the share of the non-ASCII part of raw that enc failed
// to decode into out: for UTF-8, the invalid bytes among the non-ASCII
// bytes of raw (a run of invalid bytes becomes one U+FFFD in out); for the
// other encodings, the U+FFFD among the non-ASCII characters of out.
func wrongShare(enc encoding.Encoding, raw, out []byte) float64 {
	n, bad := 0, 0
	if enc == textunicode.UTF8 {
		for i := 0; i < len(raw); {
			r, size := utf8.DecodeRune(raw[i:])
			if raw[i] >= 0x80 {
				n += size
				if r == utf8.RuneError && size == 1 {
					bad++
				}
			}
			i += size
		}
	} else {
		for _, r := range string(out) {
			if r >= 0x80 {
				n++
				if r == utf8.RuneError {
					bad++
				}
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(bad) / float64(n)
}

// controlShare returns the share of raw's first 4 KB that are C0 control
// bytes other than white space and ESC.
func controlShare(raw []byte) float64 {
	sample := raw[:min(len(raw), 4<<10)]
	n := 0
	for _, c := range sample {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1B {
			n++
		}
	}
	if len(sample) == 0 {
		return 0
	}
	return float64(n) / float64(len(sample))
}

// undecodable returns the share of text's runes that are U+FFFD.
func undecodable(text []byte) float64 {
	n, bad := 0, 0
	for _, r := range string(text) {
		n++
		if r == utf8.RuneError {
			bad++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(bad) / float64(n)
}

// isControl reports whether r is a C0 or C1 control character that is not
// white space.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f') || r == 0x7F || (r >= 0x80 && r < 0xA0)
}

// clean turns control characters other than white space into spaces (in
// place when text needs no growing: every control character is one or two
// bytes, a space one, so it never does).
func clean(text []byte) []byte {
	var out []byte
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		if isControl(r) {
			if out == nil {
				out = append(make([]byte, 0, len(text)), text[:i]...)
			}
			out = append(out, ' ')
		} else if out != nil {
			out = append(out, text[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return text
	}
	return out
}

// candidates are the encodings detectCharset tries, with the language test of
// plausibility each is judged by.
var candidates = [...]struct {
	name  string
	judge func(prev, r rune) (counts, hit bool)
}{
	{"gb18030", commonHan},
	{"big5", judgeBig5},
	{"shift_jis", judgeJapanese},
	{"euc-jp", judgeJapanese},
	{"euc-kr", judgeKorean},
	{"koi8-r", lowerCyrillic},
	{"windows-1251", lowerCyrillic},
	{"windows-1252", latin1Letter},
}

// detectCharset returns the most plausible encoding of raw, which is not
// valid UTF-8 and declares none (see detectScore).
func detectCharset(raw []byte) Charset {
	name, _ := detectScore(raw[:min(len(raw), 64<<10)])
	return Charset{name, "detected"}
}

// detectScore returns the most plausible of the candidates for sample and its
// score (see charsetScore); earlier candidates win ties.
func detectScore(sample []byte) (string, float64) {
	best, bestScore := "windows-1252", -1.0
	for _, c := range candidates {
		e, err := htmlindex.Get(c.name)
		if err != nil {
			continue
		}
		if score := charsetScore(e, c.judge, sample); score > bestScore {
			best, bestScore = c.name, score
		}
	}
	return best, bestScore
}

// charsetScore returns how plausible sample is in the encoding e, from 0 to
// 1: the share of sample e decodes (not to U+FFFD or a control character),
// times 0.5 plus half the share of the decoded non-ASCII characters that
// judge accepts (0.5 when it counts none).
func charsetScore(e encoding.Encoding, judge func(prev, r rune) (counts, hit bool), sample []byte) float64 {
	text := decodeWith(e, sample)
	n, bad, counted, hits := 0, 0, 0, 0
	prev := ' '
	for _, r := range string(text) {
		n++
		p := prev
		prev = r
		if r == utf8.RuneError || isControl(r) {
			bad++
			continue
		}
		if r < 0x80 {
			continue
		}
		if cnt, hit := judge(p, r); cnt {
			counted++
			if hit {
				hits++
			}
		}
	}
	if n == 0 {
		return 0
	}
	score := 1 - float64(bad)/float64(n)
	if counted > 0 {
		score *= 0.5 + 0.5*float64(hits)/float64(counted)
	} else {
		score *= 0.5
	}
	return score
}

// judgeFor returns the language test of plausibility for the single-byte
// encoding name: a candidate's own, lowerCyrillic for the Cyrillic ones,
// nonLatinLetter for Greek, Hebrew, Arabic and Thai, and latinLetter for
// the others.
func judgeFor(name string) func(prev, r rune) (bool, bool) {
	for _, c := range candidates {
		if c.name == name {
			return c.judge
		}
	}
	switch name {
	case "ibm866", "iso-8859-5", "koi8-u", "x-mac-cyrillic":
		return lowerCyrillic
	case "iso-8859-6", "windows-1256", "iso-8859-7", "windows-1253",
		"iso-8859-8", "iso-8859-8-i", "windows-1255", "windows-874":
		return nonLatinLetter
	}
	return latinLetter
}

// latinLetter counts every non-ASCII character; a hit is a Latin letter
// after an ASCII letter or a space (latin1Letter for all Latin alphabets).
func latinLetter(prev, r rune) (bool, bool) {
	return true, unicode.Is(unicode.Latin, r) && (isASCIILetter(prev) || prev == ' ')
}

// nonLatinLetter counts every non-ASCII character; a hit is a letter of
// another script than Latin, lower case when the script has cases, not
// after an ASCII letter.
func nonLatinLetter(prev, r rune) (bool, bool) {
	return true, unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) && !unicode.IsUpper(r) && !isASCIILetter(prev)
}

// commonHanSet holds the 500 most frequent characters of Chinese text, in
// simplified and traditional forms.
var commonHanSet = runeSet(commonHanChars)

// runeSet returns the set of the characters of s.
func runeSet(s string) map[rune]bool {
	m := make(map[rune]bool, len(s)/3)
	for _, r := range s {
		m[r] = true
	}
	return m
}

const commonHanChars = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切們來說為這個會時學對後麼裡開當現麼過還無點種話與實進動長樣發問機國經頭樣見體關電場師書員誤將從聽氣總處邊萬東業產質習計劃認識應該讓還"

// commonHan counts Han characters; a hit is a common one.
func commonHan(_, r rune) (bool, bool) {
	if !unicode.Is(unicode.Han, r) {
		return r >= 0x80, false
	}
	return true, commonHanSet[r]
}

// judgeBig5 counts Han characters; a hit is a common character of
// simplified or traditional Chinese (commonHanSet or commonHantSet). The
// simplified list alone is true of only some three fifths of traditional
// text, too little to tell a page of Big5 from the mojibake of a wrong
// single-byte declaration; Korean or Japanese text read as Big5 gives
// characters of any frequency, rarely common ones.
func judgeBig5(_, r rune) (bool, bool) {
	if !unicode.Is(unicode.Han, r) {
		return r >= 0x80, false
	}
	return true, commonHanSet[r] || commonHantSet[r]
}

// commonHantSet holds commonHantChars.
var commonHantSet = runeSet(commonHantChars)

// commonHantChars are those of the 600 most frequent Han characters of the
// traditional Chinese manual pages of Debian's manpages-zh (zh_TW) that
// commonHanChars lacks: with it they hold 94% of the Han characters of the
// Debian Reference in traditional Chinese.
const commonHantChars = "檔案數設選項列資示於引頁值標輸器訊則統冊號執預並配變錄組置序別碼料顯模間述除例返結格符參沒存譯啟換錯描給義寫單許串供型裝含讀連查內線編準稱鍵記套端呼傳轉須匹檢且整函縮請需修語壓伺庫域括退態注效況確詢務否允操視址控跋類刪報透區條狀送支權止欄誌援充網徑翻兩略印護獲儲按環核終介替境束軟規初載擴僅增論試限著助某宏維節訪題集議塊級另輯覽幫源釋複運導排索衝協屬尾具映忽斷簡詳素聯戶順測證隔句閉移遠緩憶壇埠範構根宣致殊超擇夠段製帶客碟遞待適依密際窗層份詞細較復考析驗決享據盤照額磁響零登圍尋臺歷般註停您陣隨驅禁覆敗強恢閱補約圖割斜秒搜硬郵互母專跳蓋概備槽短賴續迴速獨假插賦普哪隱鎖幾掛警籤游優價槓仍壞絕消省採免左飾守雜避右播嘗擬餘阻率味掉易典附達繼遵唯匯歸聲雙觸寒蟬布章虛瞭寬"

// judgeJapanese counts every non-ASCII character; a hit is kana (not the
// half-width forms, which bytes of other encodings read as Shift_JIS give) or
// a common Han character.
func judgeJapanese(_, r rune) (bool, bool) {
	kana := unicode.In(r, unicode.Hiragana, unicode.Katakana) && !(r >= 0xFF61 && r <= 0xFF9F)
	return true, kana || commonHanSet[r]
}

// judgeKorean counts every non-ASCII character; a hit is one of the most
// frequent Hangul syllables (EUC-KR reads most byte pairs of other CJK
// encodings as some syllable, rarely a frequent one).
func judgeKorean(_, r rune) (bool, bool) {
	return true, commonHangulSet[r]
}

// commonHangulSet holds the syllables of commonHangul.
var commonHangulSet = runeSet(commonHangul)

const commonHangul = "이는다의가에을를고하기지서한로으사리도어있수대자아시인나적게정해거보주우것그상일들전제부라만면내경요원과공와성동국화되장문소스여구미까마연없생위조오개및신세관니유발저모중식계선실같러함했음던비법분치드말진결간행회물방업현학체단많습"

// lowerCyrillic counts non-ASCII characters; a hit is a lower-case Cyrillic
// letter that does not follow a Latin letter (text is mostly lower case, the
// wrong one of KOI8-R and Windows-1251 swaps the cases, and a Western page
// read as Cyrillic puts Cyrillic letters inside Latin words).
func lowerCyrillic(prev, r rune) (bool, bool) {
	return true, unicode.Is(unicode.Cyrillic, r) && unicode.IsLower(r) && !isASCIILetter(prev)
}

func isASCIILetter(r rune) bool { return r < 0x80 && unicode.IsLetter(r) }

// latin1Letter counts every non-ASCII character; a hit is a letter of
// Latin-1 after a Latin letter or a space (accents in Western words; Cyrillic
// or CJK bytes read as Windows-1252 give runs of accented letters and
// symbols).
func latin1Letter(prev, r rune) (bool, bool) {
	letter := r >= 0xC0 && r <= 0xFF && r != 0xD7 && r != 0xF7
	return true, letter && (isASCIILetter(prev) || prev == ' ')
}
