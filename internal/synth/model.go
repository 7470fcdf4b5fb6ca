package synth

import (
	"bufio"
	_ "embed"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

//go:generate go run gen_model.go

// The word models, built from the sample corpora by gen_model.go.
var (
	//go:embed model_en.txt
	modelEN string
	//go:embed model_zh.txt
	modelZH string
)

// maxSucc is the most successors a model lists per word.
const maxSucc = 8

// A model writes text: words drawn by their frequency in the sample corpus
// (an alias table), by the words that follow the previous one there (its
// successors), or from the article's topic. English words are separated by
// spaces; Chinese "words" are Han characters, written without spaces.
type model struct {
	zh     bool
	bigram bool // nextWord walks the bigram model (Options.Text Bigram)
	words  []string
	text   []byte // the words, each at off[i] and followed by 8 spare bytes
	off    []uint32
	succ   [][maxSucc]uint16
	nsucc  []uint8
	prob   []uint64 // alias table over the counts: column i keeps i below prob[i]
	alias  []uint16
	total  uint64
}

// parseModel reads a model file: comment lines starting with '#', then one
// line per word, most frequent first: the word, its count and the indices
// of its successors.
func parseModel(text string, zh bool) (*model, error) {
	m := &model{zh: zh}
	var counts []uint64
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			return nil, fmt.Errorf("synth: word model line %d: %q", line, sc.Text())
		}
		c, err := strconv.ParseUint(f[1], 10, 32)
		if err != nil || c == 0 {
			return nil, fmt.Errorf("synth: word model line %d: count %q", line, f[1])
		}
		var s [maxSucc]uint16
		n := 0
		for _, x := range f[2:min(len(f), 2+maxSucc)] {
			v, err := strconv.ParseUint(x, 10, 16)
			if err != nil {
				return nil, fmt.Errorf("synth: word model line %d: successor %q", line, x)
			}
			s[n] = uint16(v)
			n++
		}
		m.words = append(m.words, f[0])
		m.succ = append(m.succ, s)
		m.nsucc = append(m.nsucc, uint8(n))
		counts = append(counts, c)
	}
	if len(m.words) < 200 || len(m.words) > 1<<16 {
		return nil, fmt.Errorf("synth: word model has %d words", len(m.words))
	}
	for i := range m.succ {
		for _, s := range m.succ[i][:m.nsucc[i]] {
			if int(s) >= len(m.words) {
				return nil, fmt.Errorf("synth: word model: word %q has successor %d of %d", m.words[i], s, len(m.words))
			}
		}
	}
	for _, w := range m.words {
		m.off = append(m.off, uint32(len(m.text)))
		m.text = append(m.text, w...)
		m.text = append(m.text, "        "...)
	}
	m.buildAlias(counts)
	return m, nil
}

