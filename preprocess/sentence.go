package preprocess

import (
	"unicode"
	"unicode/utf8"
)

// ScanSentences is a bufio.SplitFunc that returns each sentence of UTF-8
// text, trimmed of surrounding white space; it never returns an empty token.
// The returned token is always a sub-slice of data.
//
// A sentence ends:
//   - at a line break ('\n', U+2028, U+2029): block boundaries in text made by
//     AppendHTMLText or AppendPlainText end a sentence;
//   - after '.', '!' or '?' (with any following terminators and closing quotes
//     or brackets) when white space or the end of input follows and the next
//     word does not start with a lower-case letter or a digit, and, for '.',
//     the word before is not a known abbreviation ("e.g.", "i.e.", "Dr.",
//     "Fig.", "U.S.", a single initial such as "J."). So "3.14", "e.g. the",
//     "etc. and", "Dr. Smith" and "www.example.com" do not end a sentence;
//   - after a CJK terminator (。！？｡ and every other Unicode Sentence_Terminal
//     character), with no space needed after it.
//
// Like bufio.ScanLines it requests more data when it cannot yet decide, and
// at EOF returns the rest as the last sentence.
func ScanSentences(data []byte, atEOF bool) (advance int, token []byte, err error) {
	start := 0
	for start < len(data) {
		r, size := rune(data[start]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(data[start:])
		}
		if !isSentenceSpace(r) {
			break
		}
		start += size
	}
	if start == len(data) {
		// Only white space: consume it without a token.
		return len(data), nil, nil
	}
	for i := start; i < len(data); {
		c := data[i]
		r, size := rune(c), 1
		if c < utf8.RuneSelf {
			if c >= 64 || uint64(asciiStops)>>c&1 == 0 {
				i++ // the common case: no line break or terminator
				continue
			}
		} else {
			r, size = utf8.DecodeRune(data[i:])
		}
		switch {
		case c == '\n' || r == 0x2028 || r == 0x2029:
			return i + size, trimSentence(data[start:i]), nil
		case c == '.' || c == '!' || c == '?' || (c >= utf8.RuneSelf && isSentenceTerminal(r)):
			j := i + size
			for j < len(data) {
				r2, s2 := rune(data[j]), 1
				if r2 >= utf8.RuneSelf {
					r2, s2 = utf8.DecodeRune(data[j:])
				}
				if !isTerminal(r2) && !isCloser(r2) {
					break
				}
				j += s2
			}
			switch breaksAt(data, start, i, j, atEOF) {
			case yes:
				return j, trimSentence(data[start:j]), nil
			case needMore:
				return 0, nil, nil
			}
			i = j
			continue
		}
		i += size
	}
	if atEOF {
		return len(data), trimSentence(data[start:]), nil
	}
	return 0, nil, nil
}

type decision uint8

const (
	no decision = iota
	yes
	needMore
)

// breaksAt decides whether the terminator at data[i] (followed by
// terminators and closers up to j) ends the sentence that began at start.
func breaksAt(data []byte, start, i, j int, atEOF bool) decision {
	if j == len(data) {
		if atEOF {
			return yes
		}
		return needMore
	}
	c := data[i]
	if c >= utf8.RuneSelf {
		// CJK and other scripts' terminators need no following space.
		return yes
	}
	r, _ := utf8.DecodeRune(data[j:])
	if !isSentenceSpace(r) {
		return no // "3.14", "e.g.x", "example.com", "Yahoo!Mail"
	}
	// Look at the first character of the next word.
	k := j
	for k < len(data) {
		r, size := utf8.DecodeRune(data[k:])
		if r == '\n' || r == 0x2028 || r == 0x2029 {
			return yes
		}
		if !isSentenceSpace(r) {
			break
		}
		k += size
	}
	if k == len(data) {
		if atEOF {
			return yes
		}
		return needMore
	}
	next, _ := utf8.DecodeRune(data[k:])
	if unicode.IsLower(next) || unicode.IsDigit(next) {
		return no // "e.g. the", "etc. and", "Fig. 3", "approx. 5"
	}
	if c == '.' && (isAbbreviation(data[start:i]) || isNumberLabel(data[start:i])) {
		return no
	}
	return yes
}

