package preprocess

import "strings"

// maxWordMemo bounds the words a wordMemo remembers (and Options.StemCacheSize
// when it is smaller); a full memo is emptied and starts again.
const maxWordMemo = 1 << 13

// wordMemo remembers what countTerms made of the words of earlier pages
// analysed with one scratch, for one word language: a word's term (its stem,
// or the word itself) or that it was dropped (a stop word or one of
// ExtraStopWords). It is owned by one scratch, so it needs no lock, and it
// is probed with the hash that the scratch's surface index already
// computed for the word, so a hit costs one table probe, where the
// Pipeline's shared stem memo costs a hash, a lock and a map lookup.
//
// What a word becomes depends only on the word, the word language and the
// Pipeline's options, which are fixed, so a memo never changes a page's
// terms. Keys and terms are strings of their own, never sub-strings of a
// page's text.
type wordMemo struct {
	words strIndex   // keys: the words; same seed as the scratch's surface index
	terms []memoTerm // by id in words
	limit int        // most words held
}

type memoTerm struct {
	text string
	hash uint64 // text's hash under words.seed
	keep bool   // false: the word is dropped
}

// get returns the memoised term of word w and the term's hash (w's hash
// under words.seed is h); ok is false when w is not in the memo.
func (m *wordMemo) get(h uint64, w string) (term string, termHash uint64, keep, ok bool) {
	if id := m.words.lookupHashed(h, w); id >= 0 {
		t := &m.terms[id]
		return t.text, t.hash, t.keep, true
	}
	return "", 0, false, false
}

// put records what w, with hash h, becomes: term, with hash termHash, or
// dropped when keep is false. It copies w and term, which may be sub-strings
// of a page.
func (m *wordMemo) put(h uint64, w, term string, termHash uint64, keep bool) {
	if m.words.len() >= m.limit {
		m.words.reset(0)
		clear(m.terms)
		m.terms = m.terms[:0]
	}
	k := strings.Clone(w)
	if term == w {
		term = k
	} else {
		term = strings.Clone(term)
	}
	m.words.addHashed(h, k)
	m.terms = append(m.terms, memoTerm{term, termHash, keep})
}
