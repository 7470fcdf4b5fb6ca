package preprocess

import (
	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// Languages the pipeline knows. The first seven have a snowball stemmer and
// stop list; zh, ja and ko are analysed as CJK character bigrams; the others
// (German to Greek) have a stop list of their function words and no
// stemmer.
const (
	English   Language = "en"
	French    Language = "fr"
	Spanish   Language = "es"
	Russian   Language = "ru"
	Swedish   Language = "sv"
	Norwegian Language = "no"
	Hungarian Language = "hu"
	Chinese   Language = "zh"
	Japanese  Language = "ja"
	Korean    Language = "ko"

	German     Language = "de"
	Dutch      Language = "nl"
	Italian    Language = "it"
	Portuguese Language = "pt"
	Catalan    Language = "ca"
	Romanian   Language = "ro"
	Danish     Language = "da"
	Finnish    Language = "fi"
	Polish     Language = "pl"
	Czech      Language = "cs"
	Turkish    Language = "tr"
	Indonesian Language = "id"
	Vietnamese Language = "vi"
	Ukrainian  Language = "uk"
	Serbian    Language = "sr"
	Bulgarian  Language = "bg"
	Greek      Language = "el"

	// Undetermined ("und", BCP 47's tag for an undetermined language) is
	// what DetectLanguage returns, and Page.Language holds, when no
	// language is clear enough: too few words, hardly any function words
	// (names, numbers, code, tables), or two languages about as likely.
	// The words of an Undetermined page are analysed as the Latin words of
	// a CJK page are, with English's stop list and stemmer: such pages are
	// most often English, and two releases of one page that fall on either
	// side of the threshold (an API index, a page of constants) then keep
	// the same tokens. A page confidently in another language is never
	// given English's rules. Options.Language does not take it.
	Undetermined Language = "und"
)

// snowballLangs lists the languages with a snowball stemmer, in the order
// DetectLanguage prefers them on a tie. Index = position in stemCaches.
var snowballLangs = [...]Language{English, French, Spanish, Russian, Swedish, Norwegian, Hungarian}

// SupportedLanguages returns the languages Options.Language accepts, in a
// fixed order. The slice is new on every call.
func SupportedLanguages() []Language {
	return []Language{English, French, Spanish, Russian, Swedish, Norwegian, Hungarian, Chinese, Japanese, Korean,
		German, Dutch, Italian, Portuguese, Catalan, Romanian, Danish, Finnish, Polish, Czech, Turkish,
		Indonesian, Vietnamese, Ukrainian, Serbian, Bulgarian, Greek}
}

func isSupported(l Language) bool {
	for _, s := range SupportedLanguages() {
		if s == l {
			return true
		}
	}
	return false
}

// snowballIndex returns the index of l in snowballLangs, or -1.
func snowballIndex(l Language) int {
	for i, s := range snowballLangs {
		if s == l {
			return i
		}
	}
	return -1
}

// wordLanguage is the language whose stop list and stemmer apply to the
// non-CJK words of a page in language l: Latin-script words in Chinese,
// Japanese or Korean pages are nearly always English (commands, names), and
// so are the words of an Undetermined page (see Undetermined).
func wordLanguage(l Language) Language {
	switch l {
	case Chinese, Japanese, Korean, Undetermined:
		return English
	}
	return l
}

// stemFunc returns the snowball stemmer of a snowball language index.
func stemFunc(i int) func(string, bool) string {
	switch snowballLangs[i] {
	case English:
		return english.Stem
	case French:
		return french.Stem
	case Spanish:
		return spanish.Stem
	case Russian:
		return russian.Stem
	case Swedish:
		return swedish.Stem
	case Norwegian:
		return norwegian.Stem
	case Hungarian:
		return hungarian.Stem
	}
	return nil
}

// IsStopWord reports whether the lower-cased word w is a stop word of
// language l: snowball's list for the seven languages it stems, the
// function words DetectLanguage counts for the other languages of
// SupportedLanguages; English's for Undetermined. For CJK languages w is a character unigram or bigram: a
// unigram is a stop word when it is a function character (的 了 是 在 和 ...,
// or a Japanese particle), a bigram when both its characters are; for words
// in Latin script IsStopWord(zh, w) == IsStopWord(en, w).
func IsStopWord(l Language, w string) bool {
	if isCJKToken(w) {
		return isCJKStop(w)
	}
	switch wordLanguage(l) {
	case English:
		return isEnglishStop(w)
	case French:
		// Snowball's French list lacks the plural article "les".
		return w == "les" || french.IsStopWord(w)
	case Spanish:
		return spanish.IsStopWord(w)
	case Russian:
		return russian.IsStopWord(w)
	case Swedish:
		return swedish.IsStopWord(w)
	case Norwegian:
		return norwegian.IsStopWord(w)
	case Hungarian:
		return hungarian.IsStopWord(w)
	}
	if i := detectIndex(l); i >= 0 {
		return functionWords[w]&(1<<i) != 0
	}
	return false
}

// isEnglishStop is snowball's English stop list (which already holds every
// stop word Kumar and Govindarajulu names: it, can, an, and, by, for, from, of, the, to,
// with, is, as; and Khan et al.'s a, an, the) plus the fragments our tokenizer
// makes of the contractions that the full snowball list spells out ("we'll"
// -> "we" "ll", "isn't" -> "isn" "t"), and a few modal verbs and adverbs.
func isEnglishStop(w string) bool {
	if english.IsStopWord(w) {
		return true
	}
	switch w {
	case "ll", "re", "ve", "d", "m", "o", "y", "isn", "aren", "wasn", "weren",
		"hasn", "haven", "hadn", "doesn", "didn", "won", "wouldn", "shan",
		"shouldn", "couldn", "mustn", "needn", "mightn", "ain", "would",
		"could", "also", "may", "might", "must", "shall", "us", "upon", "yet":
		return true
	}
	return false
}

// isCJKStopRune lists function characters of Chinese and Japanese: particles,
// pronouns, copulas and aspect markers that carry no topic on their own.
func isCJKStopRune(r rune) bool {
	switch r {
	// Chinese
	case '的', '了', '是', '在', '和', '与', '及', '或', '也', '都', '而', '就',
		'把', '被', '让', '对', '从', '这', '那', '之', '其', '此', '等', '个',
		'着', '过', '吗', '呢', '吧', '啊', '呀', '我', '你', '他', '她', '它',
		'们', '为', '以', '于', '将', '并', '由', '但', '又', '所', '该', '每',
		'各', '很', '更', '最', '还', '即', '则', '如', '若', '乃', '得', '地',
		// Japanese particles and auxiliaries (hiragana)
		'の', 'は', 'が', 'を', 'に', 'で', 'と', 'も', 'へ', 'や', 'か', 'ね',
		'よ', 'な', 'だ', 'て', 'た', 'し', 'る', 'す', 'ま', 'り', 'れ', 'い',
		'う', 'ら', 'こ', 'そ', 'あ', 'ど', 'せ':
		return true
	}
	return false
}

// isCJKStop reports whether a CJK unigram or bigram is made only of stop
// characters.
func isCJKStop(w string) bool {
	for _, r := range w {
		if !isCJKStopRune(r) {
			return false
		}
	}
	return w != ""
}

// isCJKToken reports whether w starts with a Han, Kana or Hangul character.
func isCJKToken(w string) bool {
	for _, r := range w {
		return classify(r) >= classCJK
	}
	return false
}
