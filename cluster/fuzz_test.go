package cluster

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/preprocess"
)

// FuzzPartition preprocesses arbitrary text and places it among the clusters
// of a fit of real text: KeywordsOf never panics and fails only with the
// pipeline's errors or ErrNoFeatures; a page with keywords gets a home in
// range, and with p = k Partition orders all k clusters, the home first.
func FuzzPartition(f *testing.F) {
	for _, s := range []string{
		"", "a", "the of and", "Glaciers melt. Ice melts. Glacier ice.", "日本語のテキスト。句点。",
		"x\xffy", "bee bee bee hive hive flower", "İı Kk Σσς straße STRASSE",
	} {
		f.Add(s)
	}
	var pipe preprocess.Pipeline
	var docs []*neardup.Document
	for i, text := range []string{
		"Glaciers melt slowly. Glacier ice traps air. Melting ice records climate.",
		"Ice sheets and glaciers melt. Glacier melt raises the sea. Ice is old.",
		"Bees dance to find flowers. Bees carry pollen to the hive. Flowers feed the hive.",
		"A hive of bees makes honey. Bees visit flowers. The hive swarms in spring.",
		"Compilers parse source code. Parsers build trees. Code generators emit code.",
	} {
		d, err := neardup.NewDocument(&pipe, string(rune('a'+i)), "", "", []byte(text))
		if err != nil {
			f.Fatal(err)
		}
		docs = append(docs, d)
	}
	km := mustNew(f, KModesOptions{K: 3, Keywords: 4})
	if err := km.Fit(docs); err != nil {
		f.Fatal(err)
	}
	all := mustNew(f, KModesOptions{K: 3, Keywords: 4, Probes: 3})
	if err := all.Fit(docs); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, err := neardup.NewDocument(&pipe, "fuzz", "", "", []byte(text))
		if err != nil {
			if !errors.Is(err, preprocess.ErrEmpty) && !errors.Is(err, preprocess.ErrInvalidUTF8) && !errors.Is(err, preprocess.ErrTooLarge) {
				t.Fatalf("NewDocument(%q): %v", text, err)
			}
			return
		}
		w, err := KeywordsOf(d, 4)
		j, aerr := home(km, d)
		if err != nil {
			if !errors.Is(err, neardup.ErrNoFeatures) || !errors.Is(aerr, neardup.ErrNoFeatures) {
				t.Fatalf("KeywordsOf(%q) = %v; Partition err %v", text, err, aerr)
			}
			return
		}
		if len(w) == 0 || len(w) > 4 || aerr != nil || j < 0 || j >= 3 {
			t.Fatalf("KeywordsOf(%q) = %v; home %d, %v", text, w, j, aerr)
		}
		ps, err := all.Partition(d)
		if err != nil || len(ps) != 3 || ps[0] != j || !slices.Equal(slices.Sorted(slices.Values(ps)), []int{0, 1, 2}) {
			t.Fatalf("Partition(%q) with p = 3: %v, %v; home at p = 1: %d", text, ps, err, j)
		}
	})
}

// FuzzFit fits documents decoded from the input (k from the first byte,
// then documents of keywords "w<byte>" separated by 0xff, each keyword
// counted once): Fit never panics, fails only with ErrTooFew or
// ErrNoFeatures, and every fitted document's home is its label.
func FuzzFit(f *testing.F) {
	f.Add([]byte{2, 1, 2, 3, 0xff, 1, 2, 4, 0xff, 7, 8, 0xff, 7, 9})
	f.Add([]byte{3, 1, 0xff, 1, 0xff, 1, 0xff, 2})
	f.Add([]byte{1, 0xff, 0xff})
	f.Add([]byte{4, 5, 5, 5, 0xff, 6, 0xff, 7, 0xff, 8, 0xff, 9, 9, 0xff, 10, 11, 12, 13, 14})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 || len(in) > 400 {
			return
		}
		k := 1 + int(in[0]%6)
		var items [][]uint32
		cur := []uint32{}
		for _, b := range in[1:] {
			if b == 0xff {
				items = append(items, cur)
				cur = []uint32{}
				continue
			}
			if !slices.Contains(cur, uint32(b)) {
				cur = append(cur, uint32(b))
			}
		}
		items = append(items, cur)
		docs := codeDocs(items)
		for _, o := range []KModesOptions{{K: k, Keywords: 3}, {K: k, Keywords: 2, Similarity: Matching, MaxIter: 2}, {K: k, Keywords: 3, Init: Huang, NInit: 2}} {
			km := mustNew(t, o)
			err := km.Fit(docs)
			if err != nil {
				if !errors.Is(err, ErrTooFew) && !errors.Is(err, neardup.ErrNoFeatures) {
					t.Fatalf("Fit(%v): %v", items, err)
				}
				continue
			}
			st := km.Stats()
			labels := st.Labels
			if len(labels) != len(items) || len(st.Modes) != k || len(st.Sizes) != 1 || len(st.Sizes[0]) != k || st.Documents != len(items) {
				t.Fatalf("Fit(%v): Stats %+v, want %d labels, k = %d", items, st, len(items), k)
			}
			for i, d := range docs {
				if j, err := home(km, d); err != nil || j != labels[i] {
					t.Fatalf("%+v: home of %v = %d, %v; label %d", o, items[i], j, err, labels[i])
				}
			}
		}
	})
}

