package judge_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/corpus"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/synth"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/minhash/internal/judge"
	"github.com/neardup/neardup/preprocess"
)

// repo is a repository kept outside a Detector, as a fleet backend keeps
// one: records filed under their keys, each host's block counts and the
// theme counts, judged by a Judge against the candidates of its query keys
// (two keys in common, or one rare key).
type repo struct {
	j        *judge.Judge
	recs     map[string]*judge.Record
	ids      []string
	postings map[uint32][]string
	hosts    map[string]map[uint32]uint32
	theme    map[uint32]uint32
}

func newRepo(t *testing.T) *repo {
	j, err := judge.NewJudge(judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &repo{j: j, recs: map[string]*judge.Record{}, postings: map[uint32][]string{},
		hosts: map[string]map[uint32]uint32{}, theme: map[uint32]uint32{}}
}

func (rp *repo) template(host string) judge.Template {
	m := rp.hosts[host]
	return rp.j.TemplateOf(func(b uint32) uint32 { return m[b] }, func(b uint32) uint32 { return rp.theme[b] })
}

// matchOrAdd is MatchOrAdd over the repository.
func (rp *repo) matchOrAdd(d *neardup.Document) ([]string, bool, error) {
	r, err := rp.j.Record(d)
	if err != nil {
		return nil, false, err
	}
	t := rp.template(r.Host())
	keys := rp.j.Keys(r, t)
	var found []string
	for _, id := range rp.ids {
		if rp.recs[id].TextHash() == r.TextHash() {
			found = append(found, id)
		}
	}
	shared := map[string]int{} // a candidate's keys among the query's, a rare key twice
	var cands []string
	for _, k := range rp.j.QueryKeys(r, t) {
		ps := rp.postings[k]
		for _, id := range ps {
			if shared[id] == 0 {
				cands = append(cands, id)
			}
			shared[id]++
			if len(ps) <= judge.RareKey {
				shared[id]++
			}
		}
	}
	for _, id := range cands {
		if shared[id] < 2 || slices.Contains(found, id) {
			continue
		}
		c := rp.recs[id]
		if _, near := rp.j.Near(r, t, c, rp.template(c.Host())); near {
			found = append(found, id)
		}
	}
	if len(found) > 0 {
		return found, false, nil
	}
	rp.recs[d.ID] = r
	rp.ids = append(rp.ids, d.ID)
	for _, k := range keys {
		rp.postings[k] = append(rp.postings[k], d.ID)
	}
	m := rp.hosts[r.Host()]
	if m == nil {
		m = map[uint32]uint32{}
		rp.hosts[r.Host()] = m
	}
	for _, b := range r.Blocks() {
		m[b]++
		if m[b] == uint32(rp.j.Options().TemplatePages) {
			rp.theme[b]++
		}
	}
	return nil, true, nil
}

// A repository of Records judged by a Judge gives a Detector's verdicts:
// pages offered in turn are kept or not alike, on groups of near-duplicates
// in both scripts and on a site with a heavy template (whose template the
// host's block counts learn).
func TestJudgeVerdicts(t *testing.T) {
	var pipe preprocess.Pipeline
	var docs []*neardup.Document
	for _, sc := range []detectortest.Script{detectortest.Latin, detectortest.Han} {
		for _, g := range detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 5, Script: sc}) {
			docs = append(docs, g...)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("v%dq", rng.IntN(1<<20))
	}
	article := func() string {
		var lines []string
		for range 5 {
			var ws []string
			for range 12 {
				ws = append(ws, vocab[rng.IntN(len(vocab))])
			}
			lines = append(lines, strings.Join(ws, " ")+".")
		}
		return strings.Join(lines, "\n")
	}
	arts := make([]string, 6)
	for i := range arts {
		arts[i] = article()
	}
	for i := range 12 {
		raw := page("heavy", arts[i%len(arts)])
		if i >= len(arts) { // a copy with an edit
			raw = page("heavy", arts[i%len(arts)]+" One more sentence at the end of it.")
		}
		d, err := neardup.NewDocument(&pipe, fmt.Sprint("heavy", i), fmt.Sprintf("https://heavy.example/%d", i), "", raw)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	det, _ := minhash.New(minhash.Options{})
	rp := newRepo(t)
	kept := 0
	for _, d := range docs {
		ms, added, err := det.MatchOrAdd(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		ids, radded, err := rp.matchOrAdd(d)
		if err != nil {
			t.Fatal(err)
		}
		if added != radded {
			t.Errorf("%s: Detector added %v (matches %v), the Judge's repository %v (matches %v)", d.ID, added, ms, radded, ids)
		}
		if added {
			kept++
		}
	}
	if kept == len(docs) || kept < 12 {
		t.Fatalf("%d of %d pages kept: the test pages are not what they should be", kept, len(docs))
	}
}

// A record's binary form parses back to a record that compares as the
// original; bytes that are not a record are ErrCorrupt.
func TestRecordBinary(t *testing.T) {
	j, _ := judge.NewJudge(judge.Options{})
	var pipe preprocess.Pipeline
	d, err := neardup.NewDocument(&pipe, "a", "https://a.example/", "", page("a", "A page about rivers and the towns along them.\nTheir bridges, mills and ferries."))
	if err != nil {
		t.Fatal(err)
	}
	r, err := j.Record(d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if ab, err := r.AppendBinary([]byte("header")); err != nil || string(ab) != "header"+string(b) {
		t.Fatalf("AppendBinary(header) = %x, %v; want header then %x", ab, err, b)
	}
	back, err := j.ParseRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Host() != r.Host() || back.TextHash() != r.TextHash() || !slices.Equal(back.Blocks(), r.Blocks()) {
		t.Fatalf("parsed record differs: %v %x %v, want %v %x %v", back.Host(), back.TextHash(), back.Blocks(), r.Host(), r.TextHash(), r.Blocks())
	}
	if dist, near := j.Near(r, nil, back, nil); !near || dist != 0 {
		t.Fatalf("Near(record, parsed) = %v, %v", dist, near)
	}
	for _, bad := range [][]byte{nil, {0}, b[:len(b)-1], append(slices.Clone(b), 0)} {
		if _, err := j.ParseRecord(bad); !errors.Is(err, neardup.ErrCorrupt) {
			t.Errorf("ParseRecord(%d bytes): err = %v, want ErrCorrupt", len(bad), err)
		}
	}
	// The zero Record marshals without panicking, to bytes that are not a
	// record (it has no page sketch).
	zero, err := new(judge.Record).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{zero, judge.MarshalRecordV1(new(judge.Record))} {
		if _, err := j.ParseRecord(b); !errors.Is(err, neardup.ErrCorrupt) {
			t.Errorf("ParseRecord of the zero Record's version %d: err = %v, want ErrCorrupt", b[0], err)
		}
	}
	if _, err := j.Record(nil); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Record(nil): err = %v", err)
	}
	if _, err := judge.NewJudge(judge.Options{Keys: -3}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("NewJudge(Keys -3): err = %v", err)
	}
}

// FuzzParseRecord parses arbitrary bytes, seeded with real records of both
// versions: it never panics, and a record it accepts marshals to bytes
// that parse to a record of the same fields and bytes (the first form may
// be of version 1, or hold overlong varints), and to a form of version 1
// that parses.
func FuzzParseRecord(f *testing.F) {
	j, _ := judge.NewJudge(judge.Options{})
	var pipe preprocess.Pipeline
	for i, html := range []string{
		"<nav>Home | News</nav><p>The first page tells of rivers and the towns along them, their bridges and mills.</p><footer>© site</footer>",
		"<p>数据挖掘是从大量数据中提取知识的过程。网页去重可以节省存储。</p>",
		"<p>One block.</p>",
		"<nav>A menu of many links: home, news, sport, weather, music, film, books, travel</nav><p>Thin.</p>",
		strings.Repeat("<p>A paragraph of its own words, number ", 40) + "</p>",
	} {
		d, err := neardup.NewDocument(&pipe, fmt.Sprint(i), "https://h.example/", "", []byte(html))
		if err != nil {
			f.Fatal(err)
		}
		r, _ := j.Record(d)
		b, _ := r.MarshalBinary()
		f.Add(b)                        // version 2
		f.Add(judge.MarshalRecordV1(r)) // version 1, as earlier releases wrote it
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := j.ParseRecord(b)
		if err != nil {
			if !errors.Is(err, neardup.ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			return
		}
		j.Keys(r, nil)
		j.Near(r, nil, r, nil)
		b1, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		r2, err := j.ParseRecord(b1)
		if err != nil {
			t.Fatalf("ParseRecord of a marshalled record: %v", err)
		}
		if msg := sameRecord(r2, r); msg != "" {
			t.Fatalf("marshal, parse: %s", msg)
		}
		if b2, _ := r2.MarshalBinary(); string(b2) != string(b1) {
			t.Fatalf("marshal, parse, marshal: %x, then %x", b1, b2)
		}
		if _, err := j.ParseRecord(judge.MarshalRecordV1(r)); err != nil {
			t.Fatalf("ParseRecord of the version 1 form of a record: %v", err)
		}
	})
}

// sameRecord says how got differs from want, field by field ("" when it
// does not).
func sameRecord(got, want *judge.Record) string {
	gc, gt := got.Content()
	wc, wt := want.Content()
	switch {
	case got.Host() != want.Host():
		return fmt.Sprintf("host %q, want %q", got.Host(), want.Host())
	case got.TextHash() != want.TextHash():
		return fmt.Sprintf("text hash %x, want %x", got.TextHash(), want.TextHash())
	case !slices.Equal(got.Blocks(), want.Blocks()):
		return fmt.Sprintf("blocks %v, want %v", got.Blocks(), want.Blocks())
	case !slices.Equal(gc, wc):
		return fmt.Sprintf("content %v, want %v", gc, wc)
	case !slices.Equal(gt, wt):
		return fmt.Sprintf("block indexes %v, want %v", gt, wt)
	}
	return ""
}

// roundTrip checks that the records of docs parse back from their binary
// forms, of version 2 and of version 1, to records of the same fields that
// a Judge compares exactly as the originals: with each of the records
// before it (up to 8), and with a page of its group, under the templates
// that counting every record's blocks by host gives (so that the block
// indexes are used) and under none.
func roundTrip(t *testing.T, docs []*neardup.Document, group []int) (v1, v2 int) {
	t.Helper()
	j, _ := judge.NewJudge(judge.Options{})
	recs := make([]*judge.Record, 0, len(docs))
	counts := map[string]map[uint32]uint32{}
	for _, d := range docs {
		r, err := j.Record(d)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
		m := counts[r.Host()]
		if m == nil {
			m = map[uint32]uint32{}
			counts[r.Host()] = m
		}
		for _, b := range r.Blocks() {
			m[b]++
		}
	}
	tmpl := func(r *judge.Record) judge.Template {
		m := counts[r.Host()]
		return j.TemplateOf(func(b uint32) uint32 { return m[b] }, nil)
	}
	var parsed [2][]*judge.Record
	for i, r := range recs {
		b2, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b1 := judge.MarshalRecordV1(r)
		v1 += len(b1)
		v2 += len(b2)
		for v, b := range [][]byte{b1, b2} {
			back, err := j.ParseRecord(b)
			if err != nil {
				t.Fatalf("%s: ParseRecord of version %d: %v", docs[i].ID, b[0], err)
			}
			if msg := sameRecord(back, r); msg != "" {
				t.Fatalf("%s: version %d parsed back: %s", docs[i].ID, b[0], msg)
			}
			// The index keys are made when a page is recorded, not kept.
			if ks := j.Keys(back, tmpl(back)); ks != nil || len(j.Keys(r, tmpl(r))) == 0 {
				t.Fatalf("%s: version %d: keys %v parsed back, %v recorded; want none, some", docs[i].ID, b[0], ks, j.Keys(r, tmpl(r)))
			}
			parsed[v] = append(parsed[v], back)
		}
	}
	near := 0
	for i, r := range recs {
		others := make([]int, 0, 9)
		for k := max(i-8, 0); k < i; k++ {
			others = append(others, k)
		}
		if group != nil && group[i] != i {
			others = append(others, group[i])
		}
		for _, k := range others {
			for _, tm := range []func(*judge.Record) judge.Template{tmpl, func(*judge.Record) judge.Template { return nil }} {
				dist, isNear := j.Near(r, tm(r), recs[k], tm(recs[k]))
				if isNear {
					near++
				}
				for v := range parsed {
					a, b := parsed[v][i], parsed[v][k]
					if d, n := j.Near(a, tm(a), b, tm(b)); d != dist || n != isNear {
						t.Fatalf("%s, %s: version %d parsed back: Near = %v, %v, want %v, %v", docs[i].ID, docs[k].ID, v+1, d, n, dist, isNear)
					}
				}
			}
		}
	}
	if near == 0 {
		t.Fatalf("no pair of the %d pages near: the comparisons test nothing", len(docs))
	}
	return v1, v2
}

// The records of a generated crawl's pages and of the sample corpora parse
// back from both binary forms to records of the same fields and verdicts,
// and the form of version 2 is the smaller.
func TestRecordRoundTrip(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	t.Run("synth", func(t *testing.T) {
		crawl, err := synth.New(synth.Options{Seed: 1, Pages: n})
		if err != nil {
			t.Fatal(err)
		}
		var pipe preprocess.Pipeline
		var docs []*neardup.Document
		var group []int
		for p := range crawl.All() {
			d, err := neardup.NewDocument(&pipe, fmt.Sprint(p.Index), p.URL, "", p.HTML)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, d)
			group = append(group, p.Group)
		}
		v1, v2 := roundTrip(t, docs, group)
		t.Logf("%d pages: %.1f B a record of version 1, %.1f of version 2", n, float64(v1)/float64(n), float64(v2)/float64(n))
		if v2 >= v1 {
			t.Errorf("version 2 records take %d bytes, version 1 %d", v2, v1)
		}
	})
	for _, name := range []string{"en-sample", "zh-sample"} {
		t.Run(name, func(t *testing.T) {
			pages, err := corpus.Read(filepath.Join("..", "..", "..", "examples", "evaluate", "testdata", name), 0)
			if err != nil {
				t.Fatal(err)
			}
			var pipe preprocess.Pipeline
			docs := make([]*neardup.Document, len(pages))
			for i, p := range pages {
				if docs[i], err = neardup.NewDocument(&pipe, p.ID, p.URL, "", p.Raw); err != nil {
					t.Fatal(err)
				}
			}
			v1, v2 := roundTrip(t, docs, nil)
			t.Logf("%d pages: %.1f B a record of version 1, %.1f of version 2", len(docs), float64(v1)/float64(len(docs)), float64(v2)/float64(len(docs)))
		})
	}
}

// A record's two binary forms, kept here so that a change of either is
// seen: a page of three blocks, with sketches of 12 content and 6 page
// hashes (so that some content hashes are above the page sketch's last).
const (
	recordV1Hex = "0109612e6578616d706c650f4f7a14ca2e596d06a79bce31a5f1f2bd01a2d6fd8502a2b4d260bce3bd9f02a18bc3290ca79bce31a5f1f2bd01a2d6fd8502a2b4d260bce3bd9f02a18bc329b989a2208feedf8601d182a5ea02e7bcf70c80f8b117c8ab90ce03010002010102000200000101ff03cc8cc1ef0199b583ef0ae2d8b6a50c"
	recordV2Hex = "0209612e6578616d706c650f4f7a14ca2e596dff06001818b09f36ce98a4b8bc87216bbf304493827037ee7d418b61fa031e97108174b8bf064205257533efcef8bfc72e785c419c3d93117c874c94f02f7234b3cdb529"
)

// A record of version 1, as a running fleet may hold, parses to the record
// its form of version 2 parses to, and MarshalBinary writes that form.
func TestRecordVersions(t *testing.T) {
	j, err := judge.NewJudge(judge.Options{SketchSize: 12, PageSketchSize: 6})
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := hex.DecodeString(recordV1Hex)
	b2, _ := hex.DecodeString(recordV2Hex)
	r1, err := j.ParseRecord(b1)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := j.ParseRecord(b2)
	if err != nil {
		t.Fatal(err)
	}
	if msg := sameRecord(r2, r1); msg != "" {
		t.Fatalf("version 2 differs from version 1: %s", msg)
	}
	if c, _ := r1.Content(); r1.Host() != "a.example" || len(c) != 12 || len(r1.Blocks()) != 3 {
		t.Fatalf("version 1 record: host %q, %d content hashes, %d blocks", r1.Host(), len(c), len(r1.Blocks()))
	}
	if dist, near := j.Near(r1, nil, r2, nil); !near || dist != 0 {
		t.Errorf("Near(version 1, version 2) = %v, %v", dist, near)
	}
	if b, _ := r1.MarshalBinary(); !bytes.Equal(b, b2) {
		t.Errorf("MarshalBinary of the version 1 record:\n%x, want\n%x", b, b2)
	}
	if b := judge.MarshalRecordV1(r2); !bytes.Equal(b, b1) {
		t.Errorf("version 1 form of the version 2 record:\n%x, want\n%x", b, b1)
	}
	// Every cut of either form, and either form with another version byte,
	// is ErrCorrupt.
	for _, b := range [][]byte{b1, b2} {
		for n := range len(b) {
			if _, err := j.ParseRecord(b[:n]); !errors.Is(err, neardup.ErrCorrupt) {
				t.Errorf("ParseRecord of version %d cut to %d bytes: err = %v", b[0], n, err)
			}
		}
		for _, v := range []byte{0, 3 - b[0], 3, 255} {
			bad := append([]byte{v}, b[1:]...)
			if _, err := j.ParseRecord(bad); !errors.Is(err, neardup.ErrCorrupt) {
				t.Errorf("ParseRecord of version %d as %d: err = %v", b[0], v, err)
			}
		}
	}
	// A version 2 record whose host length is an overlong varint (the
	// same number in two bytes, 0x80|n then 0) is ErrCorrupt: decoders
	// accept only the canonical encoding.
	if b2[1] >= 0x80 {
		t.Fatalf("host length %#x: the test wants a one-byte varint", b2[1])
	}
	overlong := append([]byte{b2[0], b2[1] | 0x80, 0}, b2[2:]...)
	if _, err := j.ParseRecord(overlong); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("ParseRecord of a version 2 record with an overlong host length: err = %v", err)
	}
	// Sketches larger than the judge's are ErrCorrupt.
	small, _ := judge.NewJudge(judge.Options{SketchSize: 8, PageSketchSize: 6, Keys: 4})
	if _, err := small.ParseRecord(b2); !errors.Is(err, neardup.ErrCorrupt) {
		t.Errorf("ParseRecord of 12 content hashes by a judge of 8: err = %v", err)
	}
}

