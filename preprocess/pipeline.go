package preprocess

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"math/bits"
	"mime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/neardup/neardup/preprocess/charset"
)

// Pipeline turns a fetched page into a Page: text extraction, sentence
// splitting, tokenization, stop-word removal, stemming and term counting
// (see the package documentation for the stages).
//
// The zero value is ready to use with the defaults of a zero Options. A
// Pipeline is safe for concurrent use by any number of goroutines; it keeps
// a bounded memo of stems that all of them share. A Pipeline must not be
// copied after first use.
type Pipeline struct {
	once   sync.Once
	cfg    Options             // effective options, defaults applied
	extra  map[string]struct{} // ExtraStopWords; read-only after setup
	caches [len(snowballLangs)]*stemCache
	pool   sync.Pool // *scratch
}

// New returns a Pipeline configured by opts. Zero fields of opts take their
// documented defaults; an invalid field gives an error wrapping
// ErrInvalidOption.
func New(opts Options) (*Pipeline, error) {
	cfg, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Pipeline{}
	p.once.Do(func() { p.setup(cfg) })
	return p, nil
}

// init readies a zero-value Pipeline.
func (p *Pipeline) init() {
	p.once.Do(func() {
		cfg, _ := Options{}.withDefaults() // the zero Options is always valid
		p.setup(cfg)
	})
}

func (p *Pipeline) setup(cfg Options) {
	p.cfg = cfg
	if len(cfg.ExtraStopWords) > 0 {
		p.extra = make(map[string]struct{}, len(cfg.ExtraStopWords))
		for _, w := range cfg.ExtraStopWords {
			p.extra[w] = struct{}{}
		}
	}
	if cfg.StemCacheSize > 0 && !cfg.NoStem {
		for i := range p.caches {
			p.caches[i] = newStemCache(cfg.StemCacheSize)
		}
	}
}

// Options returns the effective options of p, with defaults filled in.
func (p *Pipeline) Options() Options {
	p.init()
	o := p.cfg
	o.ExtraStopWords = slices.Clone(o.ExtraStopWords)
	return o
}

// Version numbers the analysis a Pipeline performs. It changes whenever a
// change to this package makes the same page under the same Options give
// other text, sentences, tokens, terms or blocks, so that saved features (a
// detector's snapshot) record what made them; see Settings.
const Version = 2

// Settings returns a canonical description of what gives p's pages their
// features: Version and the options that change a page's tokens or terms
// (Language, KeepStopWords, NoStem, ExtraStopWords, MinTokenLen,
// MaxTokenLen, MaxTokens, and MaxTerms when it is not the default). MaxBytes and StemCacheSize are left out: they
// change which pages are accepted and how fast, not what an accepted page
// gives. Two Pipelines with equal Settings give equal Pages.
// neardup.WithSettings records it in a detector's snapshots.
func (p *Pipeline) Settings() string {
	o := p.Options()
	lang := string(o.Language)
	if lang == "" {
		lang = "detect"
	}
	extra := slices.Clone(o.ExtraStopWords)
	slices.Sort(extra)
	extra = slices.Compact(extra)
	maxTerms := "" // left out at its default, so that older settings still match
	if o.MaxTerms != DefaultMaxTerms {
		maxTerms = fmt.Sprintf(" maxterms=%d", o.MaxTerms)
	}
	return fmt.Sprintf("preprocess v%d language=%s stopwords=%t stem=%t extra=%q mintokenlen=%d maxtokenlen=%d maxtokens=%d",
		Version, lang, !o.KeepStopWords, !o.NoStem, extra, o.MinTokenLen, o.MaxTokenLen, o.MaxTokens) + maxTerms
}

type inputMode uint8

const (
	modeSniff inputMode = iota
	modeHTML
	modeText
)

