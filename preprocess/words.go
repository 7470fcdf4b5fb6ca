package preprocess

import (
	"hash/maphash"
	"unsafe"
)

// maxWords bounds the words a wordTable keeps from page to page (and
// Options.StemCacheSize when it is smaller): a table that holds more when a
// page starts is emptied.
const maxWords = 1 << 13

// wordTable is what TextTerms keeps in a scratch from page to page: the
// distinct tokens it has met, each with what it became in the word language
// it was last analysed in (its term and the term's hash, or dropped), and a
// direct-mapped cache of the short tokens in front of the index. Tokens
// recur from page to page, so most tokens of a page, a word's first
// occurrence included, cost one probe of the cache, and most distinct words
// need neither the stop lists nor the stemmer nor the Pipeline's stem
// cache. The table also numbers the page's surfaces as collect does, in
// order of first occurrence, through the page number (epoch) each word
// last met.
//
// What a token becomes depends only on its text, its kind, the word
// language and the Pipeline's options, which are fixed, so the table never
// changes a page's terms. Keys are copies in slab, never sub-strings of a
// page.
type wordTable struct {
	idx   strIndex   // the tokens (keys in slab); the seed of the scratch's indexes
	info  []wordInfo // by id in idx
	front frontCache // short token key → id in idx
	slab  []byte     // the bytes of the keys
	epoch uint32     // the page being collected
	page  []int32    // id in idx of each surface of the page
}

// wordInfo is what a wordTable knows of one token.
type wordInfo struct {
	epoch uint32 // the last page that met the token
	surf  int32  // its surface index on that page
	// What the token became, valid when lang is the page's word language
	// (snowballIndex + 1) and kind the surface's kind.
	lang     int8
	kind     tokenKind
	keep     bool
	term     string
	termHash uint64
}

func newWordTable(seed maphash.Seed) *wordTable {
	w := &wordTable{idx: strIndex{seed: seed}}
	w.idx.reset(0)
	return w
}

// wordTable returns s's word table for a new page, emptied (or new) when it
// holds more than limit words.
func (s *scratch) wordTable(limit int) *wordTable {
	w := s.words
	switch {
	case w == nil || w.large():
		w = newWordTable(s.surfIdx.seed)
		s.words = w
	case w.idx.len() > limit:
		w.idx.reset(0)
		clear(w.info)
		w.info, w.slab = w.info[:0], w.slab[:0]
		clear(w.front[:])
	}
	w.epoch++
	if w.epoch == 0 { // wrapped: no info may hold the new page's number
		for i := range w.info {
			w.info[i].epoch = 0
		}
		w.epoch = 1
	}
	w.page = w.page[:0]
	return w
}

// large reports whether a page of many distinct words left w much larger
// than its bound: then it is dropped rather than emptied, and its scratch
// not pooled.
func (w *wordTable) large() bool {
	return cap(w.info) > 4*maxWords
}

// collectWords is collect for TextTerms: it records the distinct surfaces of
// text, with their counts, in s.surfs (the same surfaces in the same order
// as collect(text, maxSurfs, 0, 0)) and their word ids in s.words.page.
// Their texts are keys of the word table, valid until the table is emptied
// when a later page starts.
func (s *scratch) collectWords(text string, maxSurfs, limit int) {
	w := s.wordTable(limit)
	s.surfs = s.surfs[:0]
	if n := min(len(text)/8, 1<<17, maxSurfs); cap(s.surfs) < n {
		s.surfs = make([]surface, 0, n)
	}
	sink := func(tok string, low []byte, kind tokenKind, runes int) {
		var k uint64
		var short bool
		if tok != "" {
			if k, short = packToken(tok, text); !short {
				k, short = packSlow(tok)
			}
		} else {
			if k, short = packBytes(low); !short {
				k, short = packSlow(unsafe.String(unsafe.SliceData(low), len(low)))
			}
			tok = unsafe.String(unsafe.SliceData(low), len(low)) // read only until the sink returns
		}
		id := int32(-1)
		var e *frontEntry
		if short {
			if e = &w.front[frontSlot(k)]; e.key == k {
				id = e.id
			}
		}
		if id < 0 {
			h := maphash.String(w.idx.seed, tok)
			if id = w.idx.lookupHashed(h, tok); id < 0 {
				if len(s.surfs) >= maxSurfs {
					return // a new surface beyond maxSurfs: skipped, as collect does
				}
				start := len(w.slab)
				w.slab = append(w.slab, tok...)
				id = w.idx.addHashed(h, unsafe.String(unsafe.SliceData(w.slab[start:]), len(tok)))
				w.info = append(w.info, wordInfo{})
			}
			if short {
				e.key, e.id = k, id
			}
		}
		in := &w.info[id]
		if in.epoch != w.epoch {
			if len(s.surfs) >= maxSurfs {
				return
			}
			in.epoch, in.surf = w.epoch, int32(len(s.surfs))
			s.surfs = append(s.surfs, surface{text: w.idx.keys[id], kind: kind, runes: int32(runes)})
			w.page = append(w.page, id)
		}
		s.surfs[in.surf].count++
	}
	// ('\n' separates tokens like any other separator: no need to scan by line.)
	s.low = scanTokens(text, s.low, sink)
}

// countWords is countTerms for the surfaces collectWords found: it fills
// s.terms with the page's terms in language lang, reading what each word
// became from the word table when the table knows it for lang.
func (p *Pipeline) countWords(s *scratch, lang Language) {
	wl := wordLanguage(lang)
	tag := int8(snowballIndex(wl) + 1) // 0: never valid
	si := -1
	if !p.cfg.NoStem {
		si = snowballIndex(wl)
	}
	w := s.words
	s.termIdx.reset(len(s.surfs))
	if cap(s.terms) < len(s.surfs) {
		s.terms = make([]Term, 0, len(s.surfs))
	}
	for i := range s.surfs {
		sf := &s.surfs[i]
		if sf.kind != kindCJK && (int(sf.runes) < p.cfg.MinTokenLen || len(sf.text) > p.cfg.MaxTokenLen) {
			continue
		}
		wid := w.page[i]
		in := &w.info[wid]
		if in.lang != tag || in.kind != sf.kind || tag == 0 {
			t, keep := p.term(wl, si, sf.kind, sf.text)
			th := w.idx.hashes[wid]
			if keep && t != sf.text {
				th = maphash.String(w.idx.seed, t)
			}
			in.lang, in.kind, in.keep, in.term, in.termHash = tag, sf.kind, keep, t, th
		}
		if !in.keep {
			continue
		}
		id, added := s.termIdx.findHashed(in.termHash, in.term)
		if added {
			s.terms = append(s.terms, Term{Text: in.term})
		}
		s.terms[id].Count += int(sf.count)
	}
}