// isNumberLabel reports whether s is a short label ending in a number, as in
// the headings "9.9. Date/Time Functions", "Chapter 9. Functions" and
// "Table 9.33. Operators": at most two words, the last made of digits and
// dots.
func isNumberLabel(s []byte) bool {
	k := len(s)
	for k > 0 && (s[k-1] == '.' || ('0' <= s[k-1] && s[k-1] <= '9')) {
		k--
	}
	if k == len(s) || (k > 0 && s[k-1] != ' ') {
		return false
	}
	words := 1
	for _, c := range s[:k] {
		if c == ' ' {
			words++
		}
	}
	return words <= 2
}

// isAbbreviation reports whether the word ending s (just before a '.') is an
// abbreviation that does not end a sentence before a capitalised word.
func isAbbreviation(s []byte) bool {
	k := len(s)
	for k > 0 {
		c := s[k-1]
		if c == '.' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			k--
			continue
		}
		break
	}
	w := s[k:]
	if len(w) == 0 || len(w) > 8 {
		return false
	}
	if len(w) == 1 {
		return true // an initial: "J. Smith"
	}
	var buf [8]byte
	dots, seg, maxSeg := 0, 0, 0
	for n, c := range w {
		if c == '.' {
			dots++
			seg = 0
		} else {
			seg++
			maxSeg = max(maxSeg, seg)
		}
		buf[n] = c | 0x20
	}
	if dots > 0 && maxSeg <= 2 {
		return true // "U.S", "e.g", "i.e", "Ph.D", "a.m"
	}
	switch string(buf[:len(w)]) {
	case "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "cf", "fig",
		"figs", "vol", "vols", "inc", "ltd", "co", "corp", "approx", "dept",
		"est", "al", "mt", "gen", "col", "sgt", "lt", "capt", "rev", "ed",
		"eds", "pp", "ch", "sec", "ca", "viz", "resp", "jan", "feb", "mar",
		"apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "eq",
		"eqs", "ref", "refs", "nr", "tel":
		return true
	}
	return false
}

// asciiStops has bit c set for the ASCII bytes c at which ScanSentences
// stops to look: '\n', '!', '.', '?' (all below 64).
const asciiStops = 1<<'\n' | 1<<'!' | 1<<'.' | 1<<'?'

// isTerminal reports a sentence-terminating rune.
func isTerminal(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '.' || r == '!' || r == '?'
	}
	return isSentenceTerminal(r)
}

// isSentenceTerminal is unicode.Is(unicode.Sentence_Terminal, r) for r >=
// utf8.RuneSelf, answering at once for the blocks without terminators that
// hold Han, Kana and Hangul (U+3003..U+A4FE, U+ABEC..U+FE51) and for Latin,
// Greek and Cyrillic (below U+0589).
func isSentenceTerminal(r rune) bool {
	if r < 0x589 || (0x3002 < r && r < 0xA4FF) || (0xABEB < r && r < 0xFE52) {
		return false
	}
	return unicode.Is(unicode.Sentence_Terminal, r)
}

// isCloser reports closing quotes and brackets that stay with the sentence
// they close: `He said "Stop." Then` splits after the quote.
func isCloser(r rune) bool {
	switch r {
	case ')', ']', '}', '"', '\'', '”', '’', '»', '›', '」', '』', '）', '】', '〉', '》', '〕', '］':
		return true
	}
	return false
}

// isSentenceSpace reports white space, including the separators the text
// stages never emit but callers' text may hold.
func isSentenceSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f
	}
	return isSpaceRune(r) || r == 0x2028 || r == 0x2029 || r == 0xFEFF
}

// trimSentence trims white space from both ends of s, returning a sub-slice.
func trimSentence(s []byte) []byte {
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if !isSentenceSpace(r) {
			break
		}
		s = s[size:]
	}
	for len(s) > 0 {
		r, size := utf8.DecodeLastRune(s)
		if !isSentenceSpace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}
