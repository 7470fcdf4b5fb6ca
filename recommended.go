package neardup

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/snapshot"
	"github.com/neardup/neardup/internal/template"
	"github.com/neardup/neardup/preprocess"
)

// Defaults of RecommendedOptions, chosen on the labelled corpora (see
// Recommended).
const (
	DefaultContentDistance = 0.62
	DefaultPageDistance    = 0.5
	DefaultContentGuard    = 0.9
)

// SketchSize is the number of shingle hashes a Recommended detector keeps of
// each text of a page (its content and the whole page), and ShingleWidth
// the tokens per shingle.
const (
	SketchSize   = 256
	ShingleWidth = 4
)

// JaccardDistance is the Measure of a Recommended detector's matches: one
// minus the Jaccard similarity of two pages' sets of 4-token shingles,
// estimated from MinHash sketches; of the page's content and of the whole
// page, the smaller.
const JaccardDistance Measure = "shingle-jaccard"

// RecommendedOptions configures a Recommended detector. The zero value is the
// tuned default; the fields are for research, not for tuning per site.
type RecommendedOptions struct {
	// ContentDistance: pages whose contents (the page less the blocks its
	// site repeats) are closer than this are near-duplicates. Zero means
	// DefaultContentDistance.
	ContentDistance float64
	// PageDistance and ContentGuard: pages whose whole texts are closer than
	// PageDistance are near-duplicates too, when their contents are closer
	// than ContentGuard (so that two pages of one heavy template with
	// different content are not). Zero means the defaults.
	PageDistance, ContentGuard float64
	// TemplatePages is how many pages of a host a block must have been seen
	// on to count as template; zero means 3. Negative turns the template
	// model off.
	TemplatePages int
}

func (o RecommendedOptions) resolve() (RecommendedOptions, error) {
	def := func(x *float64, d float64) {
		if *x == 0 {
			*x = d
		}
	}
	def(&o.ContentDistance, DefaultContentDistance)
	def(&o.PageDistance, DefaultPageDistance)
	def(&o.ContentGuard, DefaultContentGuard)
	for _, x := range []float64{o.ContentDistance, o.PageDistance, o.ContentGuard} {
		if !(x > 0 && x <= 1) {
			return o, fmt.Errorf("neardup: RecommendedOptions: distance %v not in (0, 1]: %w", x, ErrInvalidOption)
		}
	}
	if o.TemplatePages == 0 {
		o.TemplatePages = template.MinPages
	}
	return o, nil
}

// near reports whether pages at content distance c and whole-page distance p
// are near-duplicates.
func (o RecommendedOptions) near(c, p float64) bool {
	return c < o.ContentDistance || p < o.PageDistance && c < o.ContentGuard
}

// Recommended is the detector to use when in doubt: it needs no tuning,
// takes pages whose near-duplicates differ by site templates, ads, edits or
// a few sentences.
//
// For each page it keeps two MinHash sketches (SketchSize hashes of its
// 4-token shingles): of the whole page, and of its content — the page less
// the text blocks that its site repeats across pages (a block seen on three
// earlier pages of the same host is template). The template model learns as
// pages arrive, per host, in bounded memory. Two pages are near-duplicates
// when their contents are closer than 0.62 (one minus the estimated Jaccard
// similarity of their shingle sets), or their whole texts closer than 0.5
// and their contents closer than 0.9. Pages with the same text are found
// through a hash; other candidates through an index of each sketch's eight
// smallest hashes, so a page is compared only with pages that share
// shingles.
//
// On the labelled corpora (streamed, a page flagged when it matches a page
// kept before it) this finds the duplicates more accurately than any single
// method of the papers, clean and template-heavy pages alike: F1 0.997 on
// en-dev, 1.000 on zh-dev, 0.978 on en-dev-hard and 0.995 on zh-dev-hard
// (the best single method: 0.994, 0.999, 0.852, 0.850); the thresholds were
// chosen on those corpora, on a plateau where F1 moves by less than 0.005
// for ContentDistance from 0.6 to 0.65. It keeps about 2.9 KB per page
// (two sketches of 256 hashes, the content's with their blocks' tags).
//
// A Recommended detector is safe for concurrent use: Match and Verify run in
// parallel, Add, MatchOrAdd, Replace and Remove exclusively. Make it with
// NewRecommended.
type Recommended struct {
	opts RecommendedOptions

	mu    sync.RWMutex
	tmpl  *template.Model
	ids   map[string]int32
	slots []*recEntry // nil: a free slot
	free  []int32
	exact map[uint64][]int32
	index map[uint32][]int32 // the smallest hashes of each page and content -> slots
}