// startCPU reports allocations and, when the returned function is called
// after the benchmark's loop, cpu-ns/op: the CPU time of the benchmark's
// thread per operation, which other work on a busy machine does not
// inflate as it does ns/op (the background GC's work is not in it).
func startCPU(b *testing.B) func() {
	b.ReportAllocs()
	runtime.LockOSThread()
	c0 := benchtest.ThreadCPU()
	return func() {
		b.ReportMetric(float64(benchtest.ThreadCPU()-c0)/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}

// BenchmarkRecord marshals and parses the records of the first 10,000
// pages of the generated crawl (internal/synth, seed 1), one record per
// operation in turn, in the binary form of version 1 (v=1) and of version
// 2 (v=2, what MarshalBinary writes), and reports cpu-ns/op (startCPU)
// and B/record, the forms' mean length:
//
//	go test ./minhash/internal/judge -run '^$' -bench Record -count 6
func BenchmarkRecord(b *testing.B) {
	j, _ := judge.NewJudge(judge.Options{})
	recs := crawlRecords(b, j, 10_000)
	for _, v := range []struct {
		name    string
		marshal func(*judge.Record) []byte
	}{
		{"v=1", judge.MarshalRecordV1},
		{"v=2", func(r *judge.Record) []byte { b, _ := r.MarshalBinary(); return b }},
	} {
		forms := make([][]byte, len(recs))
		size := 0
		for i, r := range recs {
			forms[i] = v.marshal(r)
			size += len(forms[i])
		}
		perRecord := float64(size) / float64(len(forms))
		b.Run("op=MarshalBinary/"+v.name, func(b *testing.B) {
			cpu := startCPU(b)
			i := 0
			for b.Loop() {
				v.marshal(recs[i])
				i = (i + 1) % len(recs)
			}
			cpu()
			b.ReportMetric(perRecord, "B/record")
		})
		b.Run("op=ParseRecord/"+v.name, func(b *testing.B) {
			cpu := startCPU(b)
			i := 0
			for b.Loop() {
				if _, err := j.ParseRecord(forms[i]); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) % len(forms)
			}
			cpu()
			b.ReportMetric(perRecord, "B/record")
		})
	}
}

// A record's index keys are one per content hash, the same for one element
// on every page (near-duplicates that share a hash share its key), and
// spread over the 32-bit values where the hashes, the smallest of their
// pages, are small numbers.
func TestIndexKeys(t *testing.T) {
	j, _ := judge.NewJudge(judge.Options{})
	keyOf := map[uint32]uint32{} // content hash -> its index key
	var keys, hashes []uint32
	for _, g := range detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 41, Groups: 8}) {
		for _, d := range g {
			r, err := j.Record(d)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := r.Content()
			ks := r.IndexKeys()
			if len(ks) != len(c) {
				t.Fatalf("%s: %d index keys for %d content hashes", d.ID, len(ks), len(c))
			}
			for i, h := range c {
				if k, ok := keyOf[h]; ok && k != ks[i] {
					t.Fatalf("%s: hash %d has key %d, on another page %d", d.ID, h, ks[i], k)
				}
				keyOf[h] = ks[i]
			}
			keys = append(keys, j.Keys(r, nil)...)
			hashes = append(hashes, c[:min(len(c), j.Options().Keys)]...)
		}
	}
	slices.Sort(keys)
	slices.Sort(hashes)
	if mk, mh := keys[len(keys)/2], hashes[len(hashes)/2]; mk < 1<<30 || mh > 1<<28 {
		t.Errorf("median index key %d, median of the hashes it stands for %d: want a key spread over 2^32, hashes small", mk, mh)
	}
}

