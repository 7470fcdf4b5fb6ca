package synth

import (
	"fmt"
	"math"
	"strconv"
)

// Stream kinds: each separates one use of the seed from the others.
const (
	streamDecide uint64 = iota + 1
	streamPage
	streamArticle
	streamLook
	streamEdit
	streamHost
	streamPool
	streamRecord
)

// hostRank draws a host: rank k ≥ 1 with probability ∝ (v+k)^-s, by
// inverting the continuous law whose survival function is (1+x/v)^-(s-1),
// truncated to [1, hosts] when hosts > 0.
func (c *Crawl) hostRank(r *rng) int64 {
	u := r.float() * c.hostMass
	x := c.opts.ZipfOffset * (math.Pow(1-u, -1/(c.opts.ZipfExponent-1)) - 1)
	if !(x < 1<<40) {
		x = 1 << 40
	}
	k := int64(x) + 1
	if c.opts.Hosts > 0 && k > int64(c.opts.Hosts) {
		k = int64(c.opts.Hosts)
	}
	return k
}

// isChinese reports whether host k writes in Chinese.
func (c *Crawl) isChinese(k int64) bool {
	r := stream(c.opts.Seed, streamHost, uint64(k))
	return r.float() < c.opts.Chinese
}

// A host is one site: its name, language and template, built from the seed
// and the host's rank alone.
type host struct {
	rank     int64
	zh       bool
	name     string // the URL's host
	site     string // the name the pages show
	urlStyle int
	sections []string // URL path segments
	authors  []string
	topic    topic // words the site's articles share

	// The template, in the order a page is written; see (*Crawl).write.
	afterTitle []byte // rest of <head>, <body>, header and navigation
	cookie     []byte // the cookie notice ("" when the site shows none)
	cookieTop  bool
	mainOpen   []byte
	metaOpen   []byte
	mainClose  []byte
	relOpen    []byte
	relItems   [][]byte // the related-articles list draws from these
	relClose   []byte
	sidebar    []byte
	footer     []byte
	tail       []byte
	share      []byte
	adClass    string
}

// hostCache keeps built hosts: the first half of its slots belong to the
// most frequent ranks, the rest are shared by the others (direct mapped).
type hostCache struct {
	slots []*host
	fixed int
}

func (hc *hostCache) slot(k int64) int {
	if k <= int64(hc.fixed) {
		return int(k - 1)
	}
	return hc.fixed + int(mix64(uint64(k))%uint64(len(hc.slots)-hc.fixed))
}

func (c *Crawl) host(k int64) *host {
	s := c.hosts.slot(k)
	if h := c.hosts.slots[s]; h != nil && h.rank == k {
		return h
	}
	h := c.buildHost(k)
	c.hosts.slots[s] = h
	return h
}

// el opens an element that is semantic (tag) on some hosts and a div with
// a generic class, or no class at all, on others.
type el struct{ open, close string }

func element(r *rng, tag, semanticClass string) el {
	switch x := r.intn(10); {
	case x < 5:
		if semanticClass != "" && r.intn(2) == 0 {
			return el{"<" + tag + ` class="` + semanticClass + `">`, "</" + tag + ">"}
		}
		return el{"<" + tag + ">", "</" + tag + ">"}
	case x < 8:
		return el{`<div class="` + pick(r, genericClasses) + " " + pick(r, genericClasses) + `">`, "</div>"}
	default:
		return el{"<div>", "</div>"}
	}
}

func (c *Crawl) lang(zh bool) (*lang, *model) {
	if zh {
		return &chinese, c.zh
	}
	return &english, c.en
}

// phrase writes n words of the model with no sentence end, for a title or
// a link.
func phrase(m *model, r *rng, t *topic, n int, capital bool) []byte {
	w := writer{m: m, start: capital, prev: -1}
	for w.words < n {
		a, b := m.nextWord(r, t, w.prev)
		w.prev = a
		w.word(a)
		if b >= 0 {
			w.prev = b
			w.word(b)
		}
	}
	return w.buf
}

// sentences writes n sentences of the model.
func sentences(m *model, r *rng, t *topic, n int) []byte {
	w := writer{m: m, start: true, prev: -1}
	for range n {
		if len(w.buf) > 0 && !m.zh {
			w.buf = append(w.buf, ' ')
			w.start = true
		}
		w.sentence(r, t, r.between(8, 18), edit{})
	}
	return w.buf
}

