package editdist

import (
	"fmt"
	"math"

	"github.com/neardup/neardup"
)

// Default thresholds of Definition 4. They are not the paper's (PaperAlpha,
// PaperEpsilon; it does not print β): they were chosen on labelled Chinese
// corpora the paper's authors never saw, leaving one corpus out, so that
// recall holds at high precision on pages the defaults were not tuned on
// (docs/BENCHMARKS.md has the measurements).
const (
	// DefaultAlpha is α, the least overlap factor of the shorter feature
	// string for pages of different hosts: 0.6.
	DefaultAlpha = 0.6
	// DefaultEpsilon is ε, what α grows by for two pages of the same host:
	// 0.3, so same-host pages, which share a template, need α + ε = 0.9.
	DefaultEpsilon = 0.3
	// DefaultBeta is β, the least overlap factor of the longer feature
	// string: 0.3, so a page is never a duplicate of one with more than
	// 1/0.3 ≈ 3.3 times its feature characters.
	DefaultBeta = 0.3
)

// The paper's thresholds (Table III): Thresholds{Alpha: PaperAlpha,
// Epsilon: PaperEpsilon} is its method as printed, with DefaultBeta for the
// β it does not show.
const (
	// PaperAlpha is the paper's α, 0.8.
	PaperAlpha = 0.8
	// PaperEpsilon is the paper's ε, 0.2: same-host pages need α + ε = 1,
	// the shorter feature string kept whole.
	PaperEpsilon = 0.2
)

// NoHostRule, as Thresholds.Epsilon, makes α the same for pages of the same
// host and of different hosts (ε = 0).
const NoHostRule = -1.0

// Thresholds are α, β and ε of Definition 4. The zero value means the
// defaults (DefaultAlpha, DefaultBeta, DefaultEpsilon).
type Thresholds struct {
	// Alpha is α, in (0, 1]; zero means DefaultAlpha.
	Alpha float64
	// Beta is β, in (0, α]; zero means DefaultBeta (or α when α is
	// smaller).
	Beta float64
	// Epsilon is ε, in (0, 1 − α]; zero means DefaultEpsilon (or 1 − α
	// when that is smaller), NoHostRule (any negative value) means 0.
	Epsilon float64
}

// resolve fills in the defaults and validates t.
func (t Thresholds) resolve() (Thresholds, error) {
	bad := func(name string, v float64, want string) (Thresholds, error) {
		return t, fmt.Errorf("editdist: Thresholds.%s = %v, want %s: %w", name, v, want, neardup.ErrInvalidOption)
	}
	if t.Alpha == 0 {
		t.Alpha = DefaultAlpha
	}
	if !(t.Alpha > 0 && t.Alpha <= 1) {
		return bad("Alpha", t.Alpha, "0 < α ≤ 1")
	}
	if t.Beta == 0 {
		t.Beta = min(DefaultBeta, t.Alpha)
	}
	if !(t.Beta > 0 && t.Beta <= t.Alpha) {
		return bad("Beta", t.Beta, fmt.Sprintf("0 < β ≤ α = %v", t.Alpha))
	}
	switch {
	case t.Epsilon == 0:
		t.Epsilon = min(DefaultEpsilon, 1-t.Alpha)
	case t.Epsilon < 0:
		t.Epsilon = 0
	case !(t.Alpha+t.Epsilon <= 1):
		return bad("Epsilon", t.Epsilon, fmt.Sprintf("0 < ε ≤ 1 − α = %v", 1-t.Alpha))
	}
	return t, nil
}

// LCC is Definition 2, the largest common number of characters of feature
// strings at edit distance edit, the longer of length m: m − edit. By
// Property 1 (m − n ≤ edit ≤ m, n the shorter length) it lies in [0, n]
// (Property 2).
func LCC(m, edit int) int { return m - edit }

// OverlapFactors are Definition 3's LCC/n and LCC/m for feature strings
// Sour (the shorter, length n) and Dest (length m ≥ n). They are 0 when a
// string is empty.
func OverlapFactors(lcc, n, m int) (sour, dest float64) {
	if n > 0 {
		sour = float64(lcc) / float64(n)
	}
	if m > 0 {
		dest = float64(lcc) / float64(m)
	}
	return sour, dest
}

// alpha returns α' of Definition 4: α, or α + ε for two pages of one host.
func (t Thresholds) alpha(sameHost bool) float64 {
	if sameHost {
		return t.Alpha + t.Epsilon
	}
	return t.Alpha
}

// duplicate is Definition 4 for resolved thresholds: OverlapFactor_Sour ≥ α'
// and OverlapFactor_Dest ≥ β. n must be positive.
func (t Thresholds) duplicate(lcc, n, m int, sameHost bool) bool {
	sour, dest := OverlapFactors(lcc, n, m)
	return sour >= t.alpha(sameHost) && dest >= t.Beta
}

// Duplicate is Definition 4: whether feature strings of lengths a and b at
// edit distance edit belong to duplicate pages, α' depending on whether
// the pages share a host. Sour is the shorter string whichever of a and b it
// is. Empty strings are never duplicates (the method cannot decide them).
// Invalid thresholds return an error wrapping neardup.ErrInvalidOption.
func (t Thresholds) Duplicate(a, b, edit int, sameHost bool) (bool, error) {
	r, err := t.resolve()
	if err != nil {
		return false, err
	}
	n, m := min(a, b), max(a, b)
	if n <= 0 || edit < m-n || edit > m {
		return false, nil
	}
	return r.duplicate(LCC(m, edit), n, m, sameHost), nil
}

// maxEdit returns the largest edit distance at which feature strings of
// lengths n ≤ m (n > 0) are duplicates under resolved thresholds, or −1
// when none is: the bound for Pattern.Within. It evaluates Definition 4
// with the same floating-point expressions as duplicate, so the bounded
// decision and the exact one never differ.
func (t Thresholds) maxEdit(n, m int, sameHost bool) int {
	// The least LCC that passes, from the real bound, corrected by the
	// exact test (the test is monotone in LCC).
	lcc := int(math.Ceil(max(t.alpha(sameHost)*float64(n), t.Beta*float64(m))))
	lcc = max(0, min(lcc, n+1))
	for lcc > 0 && t.duplicate(lcc-1, n, m, sameHost) {
		lcc--
	}
	for lcc <= n && !t.duplicate(lcc, n, m, sameHost) {
		lcc++
	}
	if lcc > n {
		return -1
	}
	return m - lcc
}

// Decide computes the edit distance of feature strings a and b, bounded
// by what Definition 4 allows, and returns whether their pages are
// duplicates and, when they are, the distance. It equals computing the
// distance in full and applying Duplicate, at the cost of the bounded
// computation only (Pattern.Within): unequal lengths that cannot pass are
// rejected without computing anything.
func (t Thresholds) Decide(a, b []rune, sameHost bool) (dup bool, edit int, err error) {
	r, err := t.resolve()
	if err != nil {
		return false, 0, err
	}
	dup, edit = r.decide(a, b, sameHost)
	return dup, edit, nil
}

// decide is Decide for resolved thresholds.
func (t Thresholds) decide(a, b []rune, sameHost bool) (dup bool, edit int) {
	if len(a) > len(b) {
		a, b = b, a
	}
	n, m := len(a), len(b)
	if n == 0 {
		return false, 0
	}
	k := t.maxEdit(n, m, sameHost)
	if k < m-n {
		return false, 0
	}
	d, ok := Compile(a).Within(b, k)
	return ok, d
}
