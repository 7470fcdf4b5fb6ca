package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// method builds a fresh detector for one evaluation run.
type method struct {
	name string
	doc  string
	new  func() (neardup.Detector, error)
	// newFor, when set, is used instead of new: a method that learns from
	// the corpus (ssm-partitioned's domains) builds its detector from the
	// pages about to be streamed, a prefix of the manifest.
	newFor func(pages source) (neardup.Detector, error)
	// sweep, when set, names the method's main threshold, the values -sweep
	// tries, and builds a detector at one of them (other flags as given).
	sweep *sweep
	// fleet, when set, is used instead of new: a method whose repository is
	// shared by processes (a server's). Each call returns a detector on a
	// client of its own over one fresh repository; evaluate offers the pages
	// through fleetClients of them at once, each taking the pages of its
	// hosts in corpus order, as the fetchers of a crawler fleet would.
	fleet func() (func() (neardup.Detector, error), error)
}

// fleetClients is the number of clients a fleet method is run through.
const fleetClients = 4

// sweep is a method's main threshold for -sweep.
type sweep struct {
	param  string
	values func() []float64 // read after the flags are parsed
	at     func(v float64) (neardup.Detector, error)
}

// fixed returns a values function for a fixed list.
func fixed(vs ...float64) func() []float64 { return func() []float64 { return vs } }

// A family registers the flags of one package's methods on fs and returns the
// methods, whose constructors read the flags when they are called. Each
// family lives in its own file (method_<package>.go); every flag's default is
// the package's own default constant, so that a run without flags measures
// the library as shipped.
type family func(fs *flag.FlagSet) []method

// families lists every family, in the order -methods lists their methods.
func families() []family {
	return append([]family{minhashMethods, kumarMethods, shingleMethods, clusterMethods, editdistMethods, ssmMethods}, optionalFamilies()...)
}

// methodSet is the methods of every family, registered on one FlagSet.
type methodSet []method

func newMethodSet(fs *flag.FlagSet) methodSet {
	var ms methodSet
	for _, f := range families() {
		ms = append(ms, f(fs)...)
	}
	return ms
}

func (ms methodSet) names() []string {
	var names []string
	for _, m := range ms {
		names = append(names, m.name)
	}
	return names
}

func (ms methodSet) lookup(name string) (method, bool) {
	i := slices.IndexFunc(ms, func(m method) bool { return m.name == name })
	if i < 0 {
		return method{}, false
	}
	return ms[i], true
}

// evaluate streams pages through a fresh detector of m, in order.
// build returns a fresh detector of m for a run over pages.
func (m method) build(pages source) (neardup.Detector, error) {
	if m.newFor != nil {
		return m.newFor(pages)
	}
	return m.new()
}

func evaluate(m method, pages source, explain bool) (result, error) {
	if m.fleet != nil {
		return streamFleet(m, pages)
	}
	det, err := m.build(pages)
	if err != nil {
		return result{}, err
	}
	return stream(m.name, det, pages, explain), nil
}

// stream offers each page to det in order and counts the outcomes: a page
// is flagged when det matches it to a kept page (and then not kept); a
// flagged duplicate matched to a page of another group is a wrong match.
func stream(name string, det neardup.Detector, pages source, explain bool) result {
	var pipe preprocess.Pipeline
	group := make(map[string]string)
	r := result{method: name}
	start := time.Now()
	kept := make(map[string][]string) // group -> kept pages, with explain
	for p := range pages.all {
		group[p.id] = p.group
		matched, dist, err := step(det, &pipe, p)
		matched = r.own(p, matched, err)
		r.tally(p, matched, group[matched], err)
		switch {
		case !explain || matched != "" && p.dup && group[matched] == p.group:
		case matched != "" && p.dup:
			r.errs = append(r.errs, fmt.Sprintf("wrong\t%s\t%s\t%.3f\t%s\tgroup %s, kept %s", p.id, matched, dist, distances(det, &pipe, p, []string{matched}), p.group, strings.Join(kept[p.group], " ")))
		case matched != "":
			r.errs = append(r.errs, fmt.Sprintf("fp\t%s\t%s\t%.3f\t%s", p.id, matched, dist, distances(det, &pipe, p, []string{matched})))
		case p.dup:
			r.errs = append(r.errs, fmt.Sprintf("fn\t%s\t%s\t%s", p.id, strings.Join(kept[p.group], " "), distances(det, &pipe, p, kept[p.group])))
		}
		if explain && matched == "" && err == nil {
			kept[p.group] = append(kept[p.group], p.id)
		}
	}
	r.pagesPerSec = float64(pages.n) / time.Since(start).Seconds()
	return r
}

