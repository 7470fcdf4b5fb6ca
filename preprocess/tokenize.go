package preprocess

import (
	"unicode"
	"unicode/utf8"
)

// charClass is what the tokenizer does with a rune.
type charClass uint8

const (
	classSep    charClass = iota // separates tokens
	classWord                    // part of a word (letters, digits, marks)
	classCJK                     // Han, Hiragana, Katakana: character bigrams
	classHangul                  // Hangul: character bigrams, own runs
)

// classify returns the class of r (any rune; ASCII included).
func classify(r rune) charClass {
	if r < utf8.RuneSelf {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || ('A' <= r && r <= 'Z') {
			return classWord
		}
		return classSep
	}
	switch {
	case 0x4E00 <= r && r <= 0x9FFF, 0x3040 <= r && r <= 0x30FF, 0x3400 <= r && r <= 0x4DBF:
		return classCJK // CJK unified ideographs, Hiragana, Katakana (incl. ー), extension A
	case 0xAC00 <= r && r <= 0xD7A3:
		return classHangul
	case 0xFF10 <= r && r <= 0xFF19, 0xFF21 <= r && r <= 0xFF3A, 0xFF41 <= r && r <= 0xFF5A:
		return classWord // full-width ASCII letters and digits
	case r == 0x3005 || r == 0x3006 || r == 0x3007: // 々 〆 〇
		return classCJK
	case r <= 0xA9, 0x2000 <= r && r <= 0x206F, 0x3000 <= r && r <= 0x3004, 0x3008 <= r && r <= 0x3020,
		0xFF01 <= r && r <= 0xFF0F, 0xFF1A <= r && r <= 0xFF20, 0xFF3B <= r && r <= 0xFF40, 0xFF5B <= r && r <= 0xFF64:
		// Latin-1 controls and symbols, general punctuation, CJK and
		// full-width punctuation: answered here without the Unicode tables.
		return classSep
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
		return classCJK
	case unicode.Is(unicode.Hangul, r):
		if unicode.IsLetter(r) {
			return classHangul
		}
		return classSep
	case unicode.IsLetter(r), unicode.IsDigit(r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Mc, r):
		return classWord
	}
	return classSep
}

// tokenKind tells the later stages how to treat a token.
type tokenKind uint8

const (
	kindWord   tokenKind = iota // letters only: stop list, stemmer
	kindNumber                  // holds a digit: never stemmed
	kindCJK                     // CJK character unigram or bigram
)

// tokenSink receives tokens from scanTokens. text is the token as a string
// when it is exactly a substring of the input (no copy needed); otherwise
// text is "" and low holds the lower-cased bytes (valid until the next call).
// runes is the token's length in runes.
type tokenSink func(text string, low []byte, kind tokenKind, runes int)

// scanTokens splits text into tokens and passes each to sink in order:
//   - a word is a maximal run of letters, digits and combining marks of
//     scripts other than Han, Kana and Hangul, lower-cased (ASCII fast path,
//     unicode.ToLower otherwise, full-width ASCII folded to ASCII);
//   - a run of Han and Kana characters (or of Hangul syllables) yields its
//     overlapping character bigrams, or the one character when the run has
//     only one;
//   - a change of class ends a token: "Linux内核" is "linux", "内核".
//
// low is a scratch buffer; the possibly grown buffer is returned.
func scanTokens(text string, low []byte, sink tokenSink) []byte {
	i := 0
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if !(('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || ('A' <= c && c <= 'Z')) {
				i++
				continue
			}
			// Fast path: an ASCII lower-case word ending at an ASCII separator.
			j, digit := i, false
			for j < len(text) {
				d := text[j]
				if 'a' <= d && d <= 'z' {
					j++
				} else if '0' <= d && d <= '9' {
					digit = true
					j++
				} else {
					break
				}
			}
			if j == len(text) || (text[j] < utf8.RuneSelf && !('A' <= text[j] && text[j] <= 'Z')) {
				kind := kindWord
				if digit {
					kind = kindNumber
				}
				sink(text[i:j], nil, kind, j-i)
				i = j
				continue
			}
			i, low = scanWord(text, i, low, sink)
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch classify(r) {
		case classWord:
			i, low = scanWord(text, i, low, sink)
		case classCJK, classHangul:
			i = scanCJK(text, i, sink)
		default:
			i += size
		}
	}
	return low
}

// scanWord reads the word starting at text[i], lower-casing it into low.
func scanWord(text string, i int, low []byte, sink tokenSink) (int, []byte) {
	start := i
	low = low[:0]
	changed, digit, runes := false, false, 0
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z':
				low = append(low, c)
			case '0' <= c && c <= '9':
				digit = true
				low = append(low, c)
			case 'A' <= c && c <= 'Z':
				low = append(low, c+'a'-'A')
				changed = true
			default:
				goto done
			}
			i++
			runes++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if classify(r) != classWord {
			break
		}
		switch {
		case 0xFF10 <= r && r <= 0xFF19:
			low = append(low, byte(r-0xFF10+'0'))
			digit, changed = true, true
		case 0xFF21 <= r && r <= 0xFF3A:
			low = append(low, byte(r-0xFF21+'a'))
			changed = true
		case 0xFF41 <= r && r <= 0xFF5A:
			low = append(low, byte(r-0xFF41+'a'))
			changed = true
		default:
			if unicode.IsDigit(r) {
				digit = true
			}
			if lr := unicode.ToLower(r); lr != r {
				low = utf8.AppendRune(low, lr)
				changed = true
			} else {
				low = append(low, text[i:i+size]...)
			}
		}
		i += size
		runes++
	}
done:
	kind := kindWord
	if digit {
		kind = kindNumber
	}
	if changed {
		sink("", low, kind, runes)
	} else {
		sink(text[start:i], nil, kind, runes)
	}
	return i, low
}

// scanCJK reads the run of CJK characters of one class starting at text[i]
// and emits its bigrams (or the lone character).
func scanCJK(text string, i int, sink tokenSink) int {
	r, size := utf8.DecodeRuneInString(text[i:])
	cls := classify(r)
	prev := i // start of the previous character
	i += size
	n := 1
	for i < len(text) {
		r, size = utf8.DecodeRuneInString(text[i:])
		if r < utf8.RuneSelf || classify(r) != cls {
			break
		}
		sink(text[prev:i+size], nil, kindCJK, 2)
		prev = i
		i += size
		n++
	}
	if n == 1 {
		sink(text[prev:i], nil, kindCJK, 1)
	}
	return i
}

// AppendTokens appends the raw tokens of text to dst (lower-cased words and
// CJK bigrams, before stop-word removal and stemming) and returns the
// extended slice. It is the tokenizer stage of a Pipeline, exposed for
// callers who build their own analysis.
func AppendTokens(dst []string, text string) []string {
	scanTokens(text, nil, func(s string, low []byte, _ tokenKind, _ int) {
		if s == "" {
			s = string(low)
		}
		dst = append(dst, s)
	})
	return dst
}
