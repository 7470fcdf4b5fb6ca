package minhash_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
)

func TestLSHOptions(t *testing.T) {
	for _, o := range []minhash.LSHOptions{
		{},
		{Threshold: -0.1},
		{Threshold: 1.5},
		{Threshold: math.NaN()},
		{Threshold: 0.5, K: -1},
		{Threshold: 0.5, K: minhash.MaxSignatureSize + 1},
		{Threshold: 0.5, FalsePositiveWeight: -1},
		{Threshold: 0.5, FalseNegativeWeight: math.Inf(1)},
		{Threshold: 0.5, MinProbability: 1.5},
		{Threshold: 0.5, Bands: 3},
		{Threshold: 0.5, K: 16, Bands: 5, Rows: 4},
		{Threshold: 0.5, Bands: 300, Rows: 4},
		{Threshold: 0.5, MaxChance: 1},
		{Threshold: 0.5, MaxChance: math.NaN()},
		{Threshold: 0.5, Collisions: 2},
		{Threshold: 0.5, Bands: 4, Rows: 2, Collisions: 5},
		{Threshold: 0.5, Bands: 4, Rows: 2, Collisions: -1},
	} {
		if _, err := minhash.NewLSH(o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("NewLSH(%+v): %v, want ErrInvalidOption", o, err)
		}
	}
	// datasketch's choice (no floor) at 0.5 with 128 values: 25 bands of 5,
	// which finds a pair at the threshold with probability 0.55; the floor
	// makes it at least 0.99.
	x, err := minhash.NewLSH(minhash.LSHOptions{Threshold: 0.5, MinProbability: -1, MaxChance: -1})
	if err != nil {
		t.Fatal(err)
	}
	if o := x.Options(); o.Bands != 25 || o.Rows != 5 || o.Collisions != 1 || o.K != 128 {
		t.Errorf("datasketch's bands at 0.5: %d × %d of %d, want 25 × 5 of 128", o.Bands, o.Rows, o.K)
	}
	// The default choice keeps both bounds; the shortest signature that
	// keeps them at K = 128 when K is given.
	for _, o := range []minhash.LSHOptions{{Threshold: 0.3}, {Threshold: 0.5}, {Threshold: 0.7}, {Threshold: 0.9}, {Threshold: 1}, {Threshold: 0.7, K: 128}, {Threshold: 0.7, MaxChance: 1e-6}} {
		x, err := minhash.NewLSH(o)
		if err != nil {
			t.Fatal(err)
		}
		th, got := o.Threshold, x.Options()
		if p, c := x.Probability(th), x.Probability(th/2); p < minhash.DefaultMinProbability || c > max(o.MaxChance, minhash.DefaultMaxChance) ||
			got.Bands*got.Rows > got.K || o.K != 0 && got.K != o.K || got.Collisions < 1 || got.Collisions > got.Bands {
			t.Errorf("%+v: %d × %d, %d to agree, K %d: P(t) = %.4f, P(t/2) = %.5f", o, got.Bands, got.Rows, got.Collisions, got.K, p, c)
		}
		t.Logf("%+v: %d bands × %d rows, %d to agree, K %d: P(t) %.4f, P(t/2) %.5f", o, got.Bands, got.Rows, got.Collisions, got.K, x.Probability(th), x.Probability(th/2))
	}
}

// pairOf returns the element hashes of two sets of union u whose Jaccard
// similarity is exactly round(j·u)/u.
func pairOf(r *rand.Rand, u int, j float64) (a, b []uint64) {
	both := int(math.Round(j * float64(u)))
	for i := range u {
		h := r.Uint64()
		switch {
		case i < both:
			a, b = append(a, h), append(b, h)
		case i%2 == 0:
			a = append(a, h)
		default:
			b = append(b, h)
		}
	}
	return a, b
}

// The share of pairs at Jaccard J that an LSH finds is P(Binomial(b, J^r)
// ≥ m) (1 − (1 − J^r)^b for m = 1) within sampling error (5 standard
// deviations), for bands where that is far from 0 and 1. Catches
// correlated positions (one hash for all of a band), a band keyed on the
// wrong values, a Query that misses a band or counts a record's agreeing
// bands wrongly, and a wrong Probability.
func TestLSHProbability(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const trials = 1500
	for _, c := range []struct {
		b, r, m int
		j       float64
	}{{8, 4, 1, 0.6}, {8, 4, 1, 0.4}, {12, 5, 1, 0.5}, {4, 8, 1, 0.85}, {32, 2, 1, 0.2},
		{32, 2, 3, 0.3}, {16, 4, 4, 0.7}, {21, 3, 5, 0.6}, {64, 1, 20, 0.35}} {
		x, err := minhash.NewLSH(minhash.LSHOptions{Threshold: 0.5, K: 64, Bands: c.b, Rows: c.r, Collisions: c.m})
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		var sig minhash.Signature
		var cands []uint32
		for i := range trials {
			a, b := pairOf(r, 60, c.j)
			if err := x.Insert(uint32(i), minhash.NewSignature(64, a, sig)); err != nil {
				t.Fatal(err)
			}
			cands = x.Query(minhash.NewSignature(64, b, sig), cands[:0])
			if _, ok := slices.BinarySearch(cands, uint32(i)); ok {
				found++
			}
		}
		p := x.Probability(c.j)
		got := float64(found) / trials
		sd := math.Sqrt(p * (1 - p) / trials)
		t.Logf("b=%d r=%d m=%d J=%.2f: found %.4f, P = %.4f", c.b, c.r, c.m, c.j, got, p)
		if math.Abs(got-p) > 5*sd+0.005 || p < 0.1 || p > 0.9 {
			t.Errorf("b=%d r=%d m=%d J=%.2f: found %.4f of pairs, want %.4f ± %.4f (and within 0.1–0.9 to tell)", c.b, c.r, c.m, c.j, got, p, 5*sd)
		}
	}
}