// QueryKeys are the index keys of a record's first 2 × Keys content hashes
// not of template blocks, Keys their start: a QueryKeys that looked up only
// Keys, or that kept template blocks' keys, fails.
func TestQueryKeys(t *testing.T) {
	j, _ := judge.NewJudge(judge.Options{Keys: 4})
	tmpl := func(b uint32) bool { return b%3 == 0 }
	longer := 0
	for _, g := range detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 43, Groups: 4}) {
		for _, d := range g {
			r, err := j.Record(d)
			if err != nil {
				t.Fatal(err)
			}
			c, tags := r.Content()
			ik := r.IndexKeys()
			for _, tt := range []judge.Template{nil, tmpl} {
				var want []uint32
				for i := range c {
					if tt == nil || !tt(r.Blocks()[tags[i]]) {
						want = append(want, ik[i])
					}
				}
				if len(want) == 0 {
					want = ik
				}
				want = want[:min(len(want), 8)]
				q, keys := j.QueryKeys(r, tt), j.Keys(r, tt)
				if !slices.Equal(q, want) || !slices.Equal(keys, want[:min(len(want), 4)]) {
					t.Fatalf("%s: QueryKeys %v, Keys %v; want %v and its first 4", d.ID, q, keys, want)
				}
				if len(q) > len(keys) {
					longer++
				}
			}
		}
	}
	if longer == 0 {
		t.Error("no record has more query keys than keys")
	}
	if k := j.QueryKeys(nil, nil); k != nil {
		t.Errorf("QueryKeys(nil) = %v, want nil", k)
	}
}