// tally counts the outcome of offering p: matched to the kept page matched
// (of group mg), or kept when matched is "".
func (r *result) tally(p page, matched, mg string, err error) {
	if err != nil {
		r.errors++
		if r.firstErr == nil {
			r.firstErr = fmt.Errorf("page %s: %w", p.id, err)
		}
	}
	switch {
	case matched != "" && p.dup && mg == p.group:
		r.tp++
	case matched != "" && p.dup:
		r.wrong++
	case matched != "":
		r.fp++
	case p.dup:
		r.fn++
	default:
		r.tn++
	}
}

// streamFleet offers the pages through fleetClients detectors of a fleet
// method at once, each client taking the pages of its hosts (by a hash of
// the host) in corpus order, and counts the outcomes as stream does, in the
// order the offers finished: pages of one group offered by two clients may
// finish in the other order than the corpus's, and a page is a duplicate
// when a page of its group finished before it.
func streamFleet(m method, pages source) (result, error) {
	newClient, err := m.fleet()
	if err != nil {
		return result{}, err
	}
	type job struct {
		i int
		p page
	}
	type outcome struct {
		matched string
		err     error
		seq     int64 // the order the offer finished in
	}
	var (
		jobs  [fleetClients]chan job
		outs  = make([]outcome, pages.n)
		metas = make([]page, 0, pages.n)
		wg    sync.WaitGroup
		done  atomic.Int64
	)
	for w := range jobs {
		det, err := newClient()
		if err != nil {
			return result{}, err
		}
		jobs[w] = make(chan job, 64)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var pipe preprocess.Pipeline
			for j := range jobs[w] {
				matched, _, err := step(det, &pipe, j.p)
				outs[j.i] = outcome{matched, err, done.Add(1)}
			}
		}()
	}
	start := time.Now()
	for p := range pages.all {
		host := p.url
		if u, err := url.Parse(p.url); err == nil {
			host = u.Hostname()
		}
		jobs[xxhash.Sum64String(host)%fleetClients] <- job{len(metas), p}
		p.raw = nil
		metas = append(metas, p)
	}
	for _, ch := range jobs {
		close(ch)
	}
	wg.Wait()
	r := result{method: m.name, pagesPerSec: float64(len(metas)) / time.Since(start).Seconds()}
	group := make(map[string]string, len(metas))
	for _, p := range metas {
		group[p.id] = p.group
	}
	order := make([]int, len(metas))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(outs[a].seq, outs[b].seq) })
	seen := make(map[string]bool)
	for _, i := range order {
		p, o := metas[i], outs[i]
		p.dup = seen[p.group]
		seen[p.group] = true
		matched := r.own(p, o.matched, o.err)
		r.tally(p, matched, group[matched], o.err)
	}
	return r, nil
}

// step preprocesses p and offers it to det: it returns the kept page det
// matched p to, or "" when p is new (and kept).
func step(det neardup.Detector, pipe *preprocess.Pipeline, p page) (string, float64, error) {
	d, err := neardup.NewDocument(pipe, p.id, p.url, "", p.raw)
	if err != nil {
		return "", 0, err
	}
	var ms []neardup.Match
	if ma, ok := det.(neardup.MatchAdder); ok {
		ms, _, err = ma.MatchOrAdd(context.Background(), d)
	} else if ms, err = det.Match(context.Background(), d); err == nil && len(ms) == 0 {
		err = det.Add(context.Background(), d)
	}
	if len(ms) > 0 {
		return ms[0].ID, ms[0].Score, err
	}
	return "", 0, err
}

// explainer is a detector that can say how far a page is from a kept one
// whatever the verdict (minhash.Detector).
type explainer interface {
	Explain(d *neardup.Document, id string) (minhash.Explanation, error)
}

// distances says how far p is from each of the kept pages ids, when det can
// tell.
func distances(det neardup.Detector, pipe *preprocess.Pipeline, p page, ids []string) string {
	ex, ok := det.(explainer)
	if !ok {
		return ""
	}
	d, err := neardup.NewDocument(pipe, p.id, p.url, "", p.raw)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, id := range ids {
		e, err := ex.Explain(d, id)
		s := e.String()
		if err != nil {
			s = err.Error()
		}
		out = append(out, id+": "+s)
	}
	return strings.Join(out, "; ")
}
