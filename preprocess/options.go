package preprocess

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Defaults used for zero Options fields.
const (
	// DefaultMaxBytes is the largest page accepted when Options.MaxBytes is 0.
	DefaultMaxBytes = 8 << 20
	// DefaultMinTokenLen is the shortest word token (in runes) kept when
	// Options.MinTokenLen is 0. One-letter and one-digit tokens are list
	// markers, initials and the pieces of "e.g." or "9.9.1": they carry no
	// topic. (CJK unigrams are not affected.)
	DefaultMinTokenLen = 2
	// DefaultMaxTokenLen is the longest word token (in bytes) kept when
	// Options.MaxTokenLen is 0. Longer "words" are almost always base64,
	// hashes or minified code; they are dropped, not truncated.
	DefaultMaxTokenLen = 64

	// DefaultMaxTokens is Options.MaxTokens when it is 0: 1<<18 tokens, some
	// 1.5 MB of English text, over ten times the most a page of the
	// labelled corpora has.
	DefaultMaxTokens = 1 << 18
	// DefaultMaxTerms is Options.MaxTerms when it is 0: 1<<16 distinct
	// words, some ten times the most a page of the labelled corpora has.
	DefaultMaxTerms = 1 << 16
	// DefaultStemCacheSize is the number of stems a Pipeline remembers per
	// language when Options.StemCacheSize is 0.
	DefaultStemCacheSize = 1 << 16
)

// Options configures a Pipeline. The zero value selects every default:
// detect the language per page, remove stop words, stem, accept pages up to
// DefaultMaxBytes. Options are passed by value and copied by New.
type Options struct {
	// MaxBytes is the largest input accepted, in bytes; 0 means
	// DefaultMaxBytes. Larger input fails with ErrTooLarge before any work.
	MaxBytes int

	// Language forces the analysis language; "" detects it per page (see
	// DetectLanguage). It must be one of SupportedLanguages.
	Language Language

	// KeepStopWords disables stop-word removal.
	KeepStopWords bool

	// NoStem disables stemming.
	NoStem bool

	// ExtraStopWords are removed in addition to the language's own list,
	// compared with the lower-cased token before stemming. Entries must be
	// non-empty valid UTF-8; they are lower-cased by New.
	ExtraStopWords []string

	// MinTokenLen drops word tokens shorter than this many runes; 0 means
	// DefaultMinTokenLen. CJK character n-grams are never dropped by length.
	MinTokenLen int

	// MaxTokenLen drops word tokens longer than this many bytes; 0 means
	// DefaultMaxTokenLen.
	MaxTokenLen int

	// MaxTokens bounds Page.Tokens: a page's first MaxTokens analysed
	// tokens are kept in order, the rest only counted in Page.Terms, so that
	// a page of megabytes does not cost a string header per word; 0 means
	// DefaultMaxTokens, negative is invalid. It also bounds the other
	// per-page lists: Tokens are drawn from the page's first 2×MaxTokens
	// raw tokens (before stop-word removal), and Page.Sentences and
	// Page.Blocks describe at most the first MaxTokens/4 sentences and
	// lines (at least one).
	MaxTokens int

	// MaxTerms bounds the distinct words a page counts: the first MaxTerms
	// distinct raw tokens of a page (lower-cased words and CJK n-grams,
	// before stop-word removal and stemming) are counted wherever they
	// occur; a token first seen after that is dropped from Tokens, Terms
	// and the block token ranges. So Page.Terms has at most MaxTerms
	// entries, and an 8 MB page of random words or characters costs tens
	// of megabytes, not gigabytes. 0 means DefaultMaxTerms, negative is
	// invalid.
	MaxTerms int

	// StemCacheSize bounds the per-language memo of stems kept by the
	// Pipeline (entries per language); 0 means DefaultStemCacheSize and a
	// negative value disables the cache (stems are then memoised per page
	// only). Each of the Pipeline's pooled work areas (about one per
	// goroutine processing at once) also remembers what the words of
	// earlier pages became, up to min(StemCacheSize, 8192) words per
	// language for the Process methods and as many tokens for TextTerms,
	// under the same switch.
	StemCacheSize int
}

// withDefaults returns o with zero fields replaced by their defaults and
// checks every field. Errors wrap ErrInvalidOption.
func (o Options) withDefaults() (Options, error) {
	if o.MaxBytes < 0 {
		return o, fmt.Errorf("preprocess: MaxBytes %d < 0: %w", o.MaxBytes, ErrInvalidOption)
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Language != "" && !isSupported(o.Language) {
		return o, fmt.Errorf("preprocess: unsupported Language %q (want one of %v): %w", o.Language, SupportedLanguages(), ErrInvalidOption)
	}
	if o.MinTokenLen < 0 {
		return o, fmt.Errorf("preprocess: MinTokenLen %d < 0: %w", o.MinTokenLen, ErrInvalidOption)
	}
	if o.MinTokenLen == 0 {
		o.MinTokenLen = DefaultMinTokenLen
	}
	if o.MaxTokenLen < 0 {
		return o, fmt.Errorf("preprocess: MaxTokenLen %d < 0: %w", o.MaxTokenLen, ErrInvalidOption)
	}
	if o.MaxTokenLen == 0 {
		o.MaxTokenLen = DefaultMaxTokenLen
	}
	if o.MaxTokenLen < o.MinTokenLen {
		return o, fmt.Errorf("preprocess: MaxTokenLen %d < MinTokenLen %d: %w", o.MaxTokenLen, o.MinTokenLen, ErrInvalidOption)
	}
	if o.MaxTokens < 0 {
		return o, fmt.Errorf("preprocess: MaxTokens %d < 0: %w", o.MaxTokens, ErrInvalidOption)
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.MaxTerms < 0 {
		return o, fmt.Errorf("preprocess: MaxTerms %d < 0: %w", o.MaxTerms, ErrInvalidOption)
	}
	if o.MaxTerms == 0 {
		o.MaxTerms = DefaultMaxTerms
	}
	if o.StemCacheSize == 0 {
		o.StemCacheSize = DefaultStemCacheSize
	}
	if len(o.ExtraStopWords) > 0 {
		words := make([]string, len(o.ExtraStopWords))
		for i, w := range o.ExtraStopWords {
			if w == "" || !utf8.ValidString(w) {
				return o, fmt.Errorf("preprocess: ExtraStopWords[%d] %q is empty or not UTF-8: %w", i, w, ErrInvalidOption)
			}
			words[i] = strings.ToLower(w)
		}
		o.ExtraStopWords = words
	}
	return o, nil
}

// maxLines is the most sentences and lines of text a page describes.
func (o Options) maxLines() int { return max(o.MaxTokens/4, 1) }
