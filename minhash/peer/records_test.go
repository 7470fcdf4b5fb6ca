package peer_test

import (
	"fmt"
	"strings"
	"testing"

	minhashlsh "github.com/ekzhu/minhash-lsh"

	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/synth"
	"github.com/neardup/neardup/minhash"
)

// recordHashes is ekzhu/minhash-lsh's signature length (its README's);
// minhash.LSH chooses its own from the threshold (LSHOptions.K zero).
const recordHashes = 128

// neardupRecords is minhash.LSH on the records' word sets.
type neardupRecords struct {
	x   *minhash.LSH
	sig minhash.Signature
	out []uint32
}

func (l *neardupRecords) Add(i int, text string) {
	l.sig = minhash.NewSignature(l.x.Options().K, synth.WordSet(text), l.sig)
	if err := l.x.Insert(uint32(i), l.sig); err != nil {
		panic(err)
	}
}

func (l *neardupRecords) Build() {}

func (l *neardupRecords) Query(text string, dst []int) []int {
	l.sig = minhash.NewSignature(l.x.Options().K, synth.WordSet(text), l.sig)
	l.out = l.x.Query(l.sig, l.out[:0])
	for _, id := range l.out {
		dst = append(dst, int(id))
	}
	return dst
}

// ekzhuRecords is github.com/ekzhu/minhash-lsh on the same word sets: its
// Minhash of each distinct word (128 hash functions, 32-bit LSH keys), its
// MinhashLSH at the threshold, Index called once after the last Add (its
// cheapest use: it sorts its tables on each call).
type ekzhuRecords struct {
	x *minhashlsh.MinhashLSH
}

func ekzhuSignature(text string) []uint64 {
	mh := minhashlsh.NewMinhash(seed, recordHashes)
	seen := map[string]bool{}
	for w := range strings.FieldsSeq(text) {
		if !seen[w] {
			seen[w] = true
			mh.Push([]byte(w))
		}
	}
	return mh.Signature()
}

func (l *ekzhuRecords) Add(i int, text string) { l.x.Add(i, ekzhuSignature(text)) }

func (l *ekzhuRecords) Build() { l.x.Index() }

func (l *ekzhuRecords) Query(text string, dst []int) []int {
	for _, k := range l.x.Query(ekzhuSignature(text)) {
		dst = append(dst, k.(int))
	}
	return dst
}

// BenchmarkRecords runs minhash's records benchmark (benchtest.Records:
// titles and log lines with planted pairs at Jaccard 0.5–1.0, 10,000
// queries) on minhash.LSH and on ekzhu/minhash-lsh, on the same records in
// the same run:
//
//	cd minhash/peer && go test -run '^$' -bench Records -benchtime 1x -timeout 60m
func BenchmarkRecords(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		for _, t := range []float64{0.5, 0.7, 0.9} {
			for _, m := range []struct {
				name string
				idx  func(t float64) benchtest.RecordIndex
			}{
				{"neardup-LSH", func(t float64) benchtest.RecordIndex {
					x, err := minhash.NewLSH(minhash.LSHOptions{Threshold: t})
					if err != nil {
						b.Fatal(err)
					}
					return &neardupRecords{x: x}
				}},
				{"ekzhu-minhash-lsh", func(t float64) benchtest.RecordIndex {
					return &ekzhuRecords{x: minhashlsh.NewMinhashLSH(recordHashes, t)}
				}},
			} {
				b.Run(fmt.Sprintf("n=%dk/t=%v/%s", n/1000, t, m.name), func(b *testing.B) {
					if n > 10_000 && !*large {
						b.Skip("-peer.large: n above 10k")
					}
					for b.Loop() {
						benchtest.Records(b, n, t, m.idx)
					}
				})
			}
		}
	}
}
