package cluster

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// corpusRoot returns the folder of the labelled corpora: $NEARDUP_CORPUS, or
// shared/corpus beside the repository (../shared/corpus from its root).
func corpusRoot() string {
	if root := os.Getenv("NEARDUP_CORPUS"); root != "" {
		return root
	}
	return filepath.Join("..", "..", "shared", "corpus")
}

// labelled is one page of a labelled corpus, preprocessed.
type labelled struct {
	doc   *neardup.Document
	group string
	dup   bool // an earlier page has the same group
}

// loadCorpus reads dir/manifest.tsv and preprocesses its pages (in parallel)
// with the zero Pipeline, in manifest order; it skips tb when dir has no
// manifest. Pages the pipeline rejects are left out (as evaluate counts
// them undecided); a page is a duplicate iff an earlier page of the
// manifest has its group.
func loadCorpus(tb testing.TB, dir string) []labelled {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		tb.Skipf("corpus not found: %v (set NEARDUP_CORPUS)", err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if c := strings.Split(sc.Text(), "\t"); len(c) >= 4 && c[0] != "id" {
			rows = append(rows, c)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	var pipe preprocess.Pipeline
	docs := make([]*neardup.Document, len(rows))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				raw, err := readPage(filepath.Join(dir, filepath.FromSlash(rows[i][3])))
				if err != nil {
					tb.Error(err)
					continue
				}
				if d, err := neardup.NewDocument(&pipe, rows[i][0], rows[i][1], raw); err == nil {
					docs[i] = d
				}
			}
		})
	}
	for i := range rows {
		next <- i
	}
	close(next)
	wg.Wait()
	seen := map[string]bool{}
	var out []labelled
	for i, d := range docs {
		g := rows[i][2]
		if d != nil {
			out = append(out, labelled{d, g, seen[g]})
		}
		seen[g] = true
	}
	return out
}

