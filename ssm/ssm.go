package ssm

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// MaxN is the largest table: Options.N and NewTable accept at most MaxN
// keywords.
const MaxN = 1024

// ErrBadTable reports a keyword table NewTable cannot build: a term counted
// less than once, a term twice, or more than MaxN terms. An empty table is
// not ErrBadTable but wraps neardup.ErrNoFeatures.
var ErrBadTable = errors.New("ssm: invalid keyword table")

// Table is a document's keyword table (§3.6): its top keywords with their term
// frequencies, indexed 1..Len() in descending frequency (ties by text
// ascending, the order of preprocess.Page.Top). A Table is immutable and safe
// for concurrent use. NewTable never returns an empty table; the zero Table
// is empty, and SSM takes it as a table of no keywords.
//
// Besides the terms in index order, a Table keeps them sorted by a 64-bit
// hash of their text (xxhash) with ln(tf) precomputed, so that SSM intersects
// two tables in one merge without allocating. Two keywords are the same
// keyword when their hashes are equal; NewTable refuses a table in which two
// different texts collide, so within a table this is exact, and across tables
// a false match needs a 64-bit collision (about 2⁻⁶⁴ per pair of words).
type Table struct {
	terms []preprocess.Term // index order: terms[i] has index i+1
	ents  []entry           // by key ascending
}

// entry is one keyword of a Table in hash order.
type entry struct {
	key uint64  // xxhash of the text
	ln  float64 // ln(tf)
	pos int32   // index 1..N
}

// NewTable returns the table of terms: they are ordered by count descending,
// then text ascending, and indexed 1..len(terms) in that order (the order
// given does not matter). It returns an error wrapping neardup.ErrNoFeatures
// for no terms, and one wrapping ErrBadTable for a count below 1, a text given
// twice or more than MaxN terms.
func NewTable(terms []preprocess.Term) (Table, error) {
	if len(terms) > MaxN {
		return Table{}, fmt.Errorf("ssm: NewTable: %d terms, more than MaxN = %d: %w", len(terms), MaxN, ErrBadTable)
	}
	if len(terms) == 0 {
		return Table{}, fmt.Errorf("ssm: NewTable: no terms: %w", neardup.ErrNoFeatures)
	}
	ts := slices.Clone(terms)
	for i := range ts {
		// A term's text may share memory with its whole page; a kept
		// table must not keep the page alive.
		ts[i].Text = strings.Clone(ts[i].Text)
	}
	slices.SortStableFunc(ts, func(a, b preprocess.Term) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Text, b.Text)
	})
	ents := make([]entry, len(ts))
	for i, t := range ts {
		if t.Count < 1 {
			return Table{}, fmt.Errorf("ssm: NewTable: term %q counted %d times: %w", t.Text, t.Count, ErrBadTable)
		}
		ents[i] = entry{key: xxhash.Sum64String(t.Text), ln: math.Log(float64(t.Count)), pos: int32(i + 1)}
	}
	slices.SortFunc(ents, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
	for i := 1; i < len(ents); i++ {
		if ents[i].key == ents[i-1].key {
			a, b := ts[ents[i-1].pos-1].Text, ts[ents[i].pos-1].Text
			if a == b {
				return Table{}, fmt.Errorf("ssm: NewTable: term %q given twice: %w", a, ErrBadTable)
			}
			return Table{}, fmt.Errorf("ssm: NewTable: terms %q and %q have the same hash: %w", a, b, ErrBadTable)
		}
	}
	return Table{terms: ts, ents: ents}, nil
}

// Len returns the number of keywords, |T|.
func (t Table) Len() int { return len(t.terms) }

// Terms returns the keywords in index order (Terms()[i] has index i+1), as a
// copy.
func (t Table) Terms() []preprocess.Term { return slices.Clone(t.terms) }

// Index returns the index (1..Len()) of word in t, or 0 when t does not hold it.
func (t Table) Index(word string) int {
	for i, term := range t.terms {
		if term.Text == word {
			return i + 1
		}
	}
	return 0
}

// String formats t as "1 word tf, 2 word tf, ...".
func (t Table) String() string {
	var b strings.Builder
	for i, term := range t.terms {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s %d", i+1, term.Text, term.Count)
	}
	return b.String()
}

