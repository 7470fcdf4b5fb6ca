package synth

import (
	"iter"
	"math"
	"strconv"
	"time"
)

// Kind is how a page came to be: a distinct article, or one of the kinds of
// near-duplicate of an earlier page.
type Kind uint8

// The kinds of page.
const (
	// Distinct is a new article: its own text, on its host's template. It
	// starts a group.
	Distinct Kind = iota
	// Refetch is the original fetched again at the same URL: the same
	// article and template, another timestamp, view count and ads.
	Refetch
	// Retemplate is the original's article on another host of the same
	// language, in that host's template: a mirror or syndicated copy.
	Retemplate
	// Boilerplate is the original's article and host under another URL
	// (tracking parameters, an AMP or print variant) with other ads,
	// related links, cookie notice, share buttons or newsletter box.
	Boilerplate
	// Swap is the original with two of its paragraphs swapped (every
	// article has two at least), under a variant URL.
	Swap
	// Edit is the original at the same URL after small edits: 2–6 % of
	// its words (Chinese: 1–3 % of its characters) replaced and, in a
	// long article, a sentence or two rewritten; at least about 85 % of
	// the text is kept.
	Edit
	// Reoffer is an earlier page offered again: the same bytes, ID and
	// URL.
	Reoffer
	numKinds
)

var kindNames = [numKinds]string{"distinct", "refetch", "retemplate", "boilerplate", "swap", "edit", "reoffer"}

// String returns the kind's name as the manifest's kind column writes it.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Page is one page of a generated crawl with its label.
type Page struct {
	// Index is the page's position in the crawl, from 0.
	Index int
	// ID names the page: "p" and Index in at least 7 digits. A re-offer
	// repeats the ID of the page it offers again.
	ID   string
	URL  string
	Host string // the URL's host
	Lang string // "en" or "zh"
	// HTML is the page, UTF-8; each call returns a new slice.
	HTML []byte
	// Group is the Index of the group's first page, the Distinct page
	// every page of the group nearly duplicates; a page is a
	// near-duplicate iff Kind != Distinct, and then its group's first
	// page came earlier in the crawl.
	Group int
	Kind  Kind
	// Original is the ID of the group's first page ("" for a Distinct
	// page).
	Original string
	// Words is the article's length: words, or Chinese characters.
	Words int
}

// Duplicate reports whether the page nearly duplicates an earlier one.
func (p Page) Duplicate() bool { return p.Kind != Distinct }

// GroupLabel is the group's label in a corpus manifest: "g" and Group in at
// least 7 digits.
func (p Page) GroupLabel() string { return label('g', p.Group) }

func label(c byte, n int) string {
	b := make([]byte, 0, 12)
	b = append(b, c)
	for d := 1000000; d > 1 && n < d; d /= 10 {
		b = append(b, '0')
	}
	return string(strconv.AppendInt(b, int64(n), 10))
}

// Crawl generates a crawl page by page. Page i is a function of the seed,
// the options and i alone: Next, At and All give the same pages, and a
// crawl is a prefix of any longer one.
//
// A Crawl is not safe for concurrent use; crawls built with the same
// options may run concurrently.
type Crawl struct {
	opts     Options
	next     int
	en, zh   *model
	pools    [2]pool
	hosts    hostCache
	hostMass float64 // the share of the host law's mass on the allowed ranks
	dupCut   uint64  // a page is a near-duplicate when its first draw is below
	mixCum   [numKinds]float64
	art      article // scratch
}

// New validates the options and returns a crawl positioned at its first
// page. Errors wrap ErrInvalidOption.
func New(opts Options) (*Crawl, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Crawl{opts: o}
	if c.en, err = parseModel(modelEN, false); err != nil {
		return nil, err
	}
	if c.zh, err = parseModel(modelZH, true); err != nil {
		return nil, err
	}
	c.en.bigram, c.zh.bigram = o.Text == Bigram, o.Text == Bigram
	c.pools[0] = buildPool(o.Seed, &english, c.en, 0)
	c.pools[1] = buildPool(o.Seed, &chinese, c.zh, 1)
	c.hosts.slots = make([]*host, o.HostCache)
	c.hosts.fixed = o.HostCache / 2
	c.hostMass = 1
	if o.Hosts > 0 {
		c.hostMass = 1 - math.Pow(1+float64(o.Hosts)/o.ZipfOffset, -(o.ZipfExponent-1))
	}
	c.dupCut = uint64(o.Duplicates * (1 << 64))
	sum := 0.0
	w := o.Mix.weights()
	for k := Refetch; k < numKinds; k++ {
		sum += w[k]
		c.mixCum[k] = sum
	}
	for k := range c.mixCum {
		c.mixCum[k] /= sum
	}
	return c, nil
}