func readPage(name string) ([]byte, error) {
	raw, err := os.ReadFile(name)
	if err != nil || !strings.HasSuffix(name, ".gz") {
		return raw, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// confusion is a streaming evaluation's counts, as examples/evaluate counts
// them: a flagged duplicate matched to a page of another group is a wrong
// match, which counts against precision and recall both.
type confusion struct{ tp, fp, tn, fn, wrong, undecided int }

func (c confusion) p() float64 { return ratio(c.tp, c.tp+c.fp+c.wrong) }
func (c confusion) r() float64 { return ratio(c.tp, c.tp+c.fn+c.wrong) }
func (c confusion) f1() float64 {
	if c.p()+c.r() == 0 {
		return 0
	}
	return 2 * c.p() * c.r() / (c.p() + c.r())
}
func (c confusion) String() string {
	return fmt.Sprintf("%.3f / %.3f / %.3f", c.p(), c.r(), c.f1())
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// stream offers the pages in order to det's MatchOrAdd, as
// examples/evaluate does, and returns the counts and, per page, the ID of
// its best match ("" when it was not flagged).
func stream(tb testing.TB, det neardup.MatchAdder, pages []labelled) (confusion, []string) {
	var c confusion
	group := make(map[string]string, len(pages))
	flagged := make([]string, len(pages))
	for i, p := range pages {
		group[p.doc.ID] = p.group
		ms, _, err := det.MatchOrAdd(p.doc)
		if err != nil {
			c.undecided++
		}
		if len(ms) > 0 {
			flagged[i] = ms[0].ID
		}
		switch {
		case len(ms) > 0 && p.dup && group[ms[0].ID] == p.group:
			c.tp++
		case len(ms) > 0 && p.dup:
			c.wrong++
		case len(ms) > 0:
			c.fp++
		case p.dup:
			c.fn++
		default:
			c.tn++
		}
	}
	return c, flagged
}

// TestCorpusSweep streams the labelled corpora through the clustered
// cascade over a grid of options, against the cascade alone, and logs
// P / R / F1 with the number of fits and the largest cluster. Set
// NEARDUP_CLUSTER_SWEEP to the grid, for example
// "k=8,16 f=5,10 m=-1,0,50 fit=256,512 inc=0,1 p=1,2 init=0,1 sim=0,1" (m is
// ModeKeywords: 0 the default, -1 f, the paper's; init 1 is Huang; sim 1 is
// Matching; a missing axis takes the default). The package documentation's "Defaults" table
// comes from it.
func TestCorpusSweep(t *testing.T) {
	spec := os.Getenv("NEARDUP_CLUSTER_SWEEP")
	if spec == "" {
		t.Skip("set NEARDUP_CLUSTER_SWEEP to a grid to sweep the corpora")
	}
	grid := map[string][]int{"k": {DefaultK}, "f": {DefaultKeywords}, "m": {0}, "fit": {DefaultFitAt}, "inc": {0}, "p": {1}, "init": {0}, "sim": {0}}
	for _, axis := range strings.Fields(spec) {
		name, vals, _ := strings.Cut(axis, "=")
		grid[name] = nil
		for _, v := range strings.Split(vals, ",") {
			var x int
			fmt.Sscan(v, &x)
			grid[name] = append(grid[name], x)
		}
	}
	corpora := []string{"en-dev", "zh-dev", "en-dev-hard", "zh-dev-hard"}
	if c := os.Getenv("NEARDUP_CLUSTER_CORPORA"); c != "" {
		corpora = strings.Split(c, ",")
	}
	for _, name := range corpora {
		pages := loadCorpus(t, filepath.Join(corpusRoot(), name))
		plain, _ := newCascade(0)
		c, _ := stream(t, plain.(neardup.MatchAdder), pages)
		t.Logf("%s: %d pages; cascade alone %v", name, len(pages), c)
		for _, k := range grid["k"] {
			for _, f := range grid["f"] {
				for _, m := range grid["m"] {
					for _, fitAt := range grid["fit"] {
						for _, inc := range grid["inc"] {
							for _, in := range grid["init"] {
								for _, sim := range grid["sim"] {
									line := fmt.Sprintf("%s k=%2d f=%2d m=%3d fit=%d inc=%d init=%d sim=%d", name, k, f, m, fitAt, inc, in, sim)
									for _, p := range grid["p"] {
										o := KModesOptions{K: k, Keywords: f, ModeKeywords: m, Probes: p, Init: Init(in), Similarity: Similarity(sim), Seed: 1}
										if m < 0 {
											o.ModeKeywords = f // the paper's modes
										}
										det, err := New(Options{NewDetector: cascades, KModes: o, FitAt: fitAt, Incremental: inc == 1})
										if err != nil {
											t.Fatal(err)
										}
										c, _ := stream(t, det, pages)
										st := det.Stats()
										line += fmt.Sprintf("  p=%d %v (fits %d, gens %d, mean probed %.0f of %d)", p, c, st.Fits, len(st.Sizes), float64(p)*st.Compared(), st.Documents)
									}
									t.Log(line)
								}
							}
						}
					}
				}
			}
		}
	}
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// TestCorpusClaims measures the paper's accuracy claim (Fig. 7: precision
// and recall with and without clustering) on the labelled corpora, and
// where the clustered cascade loses a duplicate that the cascade alone
// finds, whether its original was kept in another cluster and at which rank
// of the page's nearest clusters it was (the p that would have found it).
// Set NEARDUP_CLUSTER_CLAIMS=1; docs/cluster.md has its tables.
func TestCorpusClaims(t *testing.T) {
	if os.Getenv("NEARDUP_CLUSTER_CLAIMS") == "" {
		t.Skip("set NEARDUP_CLUSTER_CLAIMS=1 to measure on the corpora")
	}
	for _, name := range []string{"en-dev", "zh-dev", "en-dev-hard", "zh-dev-hard"} {
		pages := loadCorpus(t, filepath.Join(corpusRoot(), name))
		plain, _ := newCascade(0)
		c0, _ := stream(t, plain.(neardup.MatchAdder), pages)
		line := fmt.Sprintf("%-12s cascade %v", name, c0)
		for _, p := range []int{1, 2, 3} {
			det, _ := New(Options{NewDetector: cascades, KModes: KModesOptions{Probes: p}})
			c, _ := stream(t, det, pages)
			st := det.Stats()
			line += fmt.Sprintf(" | p=%d %v (compared with %.0f%% of %d, %d generations)", p, c, 100*float64(p)*st.Compared()/float64(st.Documents), st.Documents, len(st.Sizes))
		}
		t.Log(line)

		// Side by side, page by page: the cascade alone and the clustered
		// cascade with p = 1 see the same pages in the same order.
		plain, _ = newCascade(0)
		det, _ := New(Options{})
		s := det.get()
		lost, elsewhere, notKept := 0, 0, 0
		atRank := map[int]int{}
		group := map[string]string{}
		for _, pg := range pages {
			group[pg.doc.ID] = pg.group
			ms0, _, _ := plain.(neardup.MatchAdder).MatchOrAdd(pg.doc)
			var rank []int
			var home Place
			kept := false
			if len(ms0) > 0 {
				words, _ := Keywords(pg.doc, s.o.KModes.Keywords)
				s.mu.RLock()
				if k, ok := s.kept[ms0[0].ID]; ok {
					home, kept = k.at, true
					if md := s.gens[home.Generation].md; md != nil {
						rank = md.nearestP(s.words.lookupItem(words), len(md.centres))
					}
				}
				s.mu.RUnlock()
			}
			ms, _, _ := det.MatchOrAdd(pg.doc)
			if !pg.dup || len(ms0) == 0 || group[ms0[0].ID] != pg.group || len(ms) > 0 {
				continue
			}
			lost++ // a duplicate the cascade alone finds and the clusters miss
			switch {
			case !kept:
				notKept++
			case rank != nil && rank[0] != home.Cluster:
				elsewhere++
				atRank[1+indexOf(rank, home.Cluster)]++
			}
		}
		t.Logf("%-12s p=1 loses %d duplicates the cascade alone finds: %d had their original in another cluster "+
			"(at rank %v of the page's nearest clusters of that generation), %d had no original kept by the clustered cascade (it had kept or dropped other pages)",
			name, lost, elsewhere, atRank, notKept)
	}
}

func indexOf(xs []int, x int) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// TestCorpusMemory measures, on en-dev, the heap a preprocessed page takes
// (what a Detector holds per page until its first fit) and the heap per kept
// page of the clustered cascade at its defaults against the cascade alone.
// Set NEARDUP_CLUSTER_CLAIMS=1.
func TestCorpusMemory(t *testing.T) {
	if os.Getenv("NEARDUP_CLUSTER_CLAIMS") == "" {
		t.Skip("set NEARDUP_CLUSTER_CLAIMS=1 to measure on the corpora")
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	h0 := heap()
	pages := loadCorpus(t, filepath.Join(corpusRoot(), "en-dev"))
	h1 := heap()
	raw := 0
	for _, p := range pages {
		raw += len(p.doc.Raw)
	}
	t.Logf("en-dev: %d pages, %.1f KB of raw page each, %.1f KB per preprocessed Document (raw included)",
		len(pages), float64(raw)/float64(len(pages))/1024, float64(h1-h0)/float64(len(pages))/1024)
	for _, p := range pages { // features computed before measuring
		Keywords(p.doc, DefaultKeywords)
		plain, _ := newCascade(0)
		plain.Match(p.doc)
	}
	for _, clustered := range []bool{false, true} {
		h0 := heap()
		var det neardup.Detector
		if clustered {
			det = new(Detector) // the defaults: pages are held until the first fit only
		} else {
			det, _ = newCascade(len(pages))
		}
		for _, p := range pages {
			det.Add(p.doc)
		}
		h1 := heap()
		t.Logf("clustered %v: %.0f bytes per kept page (the ID strings are the Documents')", clustered, float64(h1-h0)/float64(len(pages)))
		if d, ok := det.(*Detector); ok && d.Stats().Retained != 0 {
			t.Errorf("%d pages held after the fits", d.Stats().Retained)
		}
		runtime.KeepAlive(det)
	}
}