// Process preprocesses one page whose type and charset are unknown:
// ProcessContent with an empty Content-Type. It treats raw as HTML when it
// looks like HTML (it starts with a tag, or a common tag such as <html>,
// <body>, <p> or <div> appears in its first KiB) and as plain text
// otherwise, and decodes it as charset.Decode does (byte-order mark, <meta>
// charset, UTF-8, detection of a legacy encoding).
//
// Errors wrap ErrTooLarge (len(raw) > MaxBytes), ErrEmpty (no visible
// text), ErrNotText (binary data: a binary format's magic number,
// compressed or random bytes, control bytes, implausible UTF-16; see
// charset.Decode) or ErrInvalidUTF8 (more than charset.MaxUndecodable of
// the page cannot be decoded; an error wrapping ErrNotText matches
// ErrInvalidUTF8 too). The returned Page shares no memory with raw.
func (p *Pipeline) Process(raw []byte) (*Page, error) {
	return p.process(raw, "", modeSniff)
}

// ProcessContent is Process for a page fetched with the HTTP Content-Type
// contentType, or known to be of that type:
//   - the media type text/html or application/xhtml+xml makes raw HTML,
//     text/plain makes it plain text (a blank line is a paragraph break
//     that ends a sentence, a single line break a space), and any other
//     text type, or none, leaves it to the bytes as Process does;
//   - its charset, when it names one, decodes the page (before a <meta>
//     charset and detection; after a byte-order mark);
//   - a media type that is not text (image/*, application/pdf, ...; see
//     charset.Decode) gives an error wrapping ErrNotText, whatever the bytes
//     look like; application/octet-stream leaves the decision to the bytes.
//
// So ProcessContent(raw, "text/html") and ProcessContent(raw, "text/plain")
// process input known to be HTML or plain text. A page read from a stream
// is read with ReadPage(r, p.Options().MaxBytes) first.
func (p *Pipeline) ProcessContent(raw []byte, contentType string) (*Page, error) {
	switch contentType {
	case "text/html": // without parameters: the page's own charset, as ""
		return p.process(raw, "", modeHTML)
	case "text/plain":
		return p.process(raw, "", modeText)
	}
	mode := modeSniff
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		switch mt {
		case "text/plain":
			mode = modeText
		case "text/html", "application/xhtml+xml":
			mode = modeHTML
		}
	}
	return p.process(raw, contentType, mode)
}

func (p *Pipeline) process(raw []byte, contentType string, mode inputMode) (*Page, error) {
	p.init()
	if len(raw) > p.cfg.MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(raw), p.cfg.MaxBytes)
	}
	if len(raw) == 0 {
		return nil, ErrEmpty
	}
	isHTML := mode == modeHTML || (mode == modeSniff && looksLikeHTML(raw))
	raw, _, err := charset.DecodeKeepControls(raw, contentType, isHTML)
	if err != nil {
		return nil, fmt.Errorf("preprocess: %w", err)
	}
	if mode == modeSniff && !isHTML {
		isHTML = looksLikeHTML(raw) // a page decoded from UTF-16, say
	}
	s := p.getScratch()
	defer p.putScratch(s)
	if cap(s.text) < len(raw) && len(raw) > 1<<20 {
		// A large page: one allocation (handed to the Page by analyse
		// when the text fills most of it), not a series of 1.25× growths.
		s.text = make([]byte, 0, len(raw))
	}
	s.st.reset(p.cfg.maxLines())
	if isHTML {
		s.text = appendHTMLText(s.text[:0], raw, &s.st)
	} else {
		s.text = AppendPlainText(s.text[:0], raw)
	}
	if len(s.text) == 0 {
		return nil, ErrEmpty
	}
	return p.analyse(s), nil
}

// scratch holds the per-call working memory, pooled by the Pipeline.
type scratch struct {
	text  []byte
	low   []byte
	ids   []int32   // surface id of each raw token, in order
	surfs []surface // by surface id (= id in surfIdx)
	terms []Term    // by term id (= id in termIdx)
	sents []string
	order []termKey
	spans []lineSpan // the lines of the text that hold raw tokens
	st    structure  // what the markup says of each line (HTML only)
	// surfIdx interns surface texts, termIdx term texts.
	surfIdx, termIdx *strIndex
	// front caches surfIdx for the short tokens of the page (see
	// frontCache).
	front *frontCache
	// words is what TextTerms keeps from page to page (see wordTable).
	words *wordTable
	// memos remember what the words of earlier pages became, by snowball
	// language (see wordMemo); created when first needed.
	memos [len(snowballLangs)]*wordMemo
}