// SharedKeys counts the hashes of k's first Keys content hashes less its
// template that are among q's first 2 × Keys less q's: a record shares all
// its keys with itself, a template that takes a record's first hashes out
// moves its keys to later hashes (its first keys are no longer among its
// query's), and a SharedKeys that ignored either
// template, or counted Keys of q, fails.
func TestSharedKeys(t *testing.T) {
	j, _ := judge.NewJudge(judge.Options{Keys: 4})
	tmpl := func(b uint32) bool { return b%3 == 0 }
	stripped := func(r *judge.Record, tt judge.Template) []uint32 {
		c, tags := r.Content()
		var s []uint32
		for i, v := range c {
			if tt == nil || !tt(r.Blocks()[tags[i]]) {
				s = append(s, v)
			}
		}
		if len(s) == 0 {
			s = c
		}
		return s
	}
	recs := crawlRecords(t, j, 40)
	moved := 0
	for _, q := range recs {
		for _, k := range recs {
			for _, tt := range [][2]judge.Template{{nil, nil}, {tmpl, nil}, {nil, tmpl}, {tmpl, tmpl}} {
				qs, ks := stripped(q, tt[0]), stripped(k, tt[1])
				qs, ks = qs[:min(len(qs), 8)], ks[:min(len(ks), 4)]
				want := 0
				for _, v := range ks {
					if slices.Contains(qs, v) {
						want++
					}
				}
				if got := j.SharedKeys(j.QueryHashes(q, tt[0]), k, tt[1]); got != want {
					t.Fatalf("SharedKeys(%v, %v) = %d, want %d", q.Host(), k.Host(), got, want)
				}
			}
		}
		if n := j.SharedKeys(j.QueryHashes(q, tmpl), q, tmpl); n != min(4, len(stripped(q, tmpl))) {
			t.Errorf("a record shares %d keys with itself, want all", n)
		}
		if j.SharedKeys(j.QueryHashes(q, tmpl), q, nil) < min(4, len(stripped(q, nil))) {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no record's template moved its keys")
	}
}

// crawlRecords returns j's records of the first n pages of the generated
// crawl (seed 1).
func crawlRecords(tb testing.TB, j *judge.Judge, n int) []*judge.Record {
	var recs []*judge.Record
	for _, d := range benchtest.Crawl(tb, 1, n) {
		r, err := j.Record(d)
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// page returns a page of site's template (a menu, a sidebar, a footer)
// around article, one paragraph a line.
func page(site, article string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><body><nav><ul>")
	for i := range 12 {
		fmt.Fprintf(&b, "<li><a href=/s%d>%s section %d of the archive</a></li>", i, site, i)
	}
	b.WriteString("</ul></nav><main>")
	for _, p := range strings.Split(article, "\n") {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	fmt.Fprintf(&b, "</main><aside><p>Subscribe to the %s newsletter for weekly updates on gardening, cooking and travel.</p><p>Most read this week on %s: the ten best walks, a guide to sourdough, how to fix a bicycle chain.</p></aside>", site, site)
	fmt.Fprintf(&b, "<footer><p>Copyright %s media group. All rights reserved. Privacy policy, terms of use, contact the editors.</p></footer></body></html>", site)
	return []byte(b.String())
}

// BenchmarkKeys makes the index keys (Judge.Keys, with no template) of the
// generated crawl's first 20,000 pages and reports how densely they fill
// the 32-bit values, beside the content hashes they stand for (a page's
// smallest, small numbers; the in-process Detector's keys): keys/value and
// hashes/value are the values per value between their lower and upper
// quartiles. In a repository of n such pages a key shares its value with
// about keys/value × n/20,000 keys of other pages, related or not.
//
//	go test ./minhash/internal/judge -run '^$' -bench Keys -benchtime 1x
func BenchmarkKeys(b *testing.B) {
	const pages = 20_000
	j, err := judge.NewJudge(judge.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var keys, hashes []uint32
	for b.Loop() {
		keys, hashes = keys[:0], hashes[:0]
		for _, r := range crawlRecords(b, j, pages) {
			keys = append(keys, j.Keys(r, nil)...)
			c, _ := r.Content()
			hashes = append(hashes, c[:min(len(c), j.Options().Keys)]...)
		}
	}
	density := func(v []uint32) float64 {
		slices.Sort(v)
		return float64(len(v)/2) / float64(v[len(v)*3/4]-v[len(v)/4])
	}
	b.ReportMetric(density(keys), "keys/value")
	b.ReportMetric(density(hashes), "hashes/value")
	b.ReportMetric(0, "ns/op")
}