// Options returns the options in use, defaults filled in.
func (c *Crawl) Options() Options { return c.opts }

// Len returns the number of pages, Options.Pages.
func (c *Crawl) Len() int { return c.opts.Pages }

// Next returns the next page, or false after the last.
func (c *Crawl) Next() (Page, bool) {
	if c.next >= c.opts.Pages {
		return Page{}, false
	}
	c.next++
	return c.page(c.next - 1), true
}

// Reset moves the crawl back to its first page.
func (c *Crawl) Reset() { c.next = 0 }

// At returns page i (0 ≤ i < Len()), wherever Next stands; ok is false for
// any other i.
func (c *Crawl) At(i int) (p Page, ok bool) {
	if i < 0 || i >= c.opts.Pages {
		return Page{}, false
	}
	return c.page(i), true
}

// All yields every page in order, from the first, wherever Next stands.
func (c *Crawl) All() iter.Seq[Page] {
	return func(yield func(Page) bool) {
		for i := range c.opts.Pages {
			if !yield(c.page(i)) {
				return
			}
		}
	}
}

// decide returns what page i is: Distinct, or a kind of near-duplicate of
// page target < i.
func (c *Crawl) decide(i int) (Kind, int) {
	if i == 0 {
		return Distinct, 0
	}
	r := stream(c.opts.Seed, streamDecide, uint64(i))
	if r.next() >= c.dupCut {
		return Distinct, i
	}
	target := r.intn(i)
	x := r.float()
	for k := Refetch; k < numKinds; k++ {
		if x < c.mixCum[k] {
			return k, target
		}
	}
	return Reoffer, target
}

// root returns the first page of page i's group.
func (c *Crawl) root(i int) int {
	for {
		k, t := c.decide(i)
		if k == Distinct {
			return i
		}
		i = t
	}
}

// epoch is the crawl's start; page i is fetched i·37 seconds later.
const epoch = 1672531200 // 2023-01-01T00:00:00Z

func fetched(i int) int64 { return epoch + 37*int64(i) }

// look is what a page shows around its article besides the host template:
// dates, counters, ads and the picks of the template's variable parts.
type look struct {
	published, updated int64
	views              int
	author             int
	ads                [3]int
	nads               int
	related            [6]int
	nrel               int
	cookie, share      bool
	newsletter         int // -1: none
	source             string
}

func (c *Crawl) drawLook(r *rng, h *host, published int64) look {
	p := c.pool(h.zh)
	lk := look{published: published, views: r.intn(50000), author: r.intn(len(h.authors)), cookie: h.cookie != nil, share: true, newsletter: -1}
	lk.nads = r.between(1, 3)
	for k := range lk.nads {
		lk.ads[k] = r.intn(len(p.ads))
	}
	lk.nrel = r.between(4, 6)
	for k := range lk.nrel {
		lk.related[k] = r.intn(len(h.relItems))
	}
	return lk
}

func (c *Crawl) page(i int) Page {
	kind, target := c.decide(i)
	if kind == Reoffer {
		p := c.page(target)
		if p.Original == "" {
			p.Original = p.ID
		}
		p.Index, p.Kind = i, Reoffer
		return p
	}
	root := i
	if kind != Distinct {
		root = c.root(target)
	}
	// The original: its host, publication time and look.
	pr := stream(c.opts.Seed, streamPage, uint64(root))
	h := c.host(c.hostRank(&pr))
	published := fetched(root) - int64(pr.intn(30*86400))
	lk := c.drawLook(&pr, h, published)
	a := &c.art
	c.writeArticle(a, root, h, kind, i)

	r := stream(c.opts.Seed, streamLook, uint64(i))
	url := c.url(h, root, a, published)
	switch kind {
	case Refetch:
		lk.updated = fetched(i)
		lk.views += 1 + r.intn(5000)
		fresh := c.drawLook(&r, h, published)
		lk.ads, lk.nads = fresh.ads, fresh.nads
	case Edit:
		lk.updated = fetched(i)
		lk.views += 1 + r.intn(5000)
	case Boilerplate:
		fresh := c.drawLook(&r, h, published)
		lk.ads, lk.nads, lk.related, lk.nrel = fresh.ads, fresh.nads, fresh.related, fresh.nrel
		lk.cookie = h.cookie != nil && r.intn(2) == 0
		lk.share = r.intn(2) == 0
		if r.intn(2) == 0 {
			lk.newsletter = r.intn(len(c.pool(h.zh).newsletters))
		}
		url += pick(&r, []string{"?utm_source=newsletter&utm_medium=email", "?utm_source=twitter", "/amp", "?output=print", "?ref=homepage", "?fbclid=" + strconv.FormatUint(r.next(), 36)})
	case Swap:
		url += pick(&r, []string{"?page=all", "?view=full", "?ref=related", "?src=rss"})
	case Retemplate:
		// Another host of the article's language.
		mirror := h
		for try := 0; try < 4096; try++ {
			k := c.hostRank(&r)
			if k != h.rank && c.isChinese(k) == h.zh {
				mirror = c.host(k)
				break
			}
		}
		lk = c.drawLook(&r, mirror, fetched(i)-int64(r.intn(86400)))
		if r.intn(2) == 0 {
			lk.source = url
		}
		h = mirror
		url = c.url(h, i, a, lk.published)
	}
	l, _ := c.lang(h.zh)
	p := Page{Index: i, ID: label('p', i), URL: url, Host: h.name, Lang: l.code, HTML: c.write(h, a, &lk), Group: root, Kind: kind, Words: a.words}
	if kind != Distinct {
		p.Original = label('p', root)
	}
	return p
}

