package preprocess

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/neardup/neardup/preprocess/charset"
)

// TextTerms calls fn once for each term of the plain text text, with its
// count: the terms and counts that ProcessContent([]byte(text),
// "text/plain") puts in Page.Terms (the same decoding, text normalisation, tokens, language,
// stop words, stems and MaxTerms bound), in no particular order. It builds
// no Page: no Text copy, sentences, token list or blocks, so it suits a
// caller that needs only the bag of words, such as a fingerprint of the
// text. For a text without terms it never calls fn and returns nil. A
// caller that needs the Page as well calls ProcessContent alone: its Terms
// are these.
//
// The term passed to fn may share memory with buffers that p reuses once
// TextTerms returns: fn must copy it (strings.Clone) to keep it. fn may
// call p's methods. Errors are ProcessContent's, and nothing is passed to fn
// when there is one; a nil fn gives an error wrapping ErrInvalidOption.
func (p *Pipeline) TextTerms(text string, fn func(term string, count int)) error {
	if fn == nil {
		return fmt.Errorf("preprocess: TextTerms: nil fn: %w", ErrInvalidOption)
	}
	p.init()
	if len(text) > p.cfg.MaxBytes {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(text), p.cfg.MaxBytes)
	}
	if len(text) == 0 {
		return ErrEmpty
	}
	// charset.DecodeKeepControls only reads its input (it returns it, a
	// sub-slice of it, or new memory), so it may read text's bytes in place.
	raw, _, err := charset.DecodeKeepControls(unsafe.Slice(unsafe.StringData(text), len(text)), "", false)
	if err != nil {
		return fmt.Errorf("preprocess: %w", err)
	}
	s := p.getScratch()
	defer p.putScratch(s)
	normalised := needsNormalising(raw)
	if normalised {
		if s.text = AppendPlainText(s.text[:0], raw); len(s.text) == 0 {
			return ErrEmpty
		}
		raw = s.text
	}
	limit := 0 // the word table lasts a page
	if p.cfg.StemCacheSize > 0 {
		limit = min(p.cfg.StemCacheSize, maxWords)
	}
	s.collectWords(unsafe.String(unsafe.SliceData(raw), len(raw)), p.cfg.MaxTerms, limit)
	if len(s.surfs) == 0 && !normalised {
		// No token: ProcessContent fails with ErrEmpty when the text has no
		// visible character either.
		if s.text = AppendPlainText(s.text[:0], raw); len(s.text) == 0 {
			return ErrEmpty
		}
	}
	p.countWords(s, p.language(s))
	for _, t := range s.terms {
		fn(t.Text, t.Count)
	}
	return nil
}

// needsNormalising reports whether the tokens of the decoded plain text raw
// differ from those of AppendPlainText(raw). The only characters that
// AppendPlainText drops instead of keeping or turning into a separator are
// the soft hyphen and the zero-width no-break space (U+00AD, U+FEFF), which
// join the letters around them ("co\u00ADoperate" is one word); every other
// change it makes (white space collapsed, line breaks, U+FFFD for invalid
// bytes) turns a separator into another separator, and the tokenizer treats
// all separators alike.
func needsNormalising(raw []byte) bool {
	return bytes.Contains(raw, softHyphen) || bytes.Contains(raw, zeroWidthNoBreak)
}

var (
	softHyphen       = []byte("\u00AD")
	zeroWidthNoBreak = []byte("\uFEFF")
)