// lineSpan is a line of a page's text that holds at least one raw token.
type lineSpan struct {
	line       int32 // index of the line in the text (0 for the first)
	start, end int32 // byte offsets of the line in the text
	ids        int32 // len(scratch.ids) after the line's tokens
}

// surface is one distinct raw token of a page (lower-cased, before stop-word
// removal and stemming).
type surface struct {
	text  string
	kind  tokenKind
	runes int32
	count int32
	term  int32 // index in scratch.terms, or -1 when dropped
}

// wordMemo returns s's memo of the words of language wl, or nil when
// limit (Options.StemCacheSize) turns memos off or wl has no memo.
func (s *scratch) wordMemo(wl Language, limit int) *wordMemo {
	li := snowballIndex(wl)
	if limit <= 0 || li < 0 {
		return nil
	}
	m := s.memos[li]
	if m == nil {
		m = &wordMemo{words: strIndex{seed: s.surfIdx.seed}, limit: limit}
		m.words.reset(0)
		s.memos[li] = m
	}
	return m
}

func newScratch() *scratch {
	surfIdx := newStrIndex()
	// One seed for both indexes, so that a term that is its surface's text
	// is found by the hash the surface index computed.
	return &scratch{surfIdx: surfIdx, termIdx: &strIndex{seed: surfIdx.seed}}
}

func (p *Pipeline) getScratch() *scratch {
	if s, ok := p.pool.Get().(*scratch); ok {
		return s
	}
	return newScratch()
}

// putScratch returns s to the pool unless one huge page made it too big to
// keep around.
func (p *Pipeline) putScratch(s *scratch) {
	if cap(s.text) > 1<<20 || cap(s.surfs) > 1<<15 || cap(s.st.lines) > 1<<15 || cap(s.spans) > 1<<15 || s.words != nil && s.words.large() {
		return
	}
	clear(s.surfs) // drop references to page strings
	clear(s.terms)
	clear(s.sents)
	s.text, s.low, s.ids, s.surfs, s.terms, s.sents = s.text[:0], s.low[:0], s.ids[:0], s.surfs[:0], s.terms[:0], s.sents[:0]
	s.spans = s.spans[:0]
	s.st.reset(0)
	s.surfIdx.reset(0)
	s.termIdx.reset(0)
	p.pool.Put(s)
}

// collect runs the tokenizer over text line by line, recording distinct
// surfaces, the token sequence and the lines holding tokens. Surface strings
// are sub-strings of text when possible, so the same word is one string
// however often it occurs. At most maxSurfs distinct surfaces are recorded
// (a token first seen after that is skipped), at most maxIDs tokens and
// maxLines lines. (A token never spans lines: '\n' separates tokens.)
func (s *scratch) collect(text string, maxSurfs, maxIDs, maxLines int) {
	s.resetSurfaces(len(text), maxSurfs, maxIDs)
	seen := 0 // tokens seen, recorded or not
	// sink records a token: tok, a sub-string of text, or, when tok is "",
	// a word that lower-casing changed, in low. Short tokens go through the
	// front cache (a cleared slot's key, 0, matches no token). Its body is
	// here, not in a method, so that no call is added per token.
	sink := func(tok string, low []byte, kind tokenKind, runes int) {
		seen++
		var id int32
		var added bool
		switch {
		case len(s.surfs) >= maxSurfs: // known surfaces only
			if tok != "" {
				id = s.surfIdx.lookup(tok)
			} else {
				id = s.surfIdx.lookupBytes(low)
			}
			if id < 0 {
				return
			}
		case tok != "":
			k, short := packToken(tok, text)
			if !short {
				k, short = packSlow(tok)
			}
			e := &s.front[frontSlot(k)]
			if short && e.key == k {
				id = e.id
				break
			}
			if id, added = s.surfIdx.find(tok); short {
				e.key, e.id = k, id
			}
		default:
			k, short := packBytes(low)
			if !short {
				k, short = packSlow(unsafe.String(unsafe.SliceData(low), len(low)))
			}
			e := &s.front[frontSlot(k)]
			if short && e.key == k {
				id = e.id
				break
			}
			if id, added = s.surfIdx.findBytes(low); short {
				e.key, e.id = k, id
			}
		}
		if added {
			s.surfs = append(s.surfs, surface{text: s.surfIdx.keys[id], kind: kind, runes: int32(runes)})
		}
		s.surfs[id].count++
		if len(s.ids) < maxIDs {
			s.ids = append(s.ids, id)
		}
	}
	s.scanLines(text, maxLines, sink, &seen)
}

