package minhash_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// repo is a repository kept outside a Detector, as a fleet backend keeps
// one: records filed under their keys, each host's block counts and the
// theme counts, judged by a Judge.
type repo struct {
	j        *minhash.Judge
	recs     map[string]*minhash.Record
	ids      []string
	postings map[uint32][]string
	hosts    map[string]map[uint32]uint32
	theme    map[uint32]uint32
}

func newRepo(t *testing.T) *repo {
	j, err := minhash.NewJudge(minhash.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &repo{j: j, recs: map[string]*minhash.Record{}, postings: map[uint32][]string{},
		hosts: map[string]map[uint32]uint32{}, theme: map[uint32]uint32{}}
}

func (rp *repo) template(host string) minhash.Template {
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
	for _, k := range keys {
		for _, id := range rp.postings[k] {
			if slices.Contains(found, id) {
				continue
			}
			c := rp.recs[id]
			if _, near := rp.j.Near(r, t, c, rp.template(c.Host())); near {
				found = append(found, id)
			}
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
		d, err := neardup.NewDocument(&pipe, fmt.Sprint("heavy", i), fmt.Sprintf("https://heavy.example/%d", i), raw)
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
		ms, added, err := det.MatchOrAdd(d)
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
	j, _ := minhash.NewJudge(minhash.Options{})
	var pipe preprocess.Pipeline
	d, err := neardup.NewDocument(&pipe, "a", "https://a.example/", page("a", "A page about rivers and the towns along them.\nTheir bridges, mills and ferries."))
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
	back, err := j.ParseRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Host() != r.Host() || back.TextHash() != r.TextHash() || !slices.Equal(back.Blocks(), r.Blocks()) || !slices.Equal(j.Keys(back, nil), j.Keys(r, nil)) {
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
	if _, err := j.Record(nil); !errors.Is(err, neardup.ErrNilDocument) {
		t.Errorf("Record(nil): err = %v", err)
	}
	if _, err := minhash.NewJudge(minhash.Options{Keys: -3}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("NewJudge(Keys -3): err = %v", err)
	}
}

// FuzzParseRecord parses arbitrary bytes, seeded with real records: it
// never panics, and a record it accepts marshals to bytes that parse to a
// record of the same bytes (the first form may hold overlong varints).
func FuzzParseRecord(f *testing.F) {
	j, _ := minhash.NewJudge(minhash.Options{})
	var pipe preprocess.Pipeline
	for i, html := range []string{
		"<nav>Home | News</nav><p>The first page tells of rivers and the towns along them, their bridges and mills.</p><footer>© site</footer>",
		"<p>数据挖掘是从大量数据中提取知识的过程。网页去重可以节省存储。</p>",
	} {
		d, err := neardup.NewDocument(&pipe, fmt.Sprint(i), "https://h.example/", []byte(html))
		if err != nil {
			f.Fatal(err)
		}
		r, _ := j.Record(d)
		b, _ := r.MarshalBinary()
		f.Add(b)
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
		if b2, _ := r2.MarshalBinary(); string(b2) != string(b1) {
			t.Fatalf("marshal, parse, marshal: %x, then %x", b1, b2)
		}
	})
}