// url is the address of article a (first published as page n) on host h.
func (c *Crawl) url(h *host, n int, a *article, published int64) string {
	b := make([]byte, 0, 96)
	b = append(b, "https://"...)
	b = append(b, h.name...)
	sec := h.sections[int(mix64(uint64(n))%uint64(len(h.sections)))]
	t := time.Unix(published, 0).UTC()
	switch h.urlStyle {
	case 0:
		b = append(b, '/')
		b = append(b, sec...)
		b = t.AppendFormat(b, "/2006/01/")
		b = append(b, a.slug...)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(n), 36)
		b = append(b, ".html"...)
	case 1:
		b = append(b, "/article/"...)
		b = strconv.AppendInt(b, int64(n)+100000, 10)
	case 2:
		b = append(b, '/')
		b = append(b, sec...)
		b = append(b, '/')
		b = append(b, a.slug...)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(n), 36)
		b = append(b, '/')
	case 3:
		b = t.AppendFormat(b, "/news/20060102/c")
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ".shtml"...)
	default:
		b = append(b, "/?p="...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(b)
}

// write assembles a page: the host's template around the article.
func (c *Crawl) write(h *host, a *article, lk *look) []byte {
	l, _ := c.lang(h.zh)
	p := c.pool(h.zh)
	b := make([]byte, 0, len(a.buf)+len(h.afterTitle)+len(h.sidebar)+len(h.footer)+4096)
	b = append(b, `<!DOCTYPE html><html lang="`...)
	b = append(b, l.code...)
	b = append(b, `"><head><meta charset="utf-8"><title>`...)
	b = append(b, a.title...)
	b = append(b, h.afterTitle...)
	if lk.cookie && h.cookieTop {
		b = append(b, h.cookie...)
	}
	b = append(b, h.mainOpen...)
	b = append(b, "<h1>"...)
	b = append(b, a.title...)
	b = append(b, "</h1>"...)
	b = append(b, h.metaOpen...)
	b = append(b, l.by...)
	b = append(b, ' ')
	b = append(b, h.authors[lk.author]...)
	b = append(b, " · "...)
	b = time.Unix(lk.published, 0).UTC().AppendFormat(b, l.dateLayout)
	if lk.updated != 0 {
		b = append(b, " · "...)
		b = append(b, l.updated...)
		b = append(b, ' ')
		b = time.Unix(lk.updated, 0).UTC().AppendFormat(b, l.dateLayout)
	}
	b = append(b, " · "...)
	b = strconv.AppendInt(b, int64(lk.views), 10)
	b = append(b, ' ')
	b = append(b, l.views...)
	b = append(b, "</p>"...)
	for _, k := range a.order {
		pr := a.paras[k]
		b = append(b, "<p>"...)
		b = append(b, a.buf[pr[0]:pr[1]]...)
		b = append(b, "</p>"...)
	}
	if lk.source != "" {
		b = append(b, `<p class="source">`...)
		b = append(b, l.source...)
		b = append(b, ` <a href="`...)
		b = append(b, lk.source...)
		b = append(b, `">`...)
		b = append(b, lk.source...)
		b = append(b, "</a></p>"...)
	}
	if lk.share {
		b = append(b, h.share...)
	}
	b = append(b, h.mainClose...)
	b = append(b, h.relOpen...)
	for _, k := range lk.related[:lk.nrel] {
		b = append(b, h.relItems[k]...)
	}
	b = append(b, h.relClose...)
	for _, k := range lk.ads[:lk.nads] {
		b = append(b, `<div class="`...)
		b = append(b, h.adClass...)
		b = append(b, p.ads[k]...)
	}
	b = append(b, h.sidebar...)
	if lk.newsletter >= 0 {
		b = append(b, p.newsletters[lk.newsletter]...)
	}
	b = append(b, "</div>"...) // closes mainOpen's wrapper
	b = append(b, h.footer...)
	if lk.cookie && !h.cookieTop {
		b = append(b, h.cookie...)
	}
	b = append(b, h.tail...)
	return b
}