// scanLines runs sink over the tokens of text line by line and records in
// s.spans the first maxLines lines that hold a token: those during which
// sink raised *seen.
func (s *scratch) scanLines(text string, maxLines int, sink tokenSink, seen *int) {
	line := int32(0)
	for start := 0; start < len(text); line++ {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		before := *seen
		s.low = scanTokens(text[start:end], s.low, sink)
		if *seen > before && int(line) < maxLines {
			s.spans = appendDoubling(s.spans, lineSpan{line: line, start: int32(start), end: int32(end), ids: int32(len(s.ids))})
		}
		start = end + 1
	}
}

// resetSurfaces readies the surface index, the surfaces, the ids and the
// front cache of s for a text of n bytes.
func (s *scratch) resetSurfaces(n, maxSurfs, maxIDs int) {
	// About one distinct surface per 40 bytes of English text, one per 10 of
	// Chinese; the index grows if a page has more.
	// (at most 1<<17 at first: distinct words grow slower than pages).
	surfs := min(n/8, 1<<17, maxSurfs)
	s.surfIdx.reset(surfs)
	if cap(s.surfs) < surfs {
		s.surfs = make([]surface, 0, surfs)
	}
	if ids := min(n/4, 1<<19, maxIDs); cap(s.ids) < ids {
		s.ids = make([]int32, 0, ids)
	}
	if s.front == nil {
		s.front = new(frontCache)
	} else {
		clear(s.front[:])
	}
}

// analyse builds the Page from the visible text in s.text.
func (p *Pipeline) analyse(s *scratch) *Page {
	pg := &Page{}
	if cap(s.text) > 1<<20 && 2*len(s.text) >= cap(s.text) {
		// A buffer too large to pool and mostly used: the Page takes it
		// instead of a copy. Nothing writes to it after this point, and
		// putScratch drops it.
		pg.Text = unsafe.String(unsafe.SliceData(s.text), len(s.text))
	} else {
		pg.Text = string(s.text)
	}
	s.sents = appendSentences(s.sents[:0], pg.Text, s.text, p.cfg.maxLines())
	if len(s.sents) > 0 {
		pg.Sentences = slices.Clone(s.sents)
	}

	s.collect(pg.Text, p.cfg.MaxTerms, 2*p.cfg.MaxTokens, p.cfg.maxLines())
	pg.Language = p.language(s)
	kept := p.countTerms(s, pg.Language)
	if kept > 0 {
		pg.Tokens = make([]string, 0, min(kept, p.cfg.MaxTokens))
		for _, id := range s.ids {
			if len(pg.Tokens) == cap(pg.Tokens) {
				break
			}
			if t := s.surfs[id].term; t >= 0 {
				pg.Tokens = append(pg.Tokens, s.terms[t].Text)
			}
		}
		pg.Terms = s.sortedTerms()
	}
	pg.Blocks = s.blocks(pg)
	return pg
}

// language returns the language of the page whose surfaces s holds: the
// configured one, or the detected one.
func (p *Pipeline) language(s *scratch) Language {
	if p.cfg.Language != "" {
		return p.cfg.Language
	}
	return detect(s.surfs)
}