// SSM returns the similarity score measure of Eqs. (3)–(6) between the table
// of a new document, newDoc (the paper's T1), and the table of a stored
// document, stored (T2), with natural logarithms:
//
//   - a keyword in both, with tf x and index a in T1, tf y and index b in T2:
//     S_Dc = ln(x/y) · |1 + (a − b)|;
//   - a keyword only in T1, with tf x: S_DT1 = ln(x) · (1 + |T2|);
//   - a keyword only in T2, with tf y: S_DT2 = ln(y) · (1 + |T1|);
//   - SSM = (ΣS_Dc + ΣS_DT1 + ΣS_DT2) / ((|T1| + |T2|) / 2).
//
// Lower is closer: identical tables give exactly 0. SSM is not symmetric
// (swapping the tables changes the sign of ln(x/y) and the index term), and it
// is negative when the common keywords are rarer in the new document than in
// the stored one and outweigh the rest. Two empty tables give 0. SSM does not
// allocate.
func SSM(newDoc, stored Table) float64 { return ssm(newDoc.ents, stored.ents) }

// ssm is SSM over the tables' entries in hash order.
func ssm(a, b []entry) float64 {
	n1, n2 := len(a), len(b)
	if n1+n2 == 0 {
		return 0
	}
	var common, only1, only2 float64
	i, j := 0, 0
	for i < n1 && j < n2 {
		switch x, y := a[i], b[j]; {
		case x.key < y.key:
			only1 += x.ln
			i++
		case x.key > y.key:
			only2 += y.ln
			j++
		default:
			d := 1 + x.pos - y.pos
			if d < 0 {
				d = -d
			}
			common += (x.ln - y.ln) * float64(d)
			i++
			j++
		}
	}
	for ; i < n1; i++ {
		only1 += a[i].ln
	}
	for ; j < n2; j++ {
		only2 += b[j].ln
	}
	sum := common + only1*float64(1+n2) + only2*float64(1+n1)
	return sum / (float64(n1+n2) / 2)
}

// firstShared returns the smallest key a and b share, and whether they share
// one.
func firstShared(a, b []entry) (uint64, bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch x, y := a[i].key, b[j].key; {
		case x < y:
			i++
		case x > y:
			j++
		default:
			return x, true
		}
	}
	return 0, false
}

// Common is one row of the paper's Tables 3.3 and 3.9: a keyword in both
// tables.
type Common struct {
	Keyword string
	X, Y    int     // term frequencies in T1 (new) and T2 (stored)
	A, B    int     // indexes in T1 and T2
	S       float64 // S_Dc = ln(X/Y) · |1 + (A − B)|
}

// Only is one row of the paper's Tables 3.4, 3.5, 3.10 and 3.11: a keyword in
// one table only.
type Only struct {
	Keyword string
	TF      int
	S       float64 // S_DT1 = ln(TF)·(1+|T2|), or S_DT2 = ln(TF)·(1+|T1|)
}

// Breakdown is SSM's computation row by row, as the paper prints it.
type Breakdown struct {
	Common     []Common // keywords in both, in T1's index order (Tables 3.3, 3.9)
	OnlyNew    []Only   // keywords only in T1, in its index order (Tables 3.4, 3.10)
	OnlyStored []Only   // keywords only in T2, in its index order (Tables 3.5, 3.11)
	Sum        float64  // ΣS_Dc + ΣS_DT1 + ΣS_DT2 (Tables 3.6, 3.12)
	N          float64  // (|T1| + |T2|) / 2
	SSM        float64  // Sum / N
}

// Explain returns SSM(newDoc, stored) with every term of the sum, for tests
// and for showing why two pages matched. Its SSM equals SSM's up to rounding
// (the terms are added in another order).
func Explain(newDoc, stored Table) Breakdown {
	var br Breakdown
	n1, n2 := newDoc.Len(), stored.Len()
	for a, t := range newDoc.terms {
		b := stored.Index(t.Text)
		if b == 0 {
			s := math.Log(float64(t.Count)) * float64(1+n2)
			br.OnlyNew = append(br.OnlyNew, Only{t.Text, t.Count, s})
			br.Sum += s
			continue
		}
		y := stored.terms[b-1].Count
		s := math.Log(float64(t.Count)/float64(y)) * math.Abs(float64(1+(a+1)-b))
		br.Common = append(br.Common, Common{t.Text, t.Count, y, a + 1, b, s})
		br.Sum += s
	}
	for _, t := range stored.terms {
		if newDoc.Index(t.Text) == 0 {
			s := math.Log(float64(t.Count)) * float64(1+n1)
			br.OnlyStored = append(br.OnlyStored, Only{t.Text, t.Count, s})
			br.Sum += s
		}
	}
	br.N = float64(n1+n2) / 2
	if br.N > 0 {
		br.SSM = br.Sum / br.N
	}
	return br
}
