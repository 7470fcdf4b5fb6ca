package main

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"
)

// The demonstration site: five original articles on one template, a mirror of
// each on another site's template, and copies that differ only in a timestamp
// and an advertisement, or in a revision of their text (a correction added,
// a sentence cut: content words the detector sees). A crawl should keep the five
// originals (distinct pages on one template) and drop every copy.

type article struct {
	slug, title string
	paras       []string
}

var articles = []article{
	{"lighthouses", "How Lighthouse Lenses Changed Coastal Navigation", []string{
		"Before the nineteenth century most lighthouses burned open fires or oil lamps backed by polished metal reflectors. Much of that light escaped upward or was absorbed by the reflector, and ships often saw the beam only when they were already dangerously close to the rocks.",
		"Augustin Fresnel, a French physicist studying the wave theory of light, proposed a lens built from concentric rings of glass prisms. Each ring bent the light by a slightly different angle so that the whole assembly gathered the lamp's glow into a single horizontal beam. The lens was far thinner and lighter than a solid glass lens of the same focal length.",
		"The first Fresnel lens was installed in the Cordouan lighthouse in 1823. Sailors reported that its beam could be seen more than twenty miles out to sea. Within a few decades lenses were graded by order, from the enormous first order lenses of major coastal lights to small sixth order lenses for harbours and rivers.",
		"Keepers learned to recognise each station by its characteristic flash. Rotating lenses and clockwork mechanisms produced patterns of long and short flashes, and printed light lists allowed a navigator to identify a coast at night simply by timing the intervals between them.",
		"The lenses demanded constant care. Every morning the keeper drew linen curtains around the lantern so that the sun could not be focused into a fire, trimmed the wicks, polished the brass and wiped salt and soot from hundreds of glass prisms. Inspectors arrived without warning and reported any smudge.",
		"Fuel changed several times over the century. Whale oil gave way to colza oil pressed from rapeseed, then to lard oil and kerosene, and finally to incandescent oil vapour lamps whose mantles glowed far brighter than any flame. Each change forced keepers to learn new routines and new dangers.",
		"Electric lamps and automatic switching eventually made resident keepers unnecessary. Many of the great glass lenses were removed and placed in museums, replaced by compact rotating beacons and light emitting diodes that draw little power and need a visit only a few times a year.",
	}},
	{"sourdough", "The Microbiology of a Sourdough Starter", []string{
		"A sourdough starter is a stable community of wild yeasts and lactic acid bacteria living in a paste of flour and water. The yeasts produce carbon dioxide that leavens the bread, while the bacteria produce lactic and acetic acids that give the loaf its sour flavour and help it keep longer.",
		"When a baker mixes fresh flour and water, many species compete at first. Over about a week of regular feeding the mixture becomes more acidic, and only organisms that tolerate low pH survive. The result is surprisingly consistent: a handful of bacterial species, most often Fructilactobacillus sanfranciscensis, together with one or two yeasts.",
		"Temperature changes the balance between the two partners. A warm starter ferments quickly and favours lactic acid, which tastes mild and creamy. A cool starter rises more slowly and accumulates acetic acid, which tastes sharp and vinegary. Bakers adjust feeding schedules and hydration to steer the flavour they want.",
		"Contrary to popular belief, the local air contributes little to a starter's population. Studies that swapped flour and bakers between cities found that the flour itself and the hands of the baker shaped the community far more than the city where the bread was made.",
		"Maintaining a starter is mostly a matter of routine. The baker discards part of the culture and feeds the rest with fresh flour and water, which dilutes the acids and supplies new sugars. A starter kept in the refrigerator needs feeding about once a week and recovers within a day or two at room temperature.",
		"The long fermentation changes the dough as well as the flavour. Acids weaken gluten slightly and activate enzymes that break down some of the starch and protein, which many people find makes the bread easier to digest. The acidity also slows the growth of mould, so sourdough loaves stay fresh for several days.",
		"Home bakers often give their starters names and pass them down through families. Some bakeries claim cultures more than a century old, although the community inside them has almost certainly changed many times as flour, climate and handling varied over the years.",
	}},
	{"compilers", "Why Compilers Use Static Single Assignment Form", []string{
		"Static single assignment form is an intermediate representation in which every variable is assigned exactly once. When a program assigns to the same variable several times, the compiler gives each assignment a fresh name, and where control flow merges it inserts a phi function that selects the right version.",
		"The payoff is that many analyses become simple. Because each name has one definition, the compiler can follow a use directly to the instruction that produced it. Constant propagation, dead code elimination and global value numbering all become faster and easier to prove correct.",
		"Building the form efficiently requires dominance frontiers, a concept introduced by Cytron and his colleagues in the late nineteen eighties. A phi function is needed exactly at the dominance frontier of every block that assigns the variable, which can be computed in nearly linear time for real programs.",
		"Modern compilers such as LLVM and the Go toolchain keep their optimisation passes in this form and translate out of it only when allocating registers. Leaving the form requires inserting copies on control flow edges, a step that must be done carefully to avoid the lost copy and swap problems.",
		"Not every value fits the model neatly. Memory locations can be changed through pointers, so most compilers keep only local scalar variables in single assignment form and treat loads and stores separately. A pass called memory to register promotion moves variables out of memory whenever their address never escapes.",
		"Loops are where the form shows its strength. Induction variables become chains of phi functions whose pattern is easy to recognise, and the compiler can then strengthen multiplications into additions, hoist invariant computations out of the loop body, and vectorise the remaining work.",
		"Research continues on variants of the idea. Gated forms record the conditions under which each value is chosen, memory forms extend the naming scheme to the heap, and some functional language compilers use continuation passing style, which turns out to be closely related to single assignment form.",
	}},
	{"glaciers", "Reading Climate History in Glacier Ice", []string{
		"Snow that falls on a glacier's high plateau is buried year after year and slowly compressed into ice. Tiny bubbles of air trapped between the grains are sealed off as the firn turns to solid ice, preserving samples of the ancient atmosphere for hundreds of thousands of years.",
		"Scientists drill cores several kilometres long from Antarctica and Greenland. By measuring the ratio of heavy to light oxygen isotopes in each layer they estimate the temperature at the time the snow fell, and by melting the ice in a vacuum they measure the carbon dioxide and methane of the trapped air.",
		"Annual layers can be counted near the surface much like tree rings, using seasonal changes in dust and chemistry. Deeper down the layers thin out under the weight above them, and researchers date the ice with models of glacier flow tied to volcanic ash layers of known age.",
		"The records show that carbon dioxide and temperature rose and fell together through the ice age cycles, and that today's concentrations are far above anything recorded in the eight hundred thousand years the deepest cores cover.",
		"Drilling a deep core takes several field seasons. Crews live in camps on the ice sheet, where summer temperatures stay well below freezing, and they raise the core in sections a few metres long. Each section is logged, cut and packed into insulated boxes that are flown out and kept frozen all the way to the laboratory.",
		"The ice also records events that lasted only a few years. Layers of sulphate mark large volcanic eruptions, spikes of ammonium and black carbon point to great forest fires, and traces of lead reveal the growth of Roman metal working in the atmosphere of the northern hemisphere.",
		"Researchers are now searching for ice more than a million years old, near the bottom of slowly moving parts of the Antarctic plateau. Such a core could explain why the rhythm of the ice ages changed from forty one thousand years to about one hundred thousand years in the middle of the Pleistocene.",
	}},
	{"chess-clocks", "A Short History of the Chess Clock", []string{
		"Early chess tournaments had no time limits at all, and some games lasted for days while players considered a single move. Organisers first tried sandglasses, one per player, turned over after each move, but they were hard to read and easy to dispute.",
		"The mechanical chess clock, introduced in the eighteen eighties, placed two clock faces side by side, linked so that pressing a button stopped one clock and started the other. A small flag on each face was lifted by the minute hand and fell when the hour was up, signalling that the player had lost on time.",
		"Digital clocks arrived in the nineteen seventies and made new time controls practical. The Fischer increment adds a few seconds to a player's clock after every move, so a player is never left with a hopeless position purely because the clock ran out during a long endgame.",
		"Today nearly every rated game uses an increment or a delay, and online chess has made ultra fast formats popular, in which each player has only a minute or even less for the entire game.",
		"Time pressure shapes how the game is played. Players plan to have enough minutes left for the critical moments, and a player who spends too long in the opening can be forced to play the middle game at great speed. Many famous blunders were made in the final seconds before the time control.",
		"Adjourned games were once common in long tournaments. When the session ended, a player wrote the next move on a sheet sealed in an envelope, and the game resumed the following day. Computer analysis made adjournments unfair, since players could consult engines overnight, and they disappeared in the nineteen nineties.",
		"Arbiters still settle disputes about clocks. A player who knocks the clock over, presses it with the wrong hand or forgets to press it at all may lose time or be warned, and modern regulations describe exactly what should happen when a flag falls in a position where the opponent cannot possibly checkmate.",
	}},
}