// buildAlias builds Vose's alias table over counts, in integers, so that a
// draw is one random number and two loads.
func (m *model) buildAlias(counts []uint64) {
	n := uint64(len(counts))
	for _, c := range counts {
		m.total += c
	}
	m.prob = make([]uint64, n)
	m.alias = make([]uint16, n)
	scaled := make([]uint64, n) // c·n against a column height of total
	var small, large []int
	for i, c := range counts {
		scaled[i] = c * n
		if scaled[i] < m.total {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		m.prob[s], m.alias[s] = scaled[s], uint16(l)
		scaled[l] -= m.total - scaled[s]
		if scaled[l] < m.total {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		m.prob[i], m.alias[i] = m.total, uint16(i)
	}
}

// draw returns a word index by frequency.
func (m *model) draw(r *rng) int {
	x := r.next()
	col := int((x >> 32) * uint64(len(m.words)) >> 32)
	if (x&0xffffffff)*m.total>>32 < m.prob[col] {
		return col
	}
	return int(m.alias[col])
}

// topic is the words an article (or a site) returns to: mid-frequency words
// of the model, or for Chinese two-character words (a character and one of
// its successors).
type topic struct {
	words [][2]int // the second index is -1 for a one-word entry
}

func (m *model) topic(r *rng, n int) topic {
	t := topic{words: make([][2]int, n)}
	lo := min(60, len(m.words)/4)
	for i := range t.words {
		w := lo + r.intn(len(m.words)-lo)
		t.words[i] = [2]int{w, -1}
		if m.zh && m.nsucc[w] > 0 {
			t.words[i][1] = int(m.succ[w][r.intn(int(m.nsucc[w]))])
		}
	}
	return t
}

// writer appends words to a buffer, the way a model's language writes them:
// spaces, a capital letter after a sentence end, Chinese commas.
type writer struct {
	m     *model
	buf   []byte
	start bool // the next word starts a sentence
	prev  int  // the last word drawn from the article's stream (an edit may have written another)
	words int  // words written
	drawn int  // words drawn from the article's stream (an edit may write more or fewer)
}

func (w *writer) word(i int) {
	m := w.m
	if len(w.buf)+24 > cap(w.buf) {
		w.buf = append(w.buf[:cap(w.buf)], make([]byte, cap(w.buf)+256)...)[:len(w.buf)]
	}
	n := len(w.buf)
	if !m.zh && !w.start && n > 0 {
		w.buf = append(w.buf, ' ')
		n++
	}
	o := m.off[i]
	l := len(m.words[i])
	if l <= 8 { // most words: one 8-byte copy
		binary.LittleEndian.PutUint64(w.buf[n:n+8], binary.LittleEndian.Uint64(m.text[o:o+8]))
		w.buf = w.buf[:n+l]
	} else {
		w.buf = append(w.buf, m.words[i]...)
	}
	if w.start && !m.zh && w.buf[n] >= 'a' && w.buf[n] <= 'z' {
		w.buf[n] -= 'a' - 'A'
	}
	w.start = false
	w.words++
}

// end ends a sentence.
func (w *writer) end(r *rng) {
	switch {
	case w.m.zh:
		w.buf = append(w.buf, "。"...)
	case r.intn(16) == 0:
		w.buf = append(w.buf, '?')
	default:
		w.buf = append(w.buf, '.')
	}
	w.start = true
}

// pause writes a comma.
func (w *writer) pause() {
	if w.m.zh {
		w.buf = append(w.buf, "，"...)
	} else {
		w.buf = append(w.buf, ',')
	}
}

// nextWord draws the next word: from the topic (about one word in four
// when t has words), after the previous word (about half the rest), or by
// frequency; with m.bigram, after the previous word (nine in ten, half of
// them its most frequent successor), from the topic or by frequency. It returns a second word (else -1) for a two-character Chinese
// topic word. How many numbers it takes from r depends on prev, so an edit
// keeps the original's previous word (writer.prev).
func (m *model) nextWord(r *rng, t *topic, prev int) (int, int) {
	x := r.next()
	pct, y := (x&0xffffffff)*100>>32, x>>32
	if m.bigram {
		switch {
		case pct < 90 && prev >= 0 && m.nsucc[prev] > 0:
			if pct < 45 {
				return int(m.succ[prev][0]), -1
			}
			return int(m.succ[prev][y*uint64(m.nsucc[prev])>>32]), -1
		case pct < 95 && len(t.words) > 0:
			e := t.words[y*uint64(len(t.words))>>32]
			return e[0], e[1]
		}
		return m.draw(r), -1
	}
	switch {
	case pct < 22 && len(t.words) > 0:
		e := t.words[y*uint64(len(t.words))>>32]
		return e[0], e[1]
	case pct < 62 && prev >= 0 && m.nsucc[prev] > 0:
		return int(m.succ[prev][y*uint64(m.nsucc[prev])>>32]), -1
	}
	return m.draw(r), -1
}

// edit says how a sentence is written: as drawn, with some words replaced,
// or replaced as a whole by another sentence.
type edit struct {
	r        *rng    // draws the replacements; nil: no edits
	wordRate float64 // share of words replaced
	force    int     // the word (counted from the article's start) replaced in any case
	sentence bool    // this sentence is replaced by a fresh one
}

// sentence writes one sentence of n words (Chinese: characters) drawn from
// r. The draws from r depend only on r and n, never on e, so an edited
// article consumes its stream as the original does and the text after an
// edit stays the same.
func (w *writer) sentence(r *rng, t *topic, n int, e edit) {
	comma := 0
	if n > 10 {
		comma = r.between(5, n-4)
	}
	if !w.m.zh && n > 8 && r.intn(3) != 0 {
		comma = 0
	}
	var fresh rng
	fprev := -1
	if e.sentence {
		fresh = stream(int64(e.r.next()), 0, 0)
	}
	for k := 0; k < n; k++ {
		a, b := w.m.nextWord(r, t, w.prev)
		w.prev = a
		if b >= 0 {
			w.prev = b
		}
		switch {
		case e.sentence:
			x, y := w.m.nextWord(&fresh, t, fprev)
			fprev = x
			w.word(x)
			if y >= 0 {
				fprev = y
				w.word(y)
			}
		case e.r != nil && (e.r.chance(e.wordRate) || w.drawn == e.force):
			x := w.m.draw(e.r)
			if x == a {
				x = (a + 1) % len(w.m.words)
			}
			w.word(x)
		default:
			w.word(a)
			if b >= 0 {
				w.word(b)
			}
		}
		w.drawn++
		if b >= 0 {
			k++
			w.drawn++
		}
		if comma > 0 && k == comma && k+1 < n {
			w.pause()
		}
	}
	w.end(r)
}
