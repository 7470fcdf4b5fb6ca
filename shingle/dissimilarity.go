package shingle

import (
	"fmt"
	"math"
)

// Form selects how the per-pattern differences of a k group are summed.
// The zero value is Equation, the paper's Eq. (1) as printed.
type Form int

const (
	// Equation is Eq. (1) of seed 004 as printed:
	//
	//	D(d, d') = Σ_k (k/M) · Σ_{p in group k} |norm_d(p) − norm_d'(p)|
	//
	// It is a weighted L1 distance: 0 for equal vectors, symmetric, and it
	// obeys the triangle inequality.
	Equation Form = iota
	// TableForm is the form that reproduces seed 004 Table 4 (0.333, 0.082,
	// 0.250): the absolute value of the signed sum per k group,
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

// String returns "equation" or "table".
func (f Form) String() string {
	switch f {
	case Equation:
		return "equation"
	case TableForm:
		return "table"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Dissimilarity returns the weighted dissimilarity of a and b in form f.
// It is 0 for identical vectors and symmetric. It returns NaN, which is never
// below a threshold, when a or b is nil, when they were built with different
// M, or when f is not a Form of this package.
//
// Equation costs one merge of the two sorted vectors, O(a.Len() + b.Len()),
// TableForm O(M); neither allocates.
func Dissimilarity(a, b *Vector, f Form) float64 {
	if a == nil || b == nil || a.m != b.m {
		return math.NaN()
	}
	switch f {
	case Equation:
		return equation(a, b)
	case TableForm:
		return tableForm(a, b)
	}
	return math.NaN()
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