// SignatureJaccard estimates J within 4 standard deviations of k values;
// Insert rejects a signature of another length; Remove takes a record out.
func TestLSHSignature(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, j := range []float64{0, 0.3, 0.7, 1} {
		a, b := pairOf(r, 400, j)
		est := minhash.SignatureJaccard(minhash.NewSignature(512, a, nil), minhash.NewSignature(512, b, nil))
		if sd := math.Sqrt(j * (1 - j) / 512); math.Abs(est-j) > 4*sd+0.01 {
			t.Errorf("J = %.2f: estimate %.4f", j, est)
		}
	}
	if s, u := minhash.SignatureOf([]string{"a", "b"}, 16, 1), minhash.SignatureOf([]string{"b", "a", "a"}, 16, 1); !slices.Equal(s, u) {
		t.Errorf("signatures of one set differ: %v, %v", s, u)
	}
	x, _ := minhash.NewLSH(minhash.LSHOptions{Threshold: 0.8, K: 32})
	if err := x.Insert(1, make(minhash.Signature, 31)); !errors.Is(err, minhash.ErrSignatureLength) {
		t.Errorf("Insert of 31 values into K = 32: %v", err)
	}
	s := minhash.SignatureOf([]string{"error", "disk", "full", "on", "sda1"}, 32, 1)
	if err := x.Insert(7, s); err != nil {
		t.Fatal(err)
	}
	if got := x.Query(s, nil); !slices.Equal(got, []uint32{7}) || x.Len() != x.Options().Bands {
		t.Errorf("Query after Insert: %v, Len %d", got, x.Len())
	}
	x.Remove(7, s)
	if got := x.Query(s, nil); len(got) != 0 || x.Len() != 0 {
		t.Errorf("Query after Remove: %v, Len %d", got, x.Len())
	}
}

// BenchmarkSignature: a 128-value Signature of a record of 10 words and of
// a page of 500 shingles (k × n multiply-adds).
//
//	go test ./minhash -run '^$' -bench Signature -benchmem
func BenchmarkSignature(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{10, 500} {
		el := make([]uint64, n)
		for i := range el {
			el[i] = r.Uint64()
		}
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			var s minhash.Signature
			for b.Loop() {
				s = minhash.NewSignature(minhash.DefaultSignatureSize, el, s)
			}
		})
	}
}

// Query returns, ascending and once each, exactly the records that agree
// with the query on at least Collisions whole bands, counted here band by
// band from the signatures, when a query's band hits are few (sorted) and
// many (counted: 8-bit counters first, then exactly; with Collisions above
// 255 exactly only): records drawn from 12 elements share many bands.
// Catches a record dropped or kept by a wrong count, a counter that wraps,
// duplicates, unsorted output, and a lookup that stops before its value's
// last entry.
func TestLSHQueryAgreeing(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ n, bands, rows, m int }{
		{20, 12, 2, 1}, {20, 12, 2, 3}, {20, 12, 2, 7},
		{600, 12, 2, 1}, {600, 12, 2, 3}, {600, 12, 2, 7},
		{600, 300, 1, 2}, {600, 300, 1, 280},
	} {
		k := c.bands * c.rows
		x, err := minhash.NewLSH(minhash.LSHOptions{Threshold: 0.5, K: k, Bands: c.bands, Rows: c.rows, Collisions: c.m})
		if err != nil {
			t.Fatal(err)
		}
		sigs := make([]minhash.Signature, c.n)
		for i := range sigs {
			var el []uint64
			for e := range uint64(12) {
				if r.IntN(3) > 0 {
					el = append(el, e*0x9e3779b97f4a7c15)
				}
			}
			sigs[i] = minhash.NewSignature(k, el, nil)
			if err := x.Insert(uint32(i*7), sigs[i]); err != nil {
				t.Fatal(err)
			}
		}
		for q := range min(30, c.n) {
			var want []uint32
			for i, s := range sigs {
				agree := 0
				for b := range c.bands {
					if slices.Equal(s[b*c.rows:(b+1)*c.rows], sigs[q][b*c.rows:(b+1)*c.rows]) {
						agree++
					}
				}
				if agree >= c.m {
					want = append(want, uint32(i*7))
				}
			}
			got := x.Query(sigs[q], []uint32{12345})
			if got[0] != 12345 || !slices.Equal(got[1:], want) {
				t.Fatalf("%+v query %d: %d candidates %v, want %d %v", c, q, len(got)-1, got[1:], len(want), want)
			}
		}
	}
}
