package preprocess

import (
	"bytes"
	"fmt"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	textunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// MaxUndecodable is the largest share of a page's characters that may be
// undecodable (U+FFFD after decoding) before the page is rejected with
// ErrInvalidUTF8; below it, each undecodable byte becomes U+FFFD.
const MaxUndecodable = 0.3

// MaxControl is the largest share of a page's bytes that may be control
// characters other than white space (NUL, the other C0 codes but ESC) before
// the page is taken for binary data and rejected with ErrInvalidUTF8; below
// it, each becomes a space. Text has none or a few; UTF-16 is told apart
// first.
const MaxControl = 0.1

// Charset tells how Decode read a page: the WHATWG name of the encoding and
// where it came from.
type Charset struct {
	Name   string // "utf-8", "gb18030", "shift_jis", ...
	Source string // "bom", "header" (Content-Type), "meta", "detected" or "default"
}

// Decode returns raw as UTF-8, and how it was read. The encoding is, in
// order: the byte-order mark (UTF-8, UTF-16LE, UTF-16BE); the charset of
// contentType (an HTTP Content-Type value such as "text/html;
// charset=Shift_JIS", "" when unknown); for HTML (html true), a charset
// declared in a <meta> element in the first 1024 bytes; UTF-8 when raw is
// valid UTF-8; and otherwise the most plausible of the encodings of the
// web's legacy pages (GB18030, Big5, Shift_JIS, EUC-JP, EUC-KR, KOI8-R,
// Windows-1251, Windows-1252), judged by how few bytes each fails to decode
// and how much the text reads like its language; UTF-16 without a mark is
// told by its zero bytes.
// A declared encoding that fails on much of the page gives way to the same
// detection. Labels are the WHATWG Encoding Standard's (ISO-8859-1 and
// US-ASCII read as Windows-1252, GBK as GB18030, as browsers do).
//
// Bytes that cannot be decoded become U+FFFD and control characters (NUL
// included) other than white space become spaces, so one stray byte or a
// page cut in mid-character costs a character, not the page. A page of which
// more than MaxUndecodable cannot be decoded, or more than MaxControl of
// whose bytes are control characters, is binary data: Decode returns an
// error wrapping ErrInvalidUTF8.
func Decode(raw []byte, contentType string, html bool) ([]byte, Charset, error) {
	return decode(raw, contentType, html, true)
}

// decode is Decode; with all false it replaces only NUL in valid UTF-8 (the
// Pipeline's text extraction reads the other control characters as spaces
// itself, and skips the pass).
func decode(raw []byte, contentType string, html, all bool) ([]byte, Charset, error) {
	enc, cs := declared(raw, contentType, html)
	if enc == textunicode.UTF8 || enc == nil && !looksUTF16(raw) {
		// The common case: UTF-8, declared or not, and valid.
		body := bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
		if utf8.Valid(body) {
			if enc == nil {
				cs = Charset{"utf-8", "default"}
			}
			if share := controlShare(body); share > MaxControl {
				return nil, cs, fmt.Errorf("%w: %.0f%% of the page are control bytes (binary data?)", ErrInvalidUTF8, 100*share)
			}
			if !all && bytes.IndexByte(body, 0) < 0 {
				return body, cs, nil
			}
			return clean(body), cs, nil
		}
	}
	var out []byte
	if enc != nil {
		out = decodeWith(enc, raw)
		if wrongShare(enc, raw, out) > maxWrong {
			enc = nil // a wrong declaration: detect instead
		}
	}
	if enc == nil {
		order, isUTF16 := utf16Order(raw)
		if !isUTF16 {
			if share := controlShare(raw); share > MaxControl {
				return nil, Charset{}, fmt.Errorf("%w: %.0f%% of the page are control bytes (binary data?)", ErrInvalidUTF8, 100*share)
			}
		}
		if isUTF16 {
			enc, cs = textunicode.UTF16(order, textunicode.IgnoreBOM), Charset{"utf-16" + map[textunicode.Endianness]string{textunicode.LittleEndian: "le", textunicode.BigEndian: "be"}[order], "detected"}
			out = decodeWith(enc, raw)
		} else if utf8.Valid(raw) {
			out, cs = raw, Charset{"utf-8", "default"}
		} else {
			cs = detectCharset(raw)
			e, _ := htmlindex.Get(cs.Name)
			out = decodeWith(e, raw)
		}
	}
	if bad := undecodable(out); bad > MaxUndecodable {
		return nil, cs, fmt.Errorf("%w: %.0f%% of the page cannot be decoded as %s (binary data?)", ErrInvalidUTF8, 100*bad, cs.Name)
	}
	return clean(out), cs, nil
}

// declared returns the encoding raw declares (by its byte-order mark,
// contentType or, for HTML, a <meta> charset), or nil.
func declared(raw []byte, contentType string, html bool) (encoding.Encoding, Charset) {
	switch {
	case bytes.HasPrefix(raw, []byte("\xEF\xBB\xBF")):
		return textunicode.UTF8, Charset{"utf-8", "bom"}
	case bytes.HasPrefix(raw, []byte("\xFF\xFE")):
		return textunicode.UTF16(textunicode.LittleEndian, textunicode.ExpectBOM), Charset{"utf-16le", "bom"}
	case bytes.HasPrefix(raw, []byte("\xFE\xFF")):
		return textunicode.UTF16(textunicode.BigEndian, textunicode.ExpectBOM), Charset{"utf-16be", "bom"}
	}
	if contentType != "" {
		if _, params, err := mime.ParseMediaType(contentType); err == nil {
			if e, name := lookup(params["charset"], true); e != nil {
				return e, Charset{name, "header"}
			}
		}
	}
	if html {
		if e, name := lookup(metaCharset(raw), false); e != nil {
			return e, Charset{name, "meta"}
		}
	}
	return nil, Charset{}
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

// utf16Order reports whether raw looks like UTF-16 without a byte-order
// mark, and its byte order: most of a page's characters are ASCII (markup,
// spaces, digits), and in UTF-16 each has a zero byte beside it, all on the
// same side; other text has few zero bytes.
func utf16Order(raw []byte) (textunicode.Endianness, bool) {
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
	switch {
	case odd > half*3/10 && even < half/20:
		return textunicode.LittleEndian, true
	case even > half*3/10 && odd < half/20:
		return textunicode.BigEndian, true
	}
	return textunicode.LittleEndian, false
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
	{"big5", commonHan},
	{"shift_jis", judgeJapanese},
	{"euc-jp", judgeJapanese},
	{"euc-kr", judgeKorean},
	{"koi8-r", lowerCyrillic},
	{"windows-1251", lowerCyrillic},
	{"windows-1252", latin1Letter},
}

// detectCharset returns the most plausible encoding of raw, which is not valid
// UTF-8 and declares none: for each candidate, the share of the first 64 KB
// it decodes, times the share of the decoded non-ASCII characters that its
// language test accepts; the best product wins, earlier candidates on ties.
func detectCharset(raw []byte) Charset {
	sample := raw[:min(len(raw), 64<<10)]
	best, bestScore := "windows-1252", -1.0
	for _, c := range candidates {
		e, err := htmlindex.Get(c.name)
		if err != nil {
			continue
		}
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
			if cnt, hit := c.judge(p, r); cnt {
				counted++
				if hit {
					hits++
				}
			}
		}
		if n == 0 {
			continue
		}
		score := 1 - float64(bad)/float64(n)
		if counted > 0 {
			score *= 0.5 + 0.5*float64(hits)/float64(counted)
		} else {
			score *= 0.5
		}
		if score > bestScore {
			best, bestScore = c.name, score
		}
	}
	return Charset{best, "detected"}
}

// commonHanSet holds the 500 most frequent characters of Chinese text, in
// simplified and traditional forms.
var commonHanSet = func() map[rune]bool {
	m := make(map[rune]bool)
	for _, r := range commonHanChars {
		m[r] = true
	}
	return m
}()

const commonHanChars = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切們來說為這個會時學對後麼裡開當現麼過還無點種話與實進動長樣發問機國經頭樣見體關電場師書員誤將從聽氣總處邊萬東業產質習計劃認識應該讓還"

// commonHan counts Han characters; a hit is a common one.
func commonHan(_, r rune) (bool, bool) {
	if !unicode.Is(unicode.Han, r) {
		return r >= 0x80, false
	}
	return true, commonHanSet[r]
}

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
	return true, strings.ContainsRune(commonHangul, r)
}

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
