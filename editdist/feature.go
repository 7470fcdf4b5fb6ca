package editdist

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// DefaultTerminators is Extractor.Terminators when it is empty: the Chinese
// full stop, the paper's only sentence mark.
const DefaultTerminators = "。"

// ChineseTerminators is the full stop and the full-width exclamation and
// question marks, an option beyond the paper for Chinese pages whose
// sentences often end in ！ or ？.
const ChineseTerminators = "。！？"

// LatinTerminators are the sentence marks of alphabetic scripts, for the
// Word feature.
const LatinTerminators = ".!?"

// FeatureFunc maps the text before a terminator (before) and after it
// (after) to one feature rune, or reports false when the terminator yields
// none. It must be a pure function of its arguments.
type FeatureFunc func(before, after string) (rune, bool)

// Han is the paper's feature: the character just before the terminator when
// it is a Han (Chinese) character; nothing when it is punctuation, a Latin
// letter, a digit or space.
func Han(before, _ string) (rune, bool) {
	r, size := utf8.DecodeLastRuneInString(before)
	if size == 0 || !unicode.Is(unicode.Han, r) {
		return 0, false
	}
	return r, true
}

// Word is the feature for alphabetic scripts: the word (letters, digits
// inside it, apostrophes) just before the terminator, lower-cased and hashed
// into a rune of the supplementary planes (U+10000–U+10FFFF), when the
// terminator ends a sentence: it is followed by space, the end of the text,
// or a closing quote or bracket, and the word has at least one letter. A
// full stop inside "3.14", "example.com" or "e.g" yields nothing.
func Word(before, after string) (rune, bool) {
	if next, size := utf8.DecodeRuneInString(after); size > 0 && !unicode.IsSpace(next) && !strings.ContainsRune(`"')]}»”’`, next) {
		return 0, false
	}
	end := len(before)
	start := end
	letters := false
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(before[:start])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' {
			break
		}
		letters = letters || unicode.IsLetter(r)
		start -= size
	}
	if !letters {
		return 0, false
	}
	var buf [64]byte
	w := before[start:end]
	if len(w) > len(buf) {
		w = w[len(w)-len(buf):] // the end of a very long token
	}
	b := buf[:0]
	for _, r := range w {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return 0x10000 + rune(xxhash.Sum64(b)%0x100000), true
}

// Extractor builds a page's feature string: for each terminator in the
// text, in order, the rune its Feature function gives. The zero Extractor is
// the paper's: the Han character before each 。.
type Extractor struct {
	// Terminators are the runes that end a sentence; empty means
	// DefaultTerminators.
	Terminators string
	// Feature maps the text around a terminator to a feature rune; nil
	// means Han.
	Feature FeatureFunc
	// Name identifies Feature in snapshots (a snapshot is read back only
	// with the same Name and Terminators): "han" for the zero Extractor,
	// "word" for Latin's. A custom Feature needs a Name.
	Name string
}

// Latin returns the Extractor for alphabetic scripts: Word before each of
// LatinTerminators.
func Latin() Extractor {
	return Extractor{Terminators: LatinTerminators, Feature: Word, Name: "word"}
}

// resolve fills in the defaults and validates e.
func (e Extractor) resolve() (Extractor, error) {
	if e.Terminators == "" {
		e.Terminators = DefaultTerminators
	}
	if !utf8.ValidString(e.Terminators) {
		return e, fmt.Errorf("editdist: Extractor.Terminators %q is not UTF-8", e.Terminators)
	}
	if e.Feature == nil {
		if e.Name != "" && e.Name != "han" {
			return e, fmt.Errorf("editdist: Extractor.Name %q without a Feature", e.Name)
		}
		e.Feature, e.Name = Han, "han"
	}
	if e.Name == "" {
		return e, fmt.Errorf("editdist: Extractor with a Feature needs a Name")
	}
	return e, nil
}

// Append appends the feature string of text to dst and returns the extended
// slice. text is a page with its tags stripped: no content extraction, so
// navigation bars, advertisements and copyright lines stay, and count only
// when their sentences end in a terminator. Invalid UTF-8 bytes are skipped
// as single bytes.
func (e Extractor) Append(dst []rune, text string) []rune { return e.appendN(dst, text, -1) }

// appendN is Append that stops once dst holds max runes (max < 0: no limit).
func (e Extractor) appendN(dst []rune, text string, max int) []rune {
	terms := e.Terminators
	if terms == "" {
		terms = DefaultTerminators
	}
	feature := e.Feature
	if feature == nil {
		feature = Han
	}
	for i := 0; i < len(text) && (max < 0 || len(dst) < max); {
		j := strings.IndexAny(text[i:], terms)
		if j < 0 {
			break
		}
		at := i + j
		_, size := utf8.DecodeRuneInString(text[at:])
		if r, ok := feature(text[:at], text[at+size:]); ok {
			dst = append(dst, r)
		}
		i = at + size
	}
	return dst
}

// Extract returns the feature string of text (see Append).
func (e Extractor) Extract(text string) []rune { return e.Append(nil, text) }