// countTerms fills s.terms (in order of first appearance, unsorted) from the
// surfaces in s, analysed as language lang: it drops surfaces by length,
// stop lists and ExtraStopWords, stems words, and points each surface at its
// term (-1 when dropped). It returns the number of raw tokens kept.
func (p *Pipeline) countTerms(s *scratch, lang Language) (kept int) {
	wl := wordLanguage(lang)
	si := -1
	if !p.cfg.NoStem {
		si = snowballIndex(wl)
	}
	memo := s.wordMemo(wl, min(p.cfg.StemCacheSize, maxWordMemo))
	s.termIdx.reset(len(s.surfs))
	if cap(s.terms) < len(s.surfs) {
		s.terms = make([]Term, 0, len(s.surfs))
	}
	for i := range s.surfs {
		sf := &s.surfs[i]
		sf.term = -1
		if sf.kind != kindCJK && (int(sf.runes) < p.cfg.MinTokenLen || len(sf.text) > p.cfg.MaxTokenLen) {
			continue
		}
		var t string
		var th uint64 // t's hash (the seed of surfIdx and termIdx)
		var keep bool
		if sf.kind == kindWord && memo != nil {
			h := s.surfIdx.hashes[i]
			var ok bool
			if t, th, keep, ok = memo.get(h, sf.text); !ok {
				t, keep = p.term(wl, si, kindWord, sf.text)
				th = s.termHash(i, t)
				memo.put(h, sf.text, t, th, keep)
			}
		} else {
			t, keep = p.term(wl, si, sf.kind, sf.text)
			th = s.termHash(i, t)
		}
		if !keep {
			continue
		}
		id, added := s.termIdx.findHashed(th, t)
		if added {
			s.terms = append(s.terms, Term{Text: t})
		}
		sf.term = id
		s.terms[id].Count += int(sf.count)
		kept += int(sf.count)
	}
	return kept
}

// termHash returns the hash of t, the term of surface i, in s.termIdx.
func (s *scratch) termHash(i int, t string) uint64 {
	if t == s.surfs[i].text {
		return s.surfIdx.hashes[i]
	}
	return maphash.String(s.termIdx.seed, t)
}

// term returns the term that the surface w of kind kind becomes on a page
// whose words are in language wl (stemmed with snowball language si, or
// not when si < 0), and false when w is dropped: a stop word or one of
// ExtraStopWords. (Length limits are the caller's.)
func (p *Pipeline) term(wl Language, si int, kind tokenKind, w string) (string, bool) {
	if !p.cfg.KeepStopWords {
		switch kind {
		case kindCJK:
			if isCJKStop(w) {
				return "", false
			}
		case kindWord:
			if IsStopWord(wl, w) {
				return "", false
			}
		}
	}
	if p.extra != nil {
		if _, ok := p.extra[w]; ok {
			return "", false
		}
	}
	if si >= 0 && kind == kindWord {
		return p.stem(si, w), true
	}
	return w, true
}

// blocks returns the Blocks of pg from s.spans, the token ranges found by
// walking s.ids again as analyse did to fill pg.Tokens.
func (s *scratch) blocks(pg *Page) []Block {
	if len(s.spans) == 0 {
		return nil
	}
	blocks := make([]Block, len(s.spans))
	lines := s.st.lines
	main := mainLevel(lines)
	k, n := 0, 0 // next raw token, tokens of pg.Tokens passed
	for i, sp := range s.spans {
		for ; k < int(sp.ids) && n < len(pg.Tokens); k++ {
			if s.surfs[s.ids[k]].term >= 0 {
				n++
			}
		}
		b := Block{Text: pg.Text[sp.start:sp.end], End: n}
		if int(sp.line) < len(lines) {
			l := lines[sp.line]
			b.Kind, b.Main = l.kind, main != markNone && l.mark >= main
			if l.vis > 0 {
				b.Links = float32(l.linkVis) / float32(l.vis)
			}
		}
		blocks[i] = b
	}
	return blocks
}

// weakMainBytes is the least Content text, in visible bytes, that <article>
// and main-content class words must mark on a page without a strong mark
// for it to be the page's main content (Block.Main): about a paragraph. A
// component's box named "content" (a header's label, a menu item) holds a
// few words; the text a page marks as its own holds more.
const weakMainBytes = 200