// recEntry is a kept page: its ID and host, the hash of its text, its page
// sketch, its content sketch as of the template model (version) it was kept
// under with the block of each shingle (tags), and the hashes it is indexed
// under. When its host's template has changed since, its content is derived
// anew: the shingles of its content sketch whose blocks are not template now
// (derived, kept until the next change).
type recEntry struct {
	id, host string
	exact    uint64
	page     minhash.Sketch
	content  minhash.Sketch
	tags     []uint32
	version  uint64
	warm     bool // kept while its host's template was being learnt
	keys     []uint32
	derived  atomic.Pointer[derivedContent]
}

type derivedContent struct {
	version uint64
	content minhash.Sketch
}

// candidateHashes is the number of each sketch's smallest hashes indexed.
const candidateHashes = 8

// NewRecommended returns an empty Recommended detector.
func NewRecommended(opts RecommendedOptions) (*Recommended, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	return &Recommended{opts: o, tmpl: template.New(o.TemplatePages), ids: make(map[string]int32),
		exact: make(map[uint64][]int32), index: make(map[uint32][]int32)}, nil
}

var errNoRecommended = fmt.Errorf("neardup: Recommended not made by NewRecommended: %w", ErrInvalidOption)

// recPage is what a Recommended detector computes once per document: its
// blocks, their template keys, the hash of its text and its tagged sketch.
type recPage struct {
	lang   preprocess.Language
	blocks []string
	keys   []uint32
	exact  uint64
	page   minhash.Tagged
}

type recKey struct{}

func recPageOf(d *Document) (*recPage, error) {
	if err := Check(d); err != nil {
		return nil, err
	}
	return Feature(d, recKey{}, func(d *Document) (*recPage, error) {
		p := &recPage{lang: d.Page.Language}
		var hashes []uint64
		p.blocks, hashes = template.Blocks(d.Page.Text)
		if len(p.blocks) == 0 {
			return nil, fmt.Errorf("neardup: document %q has no text: %w", d.ID, ErrNoFeatures)
		}
		h := xxhash.New()
		var b [8]byte
		p.keys = make([]uint32, len(hashes))
		for i, x := range hashes {
			binary.LittleEndian.PutUint64(b[:], x)
			h.Write(b[:])
			p.keys[i] = template.Key(x)
		}
		p.exact = h.Sum64()
		p.page = p.sketch(nil)
		return p, nil
	})
}

// sketch returns the tagged sketch of the tokens of p's blocks for which keep
// is true (all of them when keep is nil), stop words left out, each shingle
// tagged with its block's key.
func (p *recPage) sketch(keep []bool) minhash.Tagged {
	b := minhash.NewBuilder(SketchSize, ShingleWidth)
	var toks []string
	for i, blk := range p.blocks {
		if keep != nil && !keep[i] {
			continue
		}
		b.SetTag(p.keys[i])
		toks = preprocess.AppendTokens(toks[:0], blk)
		for _, t := range toks {
			if !preprocess.IsStopWord(p.lang, t) {
				b.Add(t)
			}
		}
	}
	if keep != nil && b.Tokens() < minContentTokens {
		return nil // too little content: the caller takes the whole page
	}
	return b.Tagged()
}

// warmPages: a page kept before its host had shown this many pages is kept
// while the host's template is being learnt; its content is derived anew as
// the template grows. Later pages keep the content they were kept with (a
// block that becomes template later is as likely text their duplicates
// share).
const warmPages = 8

// minContentTokens is the least content a page's content sketch is made of,
// and minContentHashes the least a kept page's derived content sketch holds;
// with less, its content is taken to be the whole page.
const (
	minContentTokens = 20
	minContentHashes = 24
)

// content returns the tagged sketch of the content of the new page p on
// host: its blocks that are not template, sketched afresh (r.mu held).
func (r *Recommended) content(p *recPage, host string) minhash.Tagged {
	if r.opts.TemplatePages < 0 {
		return p.page
	}
	keep := make([]bool, len(p.keys))
	dropped := false
	for i, k := range p.keys {
		keep[i] = !r.tmpl.IsTemplate(host, k)
		dropped = dropped || !keep[i]
	}
	if dropped {
		if t := p.sketch(keep); t != nil {
			return t
		}
	}
	return p.page
}

