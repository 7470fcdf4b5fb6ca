package preprocess

// Page is one document after preprocessing: its visible text, its sentences and
// its analysed terms. A Page is immutable once returned by a Pipeline and may be
// shared by any number of goroutines.
type Page struct {
	// Text is the visible text. Block-level boundaries (paragraphs, headings,
	// list items, table cells, <br>) are kept as '\n'.
	Text string
	// Sentences are the sentences of Text in order, trimmed, never empty
	// (at most Options.MaxTokens/4 of them).
	Sentences []string
	// Tokens are the analysed tokens in document order: lower-cased,
	// stop words removed, stemmed. Han, Kana and Hangul runs become
	// overlapping character bigrams (a lone character stays a unigram).
	// At most Options.MaxTokens are kept (the first ones).
	Tokens []string
	// Terms are the distinct analysed tokens of the whole page with their
	// counts (beyond MaxTokens too), sorted by count descending, then by
	// text ascending (a deterministic tie-break). Words first seen after
	// the page's first Options.MaxTerms distinct words are not counted.
	Terms []Term
	// Blocks are the lines of Text in order (its block-level elements, or
	// the paragraphs of plain text), each with the range of Tokens it holds
	// and what the markup marks it as (Content, Navigation, ...). A line
	// without a letter or digit (a row of "|" or "»") gives no Block; so
	// Blocks hold every token: concatenating Tokens[prev.End:b.End] over
	// the blocks gives Tokens. Blocks describe at most the first
	// Options.MaxTokens/4 lines. The Text of a Block is a sub-string of Text.
	Blocks []Block
	// Language is the language the page was analysed as.
	Language Language
}

// Term is one distinct analysed token and its frequency in a page. Its Text
// may be a sub-string of the page's Text (a word that was not stemmed, a
// CJK n-gram), so a Term kept after the page is dropped keeps the whole
// page's text alive: a detector that keeps terms keeps strings.Clone copies.
type Term struct {
	Text  string
	Count int
}

// Language names the language a page is analysed as: a BCP 47 primary tag
// such as "en" or "zh". The zero value means "detect from the text".
type Language string

// Top returns the n most frequent terms of the page (count descending, then
// text ascending), or all of them when the page has fewer. The slice is a
// copy: changing it does not change the Page. Top returns nil when n <= 0.
func (p *Page) Top(n int) []Term {
	if n <= 0 || p == nil {
		return nil
	}
	return append([]Term(nil), p.Terms[:min(n, len(p.Terms))]...)
}