// correction is the sentence a revised page adds.
const correction = "Correction: an earlier version of this article gave a wrong date for one event; readers who wrote to the editors are thanked."

const pageTmpl = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}} - {{.Site}}</title>
<style>body{font-family:sans-serif} .ad{border:1px solid #ccc}</style>
<script>window.analytics = {page: "{{.Path}}"};</script></head>
<body>
<header><nav>{{range .Nav}}<a href="{{.Href}}">{{.Text}}</a> | {{end}}</nav></header>
<main><article><h1>{{.Title}}</h1>
{{range .Paras}}<p>{{.}}</p>
{{end}}</article></main>
{{if .Ad}}<aside class="ad">{{.Ad}}</aside>{{end}}
<footer><p>{{.Footer}}</p><p>Page generated {{.Stamp}}.</p></footer>
</body></html>`

type link struct{ Href, Text string }

type pageData struct {
	Site, Title, Path, Ad, Footer, Stamp string
	Paras                                []string
	Nav                                  []link
}

// siteHandler serves the demonstration site. now supplies the timestamps that
// the copies differ in.
func siteHandler(now func() time.Time) http.Handler {
	tmpl := template.Must(template.New("page").Parse(pageTmpl))
	nav := []link{{"/", "Home"}}
	for _, a := range articles {
		nav = append(nav, link{"/articles/" + a.slug, a.title})
	}
	mirrorNav := []link{{"/", "Home"}, {"/about", "About"}}
	for _, a := range articles {
		mirrorNav = append(mirrorNav, link{"/mirror/" + a.slug, a.title})
	}
	mux := http.NewServeMux()
	render := func(w http.ResponseWriter, d pageData) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := tmpl.Execute(w, d); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}
	find := func(slug string) (article, bool) {
		for _, a := range articles {
			if a.slug == slug {
				return a, true
			}
		}
		return article{}, false
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`<!DOCTYPE html><html><head><title>Tern Journal</title></head><body><h1>Tern Journal</h1><ul>`)
		for _, a := range articles {
			fmt.Fprintf(&b, `<li><a href="/articles/%s">%s</a> (<a href="/mirror/%s">mirror</a>, <a href="/print/%s">print</a>, <a href="/edited/%s">revised</a>)</li>`,
				a.slug, template.HTMLEscapeString(a.title), a.slug, a.slug, a.slug)
		}
		b.WriteString(`</ul></body></html>`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, b.String())
	})
	serve := func(prefix string, build func(a article, r *http.Request) pageData) {
		mux.HandleFunc("GET "+prefix+"{slug}", func(w http.ResponseWriter, r *http.Request) {
			a, ok := find(r.PathValue("slug"))
			if !ok {
				http.NotFound(w, r)
				return
			}
			render(w, build(a, r))
		})
	}
	serve("/articles/", func(a article, r *http.Request) pageData {
		return pageData{Site: "Tern Journal", Title: a.title, Path: r.URL.Path, Paras: a.paras, Nav: nav,
			Ad: "Subscribe to the Tern Journal weekly digest.", Footer: "Tern Journal, independent writing since 2009.",
			Stamp: now().Format(time.RFC1123)}
	})
	serve("/print/", func(a article, r *http.Request) pageData {
		// The same page fetched again later: another timestamp, another ad.
		return pageData{Site: "Tern Journal", Title: a.title, Path: r.URL.Path, Paras: a.paras, Nav: nav,
			Ad: "Spring sale: save on annual subscriptions this week.", Footer: "Tern Journal, independent writing since 2009.",
			Stamp: now().Add(37 * time.Hour).Format(time.RFC1123)}
	})
	serve("/edited/", func(a article, r *http.Request) pageData {
		// A revision: a correction added to one paragraph and the last
		// sentence of another cut, edits of content words that the
		// detector sees (an edit of stop words only would leave the page's
		// words, and its distance 0, as they were).
		paras := append([]string(nil), a.paras...)
		paras[2] += " " + correction
		last := len(paras) - 1
		if i := strings.LastIndex(strings.TrimSuffix(paras[last], "."), ". "); i > 0 {
			paras[last] = paras[last][:i+1]
		}
		return pageData{Site: "Tern Journal", Title: a.title, Path: r.URL.Path, Paras: paras, Nav: nav,
			Footer: "Tern Journal, independent writing since 2009.", Stamp: now().Format(time.RFC1123)}
	})
	serve("/mirror/", func(a article, r *http.Request) pageData {
		// A reprint on another site's template.
		return pageData{Site: "Open Reading", Title: a.title, Path: r.URL.Path, Paras: a.paras, Nav: mirrorNav,
			Footer: "Copied with permission for readers on slow connections.",
			Stamp:  now().Add(-3 * time.Hour).Format(time.RFC1123)}
	})
	mux.HandleFunc("GET /about", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html><head><title>About</title></head><body><h1>About this mirror</h1>
<p>This mirror copies long-form writing from independent journals so that readers with slow or expensive connections can reach it. Pages are refreshed every night. Volunteers in three countries run the servers.</p>
<p>Write to the mirror team if a page is out of date or a link is broken. We do not run advertising and we keep no logs of what readers look at.</p></body></html>`)
	})
	return mux
}
