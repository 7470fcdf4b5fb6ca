package synth

import (
	"fmt"
	"math"

	"github.com/neardup/neardup/internal/sentinel"
)

// ErrInvalidOption is wrapped by the errors New and WriteCorpus return for
// options out of range. It is neardup.ErrInvalidOption, so errors.Is(err,
// neardup.ErrInvalidOption) holds for them too.
var ErrInvalidOption = sentinel.ErrInvalidOption

// Defaults of the zero Options.
const (
	DefaultDuplicates   = 0.15 // share of pages that nearly duplicate an earlier page
	DefaultChinese      = 0.25 // share of hosts written in Chinese
	DefaultZipfExponent = 1.4  // host sizes: the k-th host's share ∝ (ZipfOffset+k)^-ZipfExponent
	DefaultZipfOffset   = 20
	DefaultShort        = 0.15 // share of articles of 50–150 words
	DefaultMedianWords  = 450  // median length of the other articles, in words
	DefaultHostCache    = 1024 // host templates kept between pages
)

// MaxPages is the largest Options.Pages.
const MaxPages = 1<<31 - 1

// Options configure a generated crawl. The zero value of every field but
// Pages means its default; a negative Duplicates, Chinese or Short means
// none.
type Options struct {
	// Seed selects the crawl: the same Seed and Options give the same
	// pages, byte for byte.
	Seed int64

	// Pages is the length of the crawl, 1 to MaxPages. The pages do not
	// depend on it: a crawl is a prefix of every longer one with the same
	// other options.
	Pages int

	// Duplicates is the share of pages that nearly duplicate an earlier
	// page (default 0.15, at most 0.9), and Mix how they divide among the
	// kinds of near-duplicate (zero Mix: DefaultMix()).
	Duplicates float64
	Mix        Mix

	// Chinese is the share of hosts written in Chinese (default 0.25, at
	// most 1); the others are in English.
	Chinese float64

	// Hosts bounds the number of hosts; 0 (the default) leaves it unbounded,
	// so that the hosts seen grow with Pages (a long tail: most hosts show
	// fewer than five pages at every length). The k-th host (k = 1, 2, ...)
	// is picked with probability ∝ (ZipfOffset+k)^-ZipfExponent: a Zipf law
	// whose first ZipfOffset hosts are about the same size. ZipfExponent
	// must be in (1, 4] (default 1.4), ZipfOffset in (0, 10^6] (default 20).
	Hosts        int
	ZipfExponent float64
	ZipfOffset   float64

	// Short is the share of articles of 50–150 words, shorter than their
	// page's template (default 0.15, at most 1); the other articles'
	// lengths are log-normal around MedianWords (default 450, 150 to
	// 5,000), from 150 to 8 times MedianWords. Chinese articles have 1.6
	// characters per word.
	Short       float64
	MedianWords int

	// Text selects how article text is written (default Words; Bigram
	// makes phrases recur across unrelated pages).
	Text Text

	// HostCache is the number of host templates kept between pages
	// (default 1024, at most 1<<20); a host not kept is built again from
	// its seed. It bounds the crawl's memory (about 6 KB a host) and does
	// not change the pages.
	HostCache int
}

// Text is how a crawl writes its article text.
type Text int

const (
	// Words (the default) draws about one word in five from the article's
	// topic, two in five after the previous word (one of its most frequent
	// successors in the sample corpus, uniformly) and the rest by
	// frequency: distinct articles share next to no 4-word phrase.
	Words Text = iota
	// Bigram walks the sample corpus's bigram model (model_en.txt,
	// model_zh.txt): nine words in ten follow the previous word, half of
	// them as its most frequent successor, the others by frequency or from
	// the topic, so that 4-word phrases ("one of the most") recur across
	// unrelated pages the way common phrases do in a large crawl — the
	// chance candidates of a sketch index grow with the repository on it.
	Bigram
)