// keptContent returns the content sketch of the kept entry e under the
// template model of the moment: the hashes of its page sketch from blocks
// that are not template (r.mu held). A page kept before its site's template
// was learnt so loses its template too.
func (r *Recommended) keptContent(e *recEntry) minhash.Sketch {
	if r.opts.TemplatePages < 0 {
		return e.content
	}
	if !e.warm {
		return e.content
	}
	v := r.tmpl.Version(e.host)
	if v == e.version {
		return e.content
	}
	if d := e.derived.Load(); d != nil && d.version == v {
		return d.content
	}
	tmpl := make(map[uint32]bool)
	var c minhash.Sketch
	for i, h := range e.content {
		tag := e.tags[i]
		t, ok := tmpl[tag]
		if !ok {
			t = r.tmpl.IsTemplate(e.host, tag)
			tmpl[tag] = t
		}
		if !t {
			c = append(c, h)
		}
	}
	if len(c) < minContentHashes {
		c = e.content // all template now: the content as it was kept
	}
	e.derived.Store(&derivedContent{v, c})
	return c
}

// match returns the kept pages near p (r.mu held).
func (r *Recommended) match(p *recPage, tagged minhash.Tagged) []Match {
	content := tagged.Hashes()
	var ms []Match
	seen := make(map[int32]bool)
	for _, s := range r.exact[p.exact] {
		seen[s] = true
		ms = append(ms, Match{ID: r.slots[s].id, Score: 0, Measure: JaccardDistance})
	}
	page := p.page.Hashes()
	for _, sk := range []minhash.Sketch{page, content} {
		for _, h := range sk[:min(candidateHashes, len(sk))] {
			for _, s := range r.index[h] {
				if seen[s] {
					continue
				}
				seen[s] = true
				if d, ok := r.score(p.exact, page, content, r.slots[s]); ok {
					ms = append(ms, Match{ID: r.slots[s].id, Score: d, Measure: JaccardDistance})
				}
			}
		}
	}
	SortMatches(ms)
	return ms
}

// score returns the distance of a page (its text's hash, page and content
// sketches) to the kept entry e, and whether they are near-duplicates.
func (r *Recommended) score(exact uint64, page, content minhash.Sketch, e *recEntry) (float64, bool) {
	if exact == e.exact {
		return 0, true
	}
	kc := r.keptContent(e)
	c := minhash.Distance(content, kc, min(len(content), len(kc)))
	pd := minhash.Distance(page, e.page, SketchSize)
	return math.Min(c, pd), r.opts.near(c, pd)
}