func (c *Crawl) buildHost(k int64) *host {
	r := stream(c.opts.Seed, streamHost, uint64(k))
	h := &host{rank: k, zh: r.float() < c.opts.Chinese}
	l, m := c.lang(h.zh)
	id := strconv.FormatInt(k, 36)
	if h.zh {
		a, b := pick(&r, l.syllables), pick(&r, l.syllables)
		h.name = pick(&r, l.subs) + a + b + id + pick(&r, l.tlds)
		h.site = string(phrase(m, &r, &topic{}, r.between(2, 4), false)) + pick(&r, []string{"网", "在线", "资讯", "之家", "新闻网", "论坛"})
	} else {
		a, b := m.words[r.between(30, len(m.words)-1)], m.words[r.between(30, len(m.words)-1)]
		h.name = pick(&r, l.subs) + a + "-" + b + id + pick(&r, l.tlds)
		h.site = string(phrase(m, &r, &topic{}, r.between(1, 3), true)) + pick(&r, []string{"", " News", " Daily", " Online", " Hub", " Journal", " Times", " Blog", " Review"})
	}
	h.urlStyle = r.intn(5)
	h.topic = m.topic(&r, 8)
	nsec := r.between(6, 14)
	labels := make([]string, nsec)
	for i := range labels {
		labels[i] = pick(&r, l.sections)
		h.sections = append(h.sections, "s"+strconv.Itoa(i))
	}
	for range r.between(3, 8) {
		h.authors = append(h.authors, pick(&r, l.names))
	}
	tr := &h.topic
	b := make([]byte, 0, 8<<10)
	ap := func(s ...string) {
		for _, x := range s {
			b = append(b, x...)
		}
	}
	cut := func() []byte { x := append([]byte(nil), b...); b = b[:0]; return x }
	analytics := pick(&r, scripts)
	code := strconv.FormatUint(r.next()&0xffffffff, 36)

	// <head>, header and navigation.
	ap(" | ", h.site, `</title><meta name="viewport" content="width=device-width, initial-scale=1">`)
	ap(`<link rel="stylesheet" href="/static/`, pick(&r, genericClasses), `.css?v=`, strconv.Itoa(r.intn(100)), `">`)
	ap(fmt.Sprintf(analytics, code, code), `</head><body class="`, pick(&r, genericClasses), `">`)
	header := element(&r, "header", "site-header")
	nav := element(&r, "nav", "menu")
	ap(header.open, `<div class="logo"><a href="/">`, h.site, `</a></div>`)
	if r.intn(2) == 0 {
		ap(`<p class="tagline">`, string(phrase(m, &r, tr, r.between(4, 9), true)), `</p>`)
	}
	ap(nav.open, "<ul>")
	for i, s := range labels {
		ap(`<li><a href="/`, h.sections[i], `/">`, s, `</a></li>`)
	}
	ap("</ul>", nav.close, `<form action="/search"><input name="q" placeholder="Search"><button>`, map[bool]string{false: "Search", true: "搜索"}[h.zh], `</button></form>`, header.close)
	if r.intn(3) == 0 { // breadcrumbs
		ap(`<div class="crumbs"><a href="/">`, labels[0], `</a> › <a href="/`, h.sections[1], `/">`, labels[1], `</a></div>`)
	}
	h.afterTitle = cut()

	// The cookie notice, common wording shared by many hosts.
	if r.intn(10) < 7 {
		h.cookie = c.pool(h.zh).cookies[r.intn(len(c.pool(h.zh).cookies))]
		h.cookieTop = r.intn(2) == 0
	}

	main := element(&r, "article", "post")
	ap(`<div class="`, pick(&r, genericClasses), `">`, main.open)
	h.mainOpen = cut()
	ap(`<p class="`, pick(&r, []string{"byline", "meta", "info", "post-meta", "date"}), `">`)
	h.metaOpen = cut()
	h.share = c.pool(h.zh).shares[r.intn(len(c.pool(h.zh).shares))]
	ap(main.close)
	h.mainClose = cut()

	// Related articles: a heading and a list the pages pick from.
	rel := element(&r, "section", "related")
	ap(rel.open, "<h3>", pick(&r, l.related), "</h3><ul>")
	h.relOpen = cut()
	for range r.between(10, 20) {
		ap(`<li><a href="/`, pick(&r, h.sections), "/", strconv.Itoa(r.intn(1e6)), `">`, string(phrase(m, &r, tr, r.between(4, 10), true)), "</a></li>")
		h.relItems = append(h.relItems, cut())
	}
	ap("</ul>", rel.close)
	h.relClose = cut()

	// The sidebar: lists of links.
	aside := element(&r, "aside", "sidebar")
	ap(aside.open)
	for range r.between(2, 4) {
		box := element(&r, "section", "widget")
		ap(box.open, "<h3>", pick(&r, l.widgets), "</h3><ul>")
		for range r.between(4, 9) {
			ap(`<li><a href="/`, pick(&r, h.sections), "/", strconv.Itoa(r.intn(1e6)), `">`, string(phrase(m, &r, tr, r.between(3, 9), true)), "</a></li>")
		}
		ap("</ul>", box.close)
	}
	if r.intn(2) == 0 {
		ap(`<div class="`, pick(&r, genericClasses), `"><p>`, string(sentences(m, &r, tr, r.between(2, 4))), "</p></div>")
	}
	ap(aside.close)
	h.sidebar = cut()

	// The footer: links, the licence, the theme's credit.
	foot := element(&r, "footer", "site-footer")
	ap(foot.open, "<ul>")
	for range r.between(4, 9) {
		ap(`<li><a href="/p/`, strconv.Itoa(r.intn(100)), `">`, pick(&r, l.footLinks), "</a></li>")
	}
	ap("</ul><p>", fmt.Sprintf(pick(&r, l.licences), h.site), "</p>")
	if r.intn(2) == 0 {
		ap("<p>", string(sentences(m, &r, tr, r.between(1, 3))), "</p>")
	}
	ap(string(c.pool(h.zh).themes[r.intn(len(c.pool(h.zh).themes))]), foot.close)
	h.footer = cut()
	ap(`<script src="/static/app.js?v=`, strconv.Itoa(r.intn(1000)), `"></script></body></html>`)
	h.tail = cut()
	h.adClass = pick(&r, []string{"ad", "ad-slot", "adsbygoogle", "sponsor", "banner", "promo", pick(&r, genericClasses)})
	return h
}

