package shingle

import (
	"fmt"
	"math"
	"slices"

	"github.com/neardup/neardup"
)

// Form selects how the per-pattern differences of a k group are summed.
// The zero value is Normalized, the scale-free form that works as shipped on
// pages of any length; Equation and TableForm reproduce the paper.
type Form int

const (
	// Normalized is a scale-free form of Eq. (1), beyond the paper, and the
	// default: Eq. (1) divided by the total weight of the two vectors,
	//
	//	D(d, d') = Eq. (1)(d, d') / (S_d + S_d'),   S_d = Σ_p (k/M)·norm_d(p)
	//
	// It lies in [0, 1] (|x − y| ≤ x + y for the non-negative terms): 0 for
	// equal vectors, 1 for vectors that share no pattern, and equals
	// 1 − 2·Σ_p min(s_d(p), s_d'(p)) / (S_d + S_d'), one minus a weighted Dice
	// coefficient. Eq. (1) grows with the square root of a page's pattern
	// count; this form does not, so one threshold (DefaultThreshold) fits
	// short and long pages alike. It is symmetric but, unlike Equation, not a
	// metric.
	Normalized Form = iota
	// Equation is Eq. (1) of the paper as printed:
	//
	//	D(d, d') = Σ_k (k/M) · Σ_{p in group k} |norm_d(p) − norm_d'(p)|
	//
	// It is a weighted L1 distance: 0 for equal vectors, symmetric, and it
	// obeys the triangle inequality. Its values grow with page length (see
	// the package documentation, "Forms and thresholds").
	Equation
	// TableForm is the form that reproduces the paper's Table 4 (0.333,
	// 0.082, 0.250): the absolute value of the signed sum per k group,
	//
	//	D(d, d') = Σ_k (k/M) · |Σ_{p in group k} (norm_d(p) − norm_d'(p))|
	//
	// Patterns the two documents share and patterns they do not share cancel
	// alike, so it equals Σ_k |GroupSum_d(k) − GroupSum_d'(k)|: it compares
	// how much weight each group holds, not which patterns. It is never
	// larger than Equation. On real pages it says little more than "the two
	// pages have about as many distinct patterns"; use it to reproduce the
	// paper, not to deduplicate.
	TableForm
)

// Measure returns the neardup.Measure of dissimilarities in form f:
// "shingle-normalized", "shingle-equation" or "shingle-table".
func (f Form) Measure() neardup.Measure {
	return neardup.Measure("shingle-" + f.String())
}