// Match returns the kept pages that d nearly duplicates, closest first. It
// reads the template model but does not teach it (only Add, MatchOrAdd and
// Replace count a page).
func (r *Recommended) Match(d *Document) ([]Match, error) {
	if r.ids == nil {
		return nil, errNoRecommended
	}
	p, err := recPageOf(d)
	if err != nil {
		return nil, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.match(p, r.content(p, d.Host)), nil
}

// Verify returns those of candidates that are kept and near d.
func (r *Recommended) Verify(d *Document, candidates []Match) ([]Match, error) {
	if r.ids == nil {
		return nil, errNoRecommended
	}
	p, err := recPageOf(d)
	if err != nil {
		return nil, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	content, page := r.content(p, d.Host).Hashes(), p.page.Hashes()
	var ms []Match
	for _, c := range candidates {
		if s, ok := r.ids[c.ID]; ok {
			if dist, ok := r.score(p.exact, page, content, r.slots[s]); ok {
				ms = append(ms, Match{ID: c.ID, Score: dist, Measure: JaccardDistance})
			}
		}
	}
	SortMatches(ms)
	return slices.CompactFunc(ms, func(a, b Match) bool { return a.ID == b.ID }), nil
}

// Add keeps d (and counts it in the template model).
func (r *Recommended) Add(d *Document) error {
	if r.ids == nil {
		return errNoRecommended
	}
	p, err := recPageOf(d)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.ids[d.ID]; dup {
		return fmt.Errorf("neardup: Recommended.Add %q: %w", d.ID, ErrDuplicateID)
	}
	content := r.content(p, d.Host)
	r.observe(p, d.Host)
	r.add(d.ID, d.Host, p.exact, p.page, content)
	return nil
}

// MatchOrAdd returns the kept pages d nearly duplicates; when there are none
// it keeps d, in one step. Every page offered counts in the template model.
func (r *Recommended) MatchOrAdd(d *Document) ([]Match, bool, error) {
	if r.ids == nil {
		return nil, false, errNoRecommended
	}
	p, err := recPageOf(d)
	if err != nil {
		return nil, false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.matchOrAdd(d, p)
}

func (r *Recommended) matchOrAdd(d *Document, p *recPage) ([]Match, bool, error) {
	content := r.content(p, d.Host)
	r.observe(p, d.Host)
	if ms := r.match(p, content); len(ms) > 0 {
		return ms, false, nil
	}
	if _, dup := r.ids[d.ID]; dup {
		return nil, false, fmt.Errorf("neardup: Recommended.MatchOrAdd %q: %w", d.ID, ErrDuplicateID)
	}
	r.add(d.ID, d.Host, p.exact, p.page, content)
	return nil, true, nil
}

// Replace is MatchOrAdd for a page fetched again under a kept ID (Replacer).
func (r *Recommended) Replace(d *Document) ([]Match, bool, error) {
	if r.ids == nil {
		return nil, false, errNoRecommended
	}
	p, err := recPageOf(d)
	if err != nil {
		return nil, false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.ids[d.ID]; ok {
		r.remove(s)
	}
	return r.matchOrAdd(d, p)
}

// Remove forgets id.
func (r *Recommended) Remove(id string) error {
	if r.ids == nil {
		return errNoRecommended
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.ids[id]
	if !ok {
		return fmt.Errorf("neardup: Recommended.Remove %q: %w", id, ErrUnknownID)
	}
	r.remove(s)
	return nil
}

// Len returns the number of kept pages.
func (r *Recommended) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.ids)
}

func (r *Recommended) observe(p *recPage, host string) {
	if r.opts.TemplatePages >= 0 {
		r.tmpl.Observe(host, p.keys)
	}
}

// add keeps a page under id, indexed under the smallest hashes of its page
// and content sketches.
func (r *Recommended) add(id, host string, exact uint64, page, content minhash.Tagged) {
	e := &recEntry{id: id, host: host, exact: exact, page: page.Hashes(), version: r.tmpl.Version(host),
		warm: r.tmpl.Pages(host) < warmPages}
	e.content, e.tags = content.Split()
	e.keys = make([]uint32, 0, 2*candidateHashes)
	for _, s := range []minhash.Sketch{e.page, e.content} {
		for _, h := range s[:min(candidateHashes, len(s))] {
			if !slices.Contains(e.keys, h) {
				e.keys = append(e.keys, h)
			}
		}
	}
	r.insert(e)
}

// insert keeps e in a free slot and indexes it.
func (r *Recommended) insert(e *recEntry) {
	var s int32
	if n := len(r.free); n > 0 {
		s, r.free = r.free[n-1], r.free[:n-1]
		r.slots[s] = e
	} else {
		s = int32(len(r.slots))
		r.slots = append(r.slots, e)
	}
	r.ids[e.id] = s
	r.exact[e.exact] = append(r.exact[e.exact], s)
	for _, h := range e.keys {
		r.index[h] = append(r.index[h], s)
	}
}

func (r *Recommended) remove(s int32) {
	e := r.slots[s]
	delete(r.ids, e.id)
	if r.exact[e.exact] = without(r.exact[e.exact], s); len(r.exact[e.exact]) == 0 {
		delete(r.exact, e.exact)
	}
	for _, h := range e.keys {
		if r.index[h] = without(r.index[h], s); len(r.index[h]) == 0 {
			delete(r.index, h)
		}
	}
	r.slots[s] = nil
	r.free = append(r.free, s)
}

// without removes s from list (order not kept).
func without(list []int32, s int32) []int32 {
	if i := slices.Index(list, s); i >= 0 {
		list[i] = list[len(list)-1]
		list = list[:len(list)-1]
	}
	return list
}

func (r *Recommended) params() []snapshot.Param {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return []snapshot.Param{
		{Name: "ContentDistance", Value: f(r.opts.ContentDistance)},
		{Name: "PageDistance", Value: f(r.opts.PageDistance)},
		{Name: "ContentGuard", Value: f(r.opts.ContentGuard)},
		{Name: "TemplatePages", Value: strconv.Itoa(r.opts.TemplatePages)},
		{Name: "Sketch", Value: fmt.Sprintf("%dx%d", SketchSize, ShingleWidth)},
	}
}

// WriteTo writes a snapshot of the kept pages (ID, host, text hash, tagged
// sketch and index keys) and the template model.
func (r *Recommended) WriteTo(w io.Writer) (int64, error) {
	if r.ids == nil {
		return 0, errNoRecommended
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	sw := snapshot.NewWriter(w, "neardup.Recommended", r.params())
	r.tmpl.Encode(sw)
	sw.Uvarint(uint64(len(r.ids)))
	for _, e := range r.slots {
		if e == nil {
			continue
		}
		sw.Text(e.id)
		sw.Text(e.host)
		sw.Uint64(e.exact)
		writeSketch(sw, e.page)
		writeSketch(sw, e.content)
		for _, t := range e.tags {
			sw.Uvarint(uint64(t))
		}
		sw.Uvarint(e.version)
		if e.warm {
			sw.Varint(1)
		} else {
			sw.Varint(0)
		}
		sw.Uvarint(uint64(len(e.keys)))
		for _, k := range e.keys {
			sw.Uvarint(uint64(k))
		}
	}
	return sw.Close()
}

func writeSketch(sw *snapshot.Writer, s minhash.Sketch) {
	sw.Uvarint(uint64(len(s)))
	var prev uint32
	for _, h := range s {
		sw.Uvarint(uint64(h - prev))
		prev = h
	}
}

func readSketch(sr *snapshot.Reader) minhash.Sketch {
	n := sr.Count()
	if n > SketchSize {
		sr.Fail("sketch of %d hashes", n)
		return nil
	}
	var s minhash.Sketch
	var h uint64
	for i := uint64(0); i < n && sr.Err() == nil; i++ {
		d := sr.Uvarint()
		if (i > 0 && d == 0) || h+d > math.MaxUint32 {
			sr.Fail("sketch hashes not ascending")
			return nil
		}
		h += d
		s = append(s, uint32(h))
	}
	return s
}

// readEntry reads one kept page written by WriteTo.
func readEntry(sr *snapshot.Reader) *recEntry {
	e := &recEntry{id: sr.Text(), host: sr.Text(), exact: sr.Uint64()}
	e.page, e.content = readSketch(sr), readSketch(sr)
	e.tags = make([]uint32, 0, len(e.content))
	for range e.content {
		t := sr.Uvarint()
		if t > math.MaxUint32 {
			sr.Fail("block tag %d", t)
		}
		e.tags = append(e.tags, uint32(t))
	}
	e.version = sr.Uvarint()
	e.warm = sr.Int(0, 1) == 1
	nk := sr.Count()
	if nk > 2*candidateHashes {
		sr.Fail("%d index keys", nk)
		return e
	}
	for i := uint64(0); i < nk && sr.Err() == nil; i++ {
		k := sr.Uvarint()
		if k > math.MaxUint32 {
			sr.Fail("index key %d", k)
		}
		e.keys = append(e.keys, uint32(k))
	}
	return e
}

// ReadFrom replaces the kept pages and the template model with a snapshot,
// or changes nothing and returns an error (see Persister).
func (r *Recommended) ReadFrom(rd io.Reader) (int64, error) { return restoreNow(r.Restore, rd) }

// Restore reads a snapshot written by WriteTo of a Recommended detector with
// the same options and returns the function that installs it.
func (r *Recommended) Restore(rd io.Reader) (install func(), n int64, err error) {
	if r.ids == nil {
		return nil, 0, errNoRecommended
	}
	sr, err := snapshot.NewReader(rd, "neardup.Recommended", r.params())
	if err != nil {
		return nil, 0, err
	}
	back, _ := NewRecommended(r.opts)
	back.tmpl = template.Decode(sr, r.opts.TemplatePages)
	count := sr.Count()
	for i := uint64(0); i < count && sr.Err() == nil; i++ {
		e := readEntry(sr)
		if sr.Err() != nil {
			break
		}
		if _, dup := back.ids[e.id]; dup {
			sr.Fail("ID %q twice", e.id)
			break
		}
		back.insert(e)
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, err
	}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.tmpl, r.ids, r.slots, r.free, r.exact, r.index = back.tmpl, back.ids, back.slots, back.free, back.exact, back.index
	}, n, nil
}

// Interface checks.
var (
	_ Detector   = (*Recommended)(nil)
	_ Verifier   = (*Recommended)(nil)
	_ Remover    = (*Recommended)(nil)
	_ MatchAdder = (*Recommended)(nil)
	_ Replacer   = (*Recommended)(nil)
	_ Persister  = (*Recommended)(nil)
)