// FuzzReadFrom reads arbitrary bytes (seeded with real snapshots) into a
// Detector and a KModes: never a panic; a failed read leaves each as it was;
// an accepted one answers.
func FuzzReadFrom(f *testing.F) {
	groups := detectortest.Groups(f, nil, detectortest.GroupSpec{Seed: 26, Groups: 4, Members: 2})
	opts := Options{NewDetector: cascades, KModes: KModesOptions{K: 2}, FitAt: 3}
	det, err := New(opts)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := det.WriteTo(&buf); err != nil { // unfitted
		f.Fatal(err)
	}
	f.Add(bytes.Clone(buf.Bytes()))
	for _, g := range groups {
		if err := det.Add(f.Context(), g[0]); err != nil {
			f.Fatal(err)
		}
	}
	buf.Reset()
	if _, err := det.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Clone(buf.Bytes()))
	km := mustNew(f, KModesOptions{K: 2, Keywords: 3})
	if err := km.Fit(codeDocs([][]uint32{{1, 2}, {2, 3}, {7, 8}, {8, 9}})); err != nil {
		f.Fatal(err)
	}
	buf.Reset()
	if _, err := km.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Clone(buf.Bytes()))
	f.Add([]byte("NEARDUP\x00\x01"))
	fixedOpts := Options{NewDetector: cascades, Partitioner: termParts{}}
	fixed, err := New(fixedOpts)
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range groups {
		if err := fixed.Add(f.Context(), g[0]); err != nil {
			f.Fatal(err)
		}
	}
	buf.Reset()
	if _, err := fixed.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Clone(buf.Bytes()))

	f.Fuzz(func(t *testing.T, in []byte) {
		fd, err := New(fixedOpts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fd.ReadFrom(bytes.NewReader(in)); err == nil {
			for _, g := range groups {
				if _, err := fd.Match(t.Context(), g[1]); err != nil {
					t.Fatalf("Match after ReadFrom (fixed parts): %v", err)
				}
			}
			fd.Stats()
			_ = fd.Add(t.Context(), groups[3][1])
		} else if fd.Len() != 0 {
			t.Fatalf("a failed ReadFrom kept %d pages", fd.Len())
		}
		d, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		own := groups[0]
		if err := d.Add(t.Context(), own[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := d.ReadFrom(bytes.NewReader(in)); err != nil {
			if ms, err := d.Match(t.Context(), own[1]); err != nil || len(ms) != 1 || d.Len() != 1 {
				t.Fatalf("a failed ReadFrom changed the Detector: %v, %v, Len %d", ms, err, d.Len())
			}
		} else {
			for _, g := range groups {
				if _, err := d.Match(t.Context(), g[1]); err != nil {
					t.Fatalf("Match after ReadFrom: %v", err)
				}
			}
			d.Stats()
			_ = d.Add(t.Context(), groups[3][1])
		}
		k := mustNew(t, KModesOptions{K: 2, Keywords: 3})
		if _, err := k.ReadFrom(bytes.NewReader(in)); err != nil {
			if k.Stats().Fits > 0 {
				t.Fatal("a failed ReadFrom fitted the KModes")
			}
		} else if st := k.Stats(); st.Fits > 0 {
			if len(st.Modes) != len(st.Sizes[0]) {
				t.Fatalf("read a KModes of %d modes and %d sizes", len(st.Modes), len(st.Sizes[0]))
			}
			_, _ = k.Partition(kwDoc("a", codeWords(1, 2, 99)...))
			_, _ = k.Update(kwDoc("u", codeWords(2, 3, 5)...))
		}
	})
}

// termParts sends a page to part (number of terms mod 3), and probes the
// next part.
type termParts struct{}

func (termParts) Partition(d *neardup.Document) ([]int, error) {
	n := len(d.Page.Terms) % 3
	return []int{n, n + 1}, nil
}