// String returns "words" or "bigram".
func (t Text) String() string {
	switch t {
	case Words:
		return "words"
	case Bigram:
		return "bigram"
	}
	return fmt.Sprintf("Text(%d)", int(t))
}

// Mix weighs the kinds of near-duplicate; the weights need not add up to
// one. A zero Mix means DefaultMix().
type Mix struct {
	Refetch, Retemplate, Boilerplate, Swap, Edit, Reoffer float64
}

// DefaultMix returns the mix of near-duplicates of the zero Options:
// re-fetches 25 %, re-templated copies 15 %, changed boilerplate 15 %,
// swapped paragraphs 10 %, edits 20 %, re-offers 15 %.
func DefaultMix() Mix {
	return Mix{Refetch: 0.25, Retemplate: 0.15, Boilerplate: 0.15, Swap: 0.10, Edit: 0.20, Reoffer: 0.15}
}

func (m Mix) weights() [numKinds]float64 {
	return [numKinds]float64{Refetch: m.Refetch, Retemplate: m.Retemplate, Boilerplate: m.Boilerplate, Swap: m.Swap, Edit: m.Edit, Reoffer: m.Reoffer}
}

func invalid(field string, v any, want string) error {
	return fmt.Errorf("synth: Options.%s = %v, want %s: %w", field, v, want, ErrInvalidOption)
}

// share returns a share option's value: def for 0, 0 for a negative value.
func share(field string, v, def, max float64) (float64, error) {
	switch {
	case math.IsNaN(v) || v > max:
		return 0, invalid(field, v, fmt.Sprintf("at most %g (0: %g, negative: none)", max, def))
	case v == 0:
		return def, nil
	case v < 0:
		return 0, nil
	}
	return v, nil
}

// withDefaults validates o and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	var err error
	if o.Pages < 1 || o.Pages > MaxPages {
		return o, invalid("Pages", o.Pages, fmt.Sprintf("1 to %d", MaxPages))
	}
	if o.Duplicates, err = share("Duplicates", o.Duplicates, DefaultDuplicates, 0.9); err != nil {
		return o, err
	}
	if o.Chinese, err = share("Chinese", o.Chinese, DefaultChinese, 1); err != nil {
		return o, err
	}
	if o.Short, err = share("Short", o.Short, DefaultShort, 1); err != nil {
		return o, err
	}
	sum := 0.0
	for _, w := range o.Mix.weights() {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return o, invalid("Mix", o.Mix, "weights that are finite and not negative")
		}
		sum += w
	}
	if sum == 0 {
		o.Mix = DefaultMix()
	}
	if o.Hosts < 0 {
		return o, invalid("Hosts", o.Hosts, "0 (unbounded) or more")
	}
	switch {
	case o.ZipfExponent == 0:
		o.ZipfExponent = DefaultZipfExponent
	case !(o.ZipfExponent > 1 && o.ZipfExponent <= 4):
		return o, invalid("ZipfExponent", o.ZipfExponent, "in (1, 4]")
	}
	switch {
	case o.ZipfOffset == 0:
		o.ZipfOffset = DefaultZipfOffset
	case !(o.ZipfOffset > 0 && o.ZipfOffset <= 1e6):
		return o, invalid("ZipfOffset", o.ZipfOffset, "in (0, 1e6]")
	}
	switch {
	case o.MedianWords == 0:
		o.MedianWords = DefaultMedianWords
	case o.MedianWords < 150 || o.MedianWords > 5000:
		return o, invalid("MedianWords", o.MedianWords, "150 to 5000")
	}
	if o.Text != Words && o.Text != Bigram {
		return o, invalid("Text", o.Text, "Words or Bigram")
	}
	switch {
	case o.HostCache == 0:
		o.HostCache = DefaultHostCache
	case o.HostCache < 0 || o.HostCache > 1<<20:
		return o, invalid("HostCache", o.HostCache, "1 to 1<<20 (0: default)")
	}
	return o, nil
}
