package minhash

import (
	"math"
	"testing"
)

func seq(lo, hi uint32) Sketch {
	var s Sketch
	for h := lo; h <= hi; h++ {
		s = append(s, h)
	}
	return s
}

// TestThinDistance: two small whole sets are discounted by one token's
// shingles in their union; samples of larger sets are not.
func TestThinDistance(t *testing.T) {
	a, b := sample{seq(1, 9), whole}, sample{seq(4, 12), whole} // 12 in the union, 6 shared
	if d := distance(a, b); math.Abs(d-0.5) > 1e-9 {
		t.Fatalf("distance = %v, want 0.5", d)
	}
	if d := thinDistance(a, b); math.Abs(d-(1-6.0/(12+thinShingles))) > 1e-9 {
		t.Errorf("thinDistance = %v, want %v", d, 1-6.0/(12+thinShingles))
	}
	big1, big2 := sample{seq(1, 100), whole}, sample{seq(41, 140), whole} // 140 in the union, 60 shared
	if d, want := thinDistance(big1, big2), 1-60.0/(140+thinShingles); math.Abs(d-want) > 1e-9 || d-distance(big1, big2) > 0.02 {
		t.Errorf("thinDistance of large sets = %v, want %v (within 0.02 of %v)", d, want, distance(big1, big2))
	}
	full1, full2 := sample{seq(1, 9), 9}, sample{seq(4, 12), 12} // samples of larger sets
	if d, want := thinDistance(full1, full2), distance(full1, full2); d != want {
		t.Errorf("thinDistance of sketches = %v, want the estimate %v", d, want)
	}
	if d := thinDistance(sample{seq(1, 3), whole}, sample{seq(1, 3), whole}); d != 0 {
		t.Errorf("thinDistance of equal sets = %v, want 0", d)
	}
}