// mainLevel returns the mark that makes a line main content (Block.Main):
// markStrong when a line has it, else markWeak when the lines marked so
// hold at least weakMainBytes of Content text, else markNone.
func mainLevel(lines []lineInfo) mainMark {
	var weak int64
	for _, l := range lines {
		if l.mark == markStrong {
			return markStrong
		}
		if l.kind == Content && l.mark == markWeak {
			weak += int64(l.vis)
		}
	}
	if weak >= weakMainBytes {
		return markWeak
	}
	return markNone
}

// termKey is a sort key of one term: count descending, then text ascending,
// with the text's first eight bytes as a number so that most comparisons
// need no string comparison.
type termKey struct {
	negCount uint64 // ^count: ascending order is count descending
	prefix   uint64 // the first eight bytes of the text, big-endian, zero-padded
	i        int    // index in scratch.terms
}

// sortedTerms returns a new slice of s.terms in Page.Terms order (see
// compareTerms).
func (s *scratch) sortedTerms() []Term {
	s.order = s.order[:0]
	if cap(s.order) < len(s.terms) {
		s.order = make([]termKey, 0, len(s.terms))
	}
	for i, t := range s.terms {
		s.order = append(s.order, termKey{^uint64(t.Count), textPrefix(t.Text), i})
	}
	slices.SortFunc(s.order, func(a, b termKey) int {
		if a.negCount != b.negCount {
			return cmp.Compare(a.negCount, b.negCount)
		}
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		return strings.Compare(s.terms[a.i].Text, s.terms[b.i].Text)
	})
	out := make([]Term, len(s.order))
	for k, o := range s.order {
		out[k] = s.terms[o.i]
	}
	return out
}

// textPrefix returns the first eight bytes of t as a big-endian number,
// zero-padded: comparing prefixes orders strings as strings.Compare does,
// except that equal prefixes need the full comparison.
func textPrefix(t string) uint64 {
	var v uint64
	n := min(len(t), 8)
	for j := 0; j < n; j++ {
		v |= uint64(t[j]) << (56 - 8*j)
	}
	return v
}

// compareTerms orders terms by count descending, then text ascending.
func compareTerms(a, b Term) int {
	if c := cmp.Compare(b.Count, a.Count); c != 0 {
		return c
	}
	return strings.Compare(a.Text, b.Text)
}

// stem returns the stem of w with snowball language si, through the cache.
func (p *Pipeline) stem(si int, w string) string {
	c := p.caches[si]
	if c != nil {
		if st, ok := c.get(w); ok {
			return st
		}
	}
	st := stemFunc(si)(w, false)
	if c != nil {
		k := strings.Clone(w) // w may be a sub-string of a page's text
		if st == w {
			st = k
		}
		c.put(k, st)
	}
	return st
}

// appendSentences appends the sentences of text (whose bytes are b) as
// sub-strings of text, skipping those without a letter or digit, until dst
// holds max.
func appendSentences(dst []string, text string, b []byte, max int) []string {
	rest := b
	for len(rest) > 0 && len(dst) < max {
		adv, tok, _ := ScanSentences(rest, true)
		if adv <= 0 {
			break
		}
		if len(tok) > 0 {
			off := cap(b) - cap(tok)
			if sen := text[off : off+len(tok)]; hasAlnum(sen) {
				dst = appendDoubling(dst, sen)
			}
		}
		rest = rest[adv:]
	}
	return dst
}

// hasAlnum reports whether s holds a letter or digit of any script.
func hasAlnum(s string) bool {
	for _, r := range s {
		if classify(r) != classSep {
			return true
		}
	}
	return false
}

// Thresholds of detect's confidence: the most likely language must have
// at least minDetectHits function words, and at least
// max(minDetectLead, hits/detectLeadDiv) more than the next one.
const (
	minDetectHits  = 4
	minDetectLead  = 3
	detectLeadDiv  = 12
	maxFunctionLen = 16 // bytes: no function word is longer (suffixMask reads words of twice that)
)