// article is an article's text: a title, and paragraphs as ranges of buf,
// written in the given order.
type article struct {
	title []byte
	slug  []byte
	buf   []byte
	paras [][2]int
	order []int
	words int
}

// writeArticle writes the article of page root (a Distinct page on host h)
// as page i of the given kind shows it: edited for Edit, two paragraphs
// swapped for Swap, as first written otherwise.
func (c *Crawl) writeArticle(a *article, root int, h *host, kind Kind, i int) {
	r := stream(c.opts.Seed, streamArticle, uint64(root))
	_, m := c.lang(h.zh)
	// Length.
	n := 0
	if r.chance(c.opts.Short) {
		n = r.between(50, 150)
	} else {
		med := float64(c.opts.MedianWords)
		n = int(med * math.Exp(0.55*r.normal()))
		n = min(max(n, 150), 8*c.opts.MedianWords)
	}
	if h.zh {
		n = n * 8 / 5
	}
	// Topic: some of the site's words and the article's own.
	t := m.topic(&r, r.between(10, 24))
	t.words = append(t.words, h.topic.words[:4]...)

	a.title = append(a.title[:0], phrase(m, &r, &t, r.between(4, 10), true)...)
	a.slug = a.slug[:0]
	if h.zh {
		a.slug = strconv.AppendInt(a.slug, int64(root), 10)
	} else {
		for k, words := 0, 0; k < len(a.title) && words < 5; k++ {
			switch ch := a.title[k]; {
			case ch == ' ':
				if words++; words < 5 {
					a.slug = append(a.slug, '-')
				}
			case ch >= 'A' && ch <= 'Z':
				a.slug = append(a.slug, ch|0x20)
			default:
				a.slug = append(a.slug, ch)
			}
		}
	}

	var e edit
	var er rng
	replace := [2]int{-1, -1} // sentences rewritten by an edit
	if kind == Edit {
		er = stream(c.opts.Seed, streamEdit, uint64(i))
		e.r = &er
		if h.zh {
			e.wordRate = 0.01 + 0.02*er.float()
		} else {
			e.wordRate = 0.02 + 0.04*er.float()
		}
		e.force = er.intn(n)
		// A sentence or two, at most about 8 % of the text.
		sents := n / 16
		if h.zh {
			sents = n / 24
		}
		for k := range min(2, sents*8/100) {
			replace[k] = er.intn(sents)
		}
	}
	w := writer{m: m, buf: a.buf[:0], prev: -1}
	a.paras = a.paras[:0]
	short := n < 200
	sentence := 0
	for w.drawn < n {
		start := len(w.buf)
		k := r.between(2, 6)
		if short {
			k = r.between(1, 2) // so that there are two paragraphs at least
		}
		for s := 0; s < k && w.drawn < n; s++ {
			if s > 0 && !m.zh {
				w.buf = append(w.buf, ' ')
			}
			w.start = true
			se := e
			se.sentence = sentence == replace[0] || sentence == replace[1]
			sentence++
			var words int
			if m.zh {
				words = r.between(12, 36)
			} else {
				words = r.between(8, 24)
			}
			w.sentence(&r, &t, min(words, max(n-w.drawn, 4)), se)
		}
		a.paras = append(a.paras, [2]int{start, len(w.buf)})
	}
	a.buf, a.words = w.buf, w.words
	a.order = a.order[:0]
	for k := range a.paras {
		a.order = append(a.order, k)
	}
	if kind == Swap {
		sr := stream(c.opts.Seed, streamEdit, uint64(i))
		if len(a.order) > 1 {
			x := sr.intn(len(a.order) - 1)
			y := x + 1
			if len(a.order) > 2 && sr.intn(2) == 0 {
				y = x + 1 + sr.intn(len(a.order)-1-x)
			}
			a.order[x], a.order[y] = a.order[y], a.order[x]
		}
	}
}