// String returns "equation", "table" or "normalized".
func (f Form) String() string {
	switch f {
	case Equation:
		return "equation"
	case TableForm:
		return "table"
	case Normalized:
		return "normalized"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Dissimilarity returns the weighted dissimilarity of a and b in form f.
// It is 0 for identical vectors and symmetric. It returns +Inf, which is
// never below a threshold, when a or b is nil (Dissimilarity(nil, nil)
// too), when they were built with different M, or when f is not a Form of
// this package; never NaN.
//
// Equation and Normalized cost one merge of the two sorted vectors,
// O(a.Len() + b.Len()), TableForm O(M); none allocates.
func Dissimilarity(a, b *Vector, f Form) float64 {
	if a == nil || b == nil || a.m != b.m {
		return math.Inf(1)
	}
	if (a.sampled() || b.sampled()) && f != TableForm {
		return estimate(a, b, f)
	}
	switch f {
	case Equation:
		return equation(a, b)
	case TableForm:
		return tableForm(a, b)
	case Normalized:
		return normalized(a, b)
	}
	return math.Inf(1)
}

// equation computes Eq. (1) as Ta + Tb − 2·Σ_{shared p} min(sa(p), sb(p)),
// which equals Σ over the union of |sa(p) − sb(p)| since
// |x − y| = x + y − 2·min(x, y) and an absent pattern weighs 0. The merge so
// only has to find the shared keys.
func equation(a, b *Vector) float64 {
	ak, as := a.keys, a.s
	bk, bs := b.keys, b.s
	var shared float64
	i, j := 0, 0
	for i < len(ak) && j < len(bk) {
		x, y := ak[i], bk[j]
		if x == y {
			shared += float64(min(as[i], bs[j]))
		}
		if x <= y {
			i++
		}
		if y <= x {
			j++
		}
	}
	return max(0, a.total+b.total-2*shared)
}

// equationBelow returns Eq. (1) of a and b and whether it is below bound. It
// merges as equation does, so a value it returns with true is equation(a, b)
// bit for bit, but it stops (returning false and a value ≥ bound) as soon as
// the keys merged so far prove the value is not below bound: the shared weight
// still to come is at most the smaller of the two unmerged weights.
func equationBelow(a, b *Vector, bound float64) (float64, bool) {
	ak, as := a.keys, a.s
	bk, bs := b.keys, b.s
	ta, tb := a.total, b.total
	slack := bound + 1e-9*(ta+tb) // rounding margin: never stop on a pair below bound
	var shared, doneA, doneB float64
	i, j := 0, 0
	for n := 0; i < len(ak) && j < len(bk); n++ {
		if n&15 == 15 {
			if lb := ta + tb - 2*(shared+min(ta-doneA, tb-doneB)); lb >= slack {
				return lb, false
			}
		}
		x, y := ak[i], bk[j]
		if x == y {
			shared += float64(min(as[i], bs[j]))
		}
		if x <= y {
			doneA += float64(as[i])
			i++
		}
		if y <= x {
			doneB += float64(bs[j])
			j++
		}
	}
	d := max(0, ta+tb-2*shared)
	return d, d < bound
}

// normalized computes the Normalized form: Eq. (1) over the two totals. A
// Vector has at least one pattern, so the totals are positive; the result is
// in [0, 1] also in floating point (equation returns at most the sum).
func normalized(a, b *Vector) float64 {
	return equation(a, b) / (a.total + b.total)
}

// tableForm computes the Table 4 form from the group sums.
func tableForm(a, b *Vector) float64 {
	var d float64
	for k := range a.sums {
		d += math.Abs(a.sums[k] - b.sums[k])
	}
	return d
}

// lowerBound returns a value never larger than Dissimilarity(a, b, Equation)
// nor Dissimilarity(a, b, TableForm), in O(M): the TableForm value itself
// (the absolute value of a sum is at most the sum of absolute values).
// Divided by a.total + b.total it is a lower bound of the Normalized form,
// and never below its length bound |S_a − S_b| / (S_a + S_b).
func lowerBound(a, b *Vector) float64 { return tableForm(a, b) }

// equationBounded returns Eq. (1) for a and b, or, as soon as the partial sum
// over the patterns merged so far reaches bound, that partial sum: a value
// ≥ bound and ≤ the true dissimilarity.
func equationBounded(a, b *Vector, bound float64) float64 {
	ak, as := a.keys, a.s
	bk, bs := b.keys, b.s
	var sum float64
	i, j := 0, 0
	for i < len(ak) && j < len(bk) {
		if (i+j)&127 == 0 && sum >= bound {
			return sum
		}
		x, y := ak[i], bk[j]
		switch {
		case x == y:
			sum += math.Abs(float64(as[i]) - float64(bs[j]))
			i++
			j++
		case x < y:
			sum += float64(as[i])
			i++
		default:
			sum += float64(bs[j])
			j++
		}
	}
	for ; i < len(ak); i++ {
		sum += float64(as[i])
	}
	for ; j < len(bk); j++ {
		sum += float64(bs[j])
	}
	return sum
}

// estimate returns Equation or Normalized for a and b when either holds only
// a sample of its page (Options.MaxPatterns): both are complete below
// τ = min(cut_a, cut_b), so the form is computed over the patterns whose
// hash is ≤ τ, a uniform random sample of the union of the two pages'
// patterns, and Equation is scaled from those patterns' weight to the pages'
// totals. It is an estimate (a ratio of sums over about MaxPatterns
// patterns), not the exact value; Normalized stays in [0, 1].
func estimate(a, b *Vector, f Form) float64 {
	tau := min(a.cut, b.cut)
	ak, as := a.keys, a.s
	bk, bs := b.keys, b.s
	var sa, sb, shared float64
	i, j := 0, 0
	for {
		// Within a k group keys ascend by hash: past τ, skip to the next group.
		if i < len(ak) && hashOf(ak[i]) > tau {
			i = nextGroup(ak, i)
			continue
		}
		if j < len(bk) && hashOf(bk[j]) > tau {
			j = nextGroup(bk, j)
			continue
		}
		if i == len(ak) && j == len(bk) {
			break
		}
		var x, y uint64 = math.MaxUint64, math.MaxUint64
		if i < len(ak) {
			x = ak[i]
		}
		if j < len(bk) {
			y = bk[j]
		}
		if x <= y {
			sa += float64(as[i])
			if x == y {
				shared += float64(min(as[i], bs[j]))
			}
			i++
		}
		if y <= x {
			sb += float64(bs[j])
			j++
		}
	}
	if sa+sb == 0 {
		return math.Inf(1) // cannot happen: a sample holds the pattern at its cut
	}
	d := max(0, (sa+sb-2*shared)/(sa+sb))
	if f == Equation {
		return d * (a.total + b.total)
	}
	return d
}

// nextGroup returns the index of the first of keys[i:] in a later k group
// than keys[i] (keys sorted ascending, the group in the top bits), or
// len(keys).
func nextGroup(keys []uint64, i int) int {
	g := keys[i] >> kShift
	if g == 1<<(64-kShift)-1 {
		return len(keys)
	}
	n, _ := slices.BinarySearch(keys[i:], (g+1)<<kShift)
	return i + n
}