// detect chooses the language of a page from its distinct raw tokens: CJK
// when Han/Kana/Hangul characters are at least half as many as other words
// (then ja when Kana is at least a fifth of Han+Kana, ko when Hangul
// dominates, else zh); otherwise the language of detectLangs whose function
// words occur most often, when it leads clearly (see minDetectHits), else
// Undetermined. One-letter words are not counted: they are function words
// in too many languages.
func detect(surfs []surface) Language {
	var words, cjk, kana, hangul int
	var hits [len(detectLangs)]int
	for i := range surfs {
		sf := &surfs[i]
		n := int(sf.count)
		switch sf.kind {
		case kindWord:
			words += n
			var m uint32
			switch l := len(sf.text); {
			case sf.runes < 2:
				continue
			case l <= maxFunctionLen:
				m = functionWords[sf.text] | suffixMask(sf.text)
			case l <= 2*maxFunctionLen:
				m = suffixMask(sf.text)
			}
			for ; m != 0; m &= m - 1 {
				hits[bits.TrailingZeros32(m)] += n
			}
		case kindCJK:
			r, _ := utf8.DecodeRuneInString(sf.text)
			switch {
			case classify(r) == classHangul:
				hangul += n
			case 0x3040 <= r && r <= 0x30FF:
				kana += n
				cjk += n
			default:
				cjk += n
			}
		}
	}
	if (cjk+hangul) > 0 && 2*(cjk+hangul) >= words {
		switch {
		case hangul > cjk:
			return Korean
		case 5*kana >= cjk:
			return Japanese
		}
		return Chinese
	}
	best, second := 0, -1
	for li := 1; li < len(hits); li++ {
		switch {
		case hits[li] > hits[best]:
			best, second = li, best
		case second < 0 || hits[li] > hits[second]:
			second = li
		}
	}
	h := hits[best]
	if h < minDetectHits || h-hits[second] < max(minDetectLead, h/detectLeadDiv) {
		return Undetermined
	}
	return detectLangs[best].lang
}

// DetectLanguage returns the language Process would analyse text as when
// Options.Language is "": zh, ja or ko for text mostly in Han, Kana or
// Hangul; otherwise the language of SupportedLanguages whose function words
// (articles, prepositions, conjunctions, pronouns, auxiliary verbs) the
// text uses most, when it uses them clearly more than those of any other
// language, and Undetermined when it does not (too few words, a text of
// names, numbers or code, or two related languages about as likely), so
// that a page is not stemmed with another language's rules.
// docs/BENCHMARKS.md gives its accuracy per language.
func DetectLanguage(text string) Language {
	s := newScratch()
	s.collect(text, DefaultMaxTerms, 0, 0)
	return detect(s.surfs)
}

// looksLikeHTML reports whether raw starts with a tag or holds a common tag
// in its first KiB.
func looksLikeHTML(raw []byte) bool {
	s := bytes.TrimLeft(raw, " \t\r\n\f")
	if len(s) >= 2 && s[0] == '<' {
		c := s[1] | 0x20
		if ('a' <= c && c <= 'z') || s[1] == '!' || s[1] == '?' || s[1] == '/' {
			return true
		}
	}
	var buf [1024]byte
	head := buf[:copy(buf[:], s)]
	for i, c := range head {
		if 'A' <= c && c <= 'Z' {
			head[i] = c + 'a' - 'A'
		}
	}
	for _, tag := range htmlMarkers {
		if bytes.Contains(head, []byte(tag)) {
			return true
		}
	}
	return false
}

var htmlMarkers = [...]string{"<html", "<head", "<body", "<!doctype", "<p>", "<p ", "<div", "<br", "<title", "<meta", "<table", "<span", "<a href", "<li>", "<h1", "<h2", "<script", "<style"}

// appendDoubling is append that doubles a full slice's capacity, where
// append grows a large slice by a quarter at a time (allocating some five
// times the final size in all).
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		t := make([]T, len(s), max(2*cap(s), 64))
		copy(t, s)
		s = t
	}
	return append(s, v)
}