// A pool is the boilerplate many hosts share, in one language: cookie
// notices, theme credits, share buttons, ads and newsletter boxes.
type pool struct {
	cookies, themes, shares, ads, newsletters [][]byte
}

func (c *Crawl) pool(zh bool) *pool {
	if zh {
		return &c.pools[1]
	}
	return &c.pools[0]
}

func buildPool(seed int64, l *lang, m *model, which uint64) pool {
	r := stream(seed, streamPool, which)
	var p pool
	t := m.topic(&r, 20)
	for range 8 {
		p.cookies = append(p.cookies, []byte(`<div class="`+pick(&r, []string{"cookie", "cookie-banner", "consent", "gdpr", "notice", pick(&r, genericClasses)})+`"><p>`+pick(&r, l.cookies)+`</p><button>`+pick(&r, l.accept)+`</button></div>`))
	}
	for range 12 {
		cms := pick(&r, l.cms)
		theme := string(phrase(m, &r, &t, r.between(1, 2), true))
		p.themes = append(p.themes, []byte(`<div class="`+pick(&r, []string{"credits", "powered", "copyright", pick(&r, genericClasses)})+`"><p>Powered by <a href="https://`+cms+`.example/">`+cms+`</a> · Theme `+theme+` · `+string(sentences(m, &r, &t, r.between(1, 2)))+`</p></div>`))
	}
	for _, s := range l.share {
		p.shares = append(p.shares, []byte(`<div class="share">`+s+`</div>`))
	}
	for range 24 {
		ad := `"><span>` + pick(&r, l.adLabel) + `</span><a href="https://ads.example.net/c?z=` + strconv.Itoa(r.intn(1e5)) + `">` + string(phrase(m, &r, &t, r.between(5, 10), true)) + `</a><p>` + string(sentences(m, &r, &t, r.between(1, 2))) + `</p></div>`
		p.ads = append(p.ads, []byte(ad))
	}
	for _, s := range l.newsletter {
		p.newsletters = append(p.newsletters, []byte(`<div class="newsletter"><p>`+s+`</p><form><input type="email"><button>OK</button></form></div>`))
	}
	return p
}
