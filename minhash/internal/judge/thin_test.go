package judge

import (
	"math"
	"testing"

	"github.com/neardup/neardup/minhash/internal/sketch"
)

func seq(lo, hi uint32) sketch.Sketch {
	var s sketch.Sketch
	for h := lo; h <= hi; h++ {
		s = append(s, h)
	}
	return s
}

// TestThinDistance: two small whole sets are discounted by one token's
// shingles in their union; samples of larger sets are not.
func TestThinDistance(t *testing.T) {
	a, b := Sample{seq(1, 9), sketch.Whole}, Sample{seq(4, 12), sketch.Whole} // 12 in the union, 6 shared
	if d := Distance(a, b); math.Abs(d-0.5) > 1e-9 {
		t.Fatalf("distance = %v, want 0.5", d)
	}
	if d := thinDistance(a, b); math.Abs(d-(1-6.0/(12+thinShingles))) > 1e-9 {
		t.Errorf("thinDistance = %v, want %v", d, 1-6.0/(12+thinShingles))
	}
	big1, big2 := Sample{seq(1, 100), sketch.Whole}, Sample{seq(41, 140), sketch.Whole} // 140 in the union, 60 shared
	if d, want := thinDistance(big1, big2), 1-60.0/(140+thinShingles); math.Abs(d-want) > 1e-9 || d-Distance(big1, big2) > 0.02 {
		t.Errorf("thinDistance of large sets = %v, want %v (within 0.02 of %v)", d, want, Distance(big1, big2))
	}
	full1, full2 := Sample{seq(1, 9), 9}, Sample{seq(4, 12), 12} // samples of larger sets
	if d, want := thinDistance(full1, full2), Distance(full1, full2); d != want {
		t.Errorf("thinDistance of sketches = %v, want the estimate %v", d, want)
	}
	if d := thinDistance(Sample{seq(1, 3), sketch.Whole}, Sample{seq(1, 3), sketch.Whole}); d != 0 {
		t.Errorf("thinDistance of equal sets = %v, want 0", d)
	}
}
