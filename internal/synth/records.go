package synth

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// DefaultPlanted is RecordsOptions.Planted when it is zero.
const DefaultPlanted = 0.1

// RecordsOptions configure NewRecords. The zero value of every field but N
// means its default.
type RecordsOptions struct {
	// Seed selects the records: the same options give the same records.
	Seed int64
	// N is the number of records, 1 to MaxPages.
	N int
	// Planted is the share of records that copy an earlier record, picked
	// uniformly, with words replaced so that the two word sets' Jaccard
	// similarity is drawn uniformly from [0.5, 1] (default 0.1, at most
	// 0.9; negative: none).
	Planted float64
}

// Record is one short record: a product title (brand, 3–7 words of the
// English model by frequency, a model code) or a log line (level, service,
// operation, object, host, request id, latency), lower-case, its words
// separated by spaces. Records that are not planted share a word with
// another only by chance (the model's words, a level, a service): the
// background pairs.
type Record struct {
	Text string
	// Of is the index of the record a planted record copies, or −1.
	Of int
	// Planted is the Jaccard similarity a planted record was written to
	// have with record Of (the words replaced are rounded, so its true
	// similarity, Jaccard, is near it).
	Planted float64
}

// Elements returns the hashes (xxhash) of the record's distinct words,
// ascending: its set.
func (r Record) Elements() []uint64 { return WordSet(r.Text) }

// WordSet returns the xxhash of each distinct space-separated word of
// text, ascending.
func WordSet(text string) []uint64 {
	var hs []uint64
	for w := range strings.FieldsSeq(text) {
		hs = append(hs, xxhash.Sum64String(w))
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}

// Jaccard returns the Jaccard similarity of two ascending, distinct sets.
func Jaccard(a, b []uint64) float64 {
	i, j, both := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			both++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	u := len(a) + len(b) - both
	if u == 0 {
		return 1
	}
	return float64(both) / float64(u)
}

var (
	recordLevels = []string{"info", "info", "info", "warn", "error", "debug"}
	recordOps    = []string{"get", "put", "post", "delete", "sync", "fetch", "flush", "open", "close", "retry", "commit", "scan"}
)

// NewRecords returns o.N records. Errors wrap ErrInvalidOption.
func NewRecords(o RecordsOptions) ([]Record, error) {
	if o.N < 1 || o.N > MaxPages {
		return nil, fmt.Errorf("synth: RecordsOptions.N = %d, want 1 to %d: %w", o.N, MaxPages, ErrInvalidOption)
	}
	planted := o.Planted
	switch {
	case math.IsNaN(planted) || planted > 0.9:
		return nil, fmt.Errorf("synth: RecordsOptions.Planted = %v, want at most 0.9 (0: %g, negative: none): %w", planted, DefaultPlanted, ErrInvalidOption)
	case planted == 0:
		planted = DefaultPlanted
	case planted < 0:
		planted = 0
	}
	m, err := parseModel(modelEN, false)
	if err != nil {
		return nil, err
	}
	const common = 100 // the model's most frequent words are left out of titles
	word := func(r *rng) string { return m.words[common+r.intn(len(m.words)-common)] }
	syll := chinese.syllables // brand and service names
	out := make([]Record, o.N)
	var b strings.Builder
	for i := range out {
		r := stream(o.Seed, streamRecord, uint64(i))
		b.Reset()
		if i > 0 && r.chance(planted) {
			src := r.intn(i)
			j := 0.5 + 0.5*r.float()
			words := strings.Fields(out[src].Text)
			distinct := slices.Compact(slices.Sorted(slices.Values(words)))
			// Replacing d of m distinct words: (m−d)/(m+d) = j.
			d := int(math.Round(float64(len(distinct)) * (1 - j) / (1 + j)))
			for _, k := range r.perm(len(distinct))[:d] {
				old := distinct[k]
				fresh := word(&r) + strconv.Itoa(r.intn(100))
				for x := range words {
					if words[x] == old {
						words[x] = fresh
					}
				}
			}
			out[i] = Record{Text: strings.Join(words, " "), Of: src, Planted: j}
			continue
		}
		if r.chance(0.6) {
			// A product title: brand, words, a model code.
			b.WriteString(pick(&r, syll))
			b.WriteString(pick(&r, syll))
			for range r.between(3, 7) {
				b.WriteByte(' ')
				b.WriteString(word(&r))
			}
			fmt.Fprintf(&b, " %c%c-%d", 'a'+r.intn(26), 'a'+r.intn(26), r.intn(100000))
		} else {
			// A log line.
			fmt.Fprintf(&b, "%s svc-%s%s %s %s %s host-%d req-%x %dms",
				pick(&r, recordLevels), pick(&r, syll), pick(&r, syll), pick(&r, recordOps),
				word(&r), word(&r), r.intn(50000), r.next()&0xffffffff, r.intn(5000))
		}
		out[i] = Record{Text: b.String(), Of: -1}
	}
	return out, nil
}

// perm returns a random permutation of 0..n-1.
func (r *rng) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		j := r.intn(i + 1)
		p[i], p[j] = p[j], i
	}
	return p
}

// Pairs returns every pair (i, j), i < j, of sets (ascending, distinct) of
// Jaccard similarity at least min > 0, ascending: through an inverted index,
// so its time grows with the pairs that share an element (use it on 10⁴
// records, not 10⁶).
func Pairs(sets [][]uint64, min float64) [][2]int {
	post := map[uint64][]int32{}
	shared := make([]int32, len(sets))
	var touched []int32
	var out [][2]int
	for i, s := range sets {
		for _, e := range s {
			for _, j := range post[e] {
				if shared[j] == 0 {
					touched = append(touched, j)
				}
				shared[j]++
			}
		}
		slices.Sort(touched)
		for _, j := range touched {
			both := int(shared[j])
			if float64(both)/float64(len(s)+len(sets[j])-both) >= min {
				out = append(out, [2]int{int(j), i})
			}
			shared[j] = 0
		}
		touched = touched[:0]
		for _, e := range s {
			post[e] = append(post[e], int32(i))
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return out
}
