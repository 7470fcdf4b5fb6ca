package shingle

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// table2 returns the pattern counts of Khan et al.'s Table 2 for document col
// (0 = D1, 1 = D2, 2 = D3), m = 3.
func table2(t *testing.T, col int) *Vector {
	t.Helper()
	rows := []struct {
		p  string
		tf [3]int
	}{
		{"web", [3]int{5, 6, 8}},
		{"content", [3]int{9, 7, 7}},
		{"outlier", [3]int{8, 5, 9}},
		{"mining", [3]int{6, 5, 6}},
		{"web content", [3]int{4, 4, 6}},
		{"content outlier", [3]int{6, 4, 5}},
		{"outlier mining", [3]int{5, 3, 5}},
		{"web content outlier", [3]int{2, 2, 3}},
		{"content outlier mining", [3]int{0, 2, 1}},
	}
	var counts []PatternCount
	for _, r := range rows {
		counts = append(counts, PatternCount{Pattern: strings.Fields(r.p), Count: r.tf[col]})
	}
	v, err := FromCounts(3, counts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestTable1Shingles(t *testing.T) {
	tokens := strings.Fields("New Delhi is the capital of India")
	want := map[int][]string{
		1: {"New", "Delhi", "is", "the", "capital", "of", "India"},
		2: {"New Delhi", "Delhi is", "is the", "the capital", "capital of", "of India"},
		3: {"New Delhi is", "Delhi is the", "is the capital", "the capital of", "capital of India"},
	}
	for k := 1; k <= 3; k++ {
		var got []string
		for _, s := range Shingles(tokens, k) {
			got = append(got, strings.Join(s, " "))
		}
		if !reflect.DeepEqual(got, want[k]) {
			t.Errorf("k = %d: got %q, want %q", k, got, want[k])
		}
	}
	if got := Shingles(tokens, 8); got != nil {
		t.Errorf("k > len(tokens): got %q, want nil", got)
	}
	if got := Shingles(tokens, 0); got != nil {
		t.Errorf("k = 0: got %q, want nil", got)
	}
}

func TestTable3Weights(t *testing.T) {
	// Table 3, length normalisation of D1 (P1..P9 in table order).
	want := map[string]float64{
		"web": 0.348, "content": 0.401, "outlier": 0.390, "mining": 0.365,
		"web content": 0.328, "content outlier": 0.365, "outlier mining": 0.348,
		"web content outlier": 0.267,
	}
	v := table2(t, 0)
	if v.Len() != len(want) {
		t.Fatalf("D1 has %d patterns, want %d (P9 has tf 0)", v.Len(), len(want))
	}
	for p, w := range want {
		key := PatternKey(strings.Fields(p))
		found := false
		for i := range v.Len() {
			if k, _, got := v.Pattern(i); k == key {
				found = true
				if math.Abs(got-w) > 0.001 {
					t.Errorf("norm(%q) = %.4f, want %.3f", p, got, w)
				}
			}
		}
		if !found {
			t.Errorf("pattern %q missing", p)
		}
	}
}

func TestTable4(t *testing.T) {
	d := []*Vector{table2(t, 0), table2(t, 1), table2(t, 2)}
	pairs := []struct {
		a, b       int
		table, eqn float64
		groups     [3]float64 // Table 4 rows k = 1, 2, 3
	}{
		{0, 1, 0.333, 0.355, [3]float64{0.014, 0.044, 0.275}},
		{1, 2, 0.082, 0.140, [3]float64{0.000, 0.025, 0.057}},
		{0, 2, 0.250, 0.292, [3]float64{0.013, 0.019, 0.218}},
	}
	for _, p := range pairs {
		a, b := d[p.a], d[p.b]
		if got := Dissimilarity(a, b, TableForm); math.Abs(got-p.table) > 0.001 {
			t.Errorf("TableForm(D%d, D%d) = %.4f, want %.3f", p.a+1, p.b+1, got, p.table)
		}
		if got := Dissimilarity(a, b, Equation); math.Abs(got-p.eqn) > 0.001 {
			t.Errorf("Equation(D%d, D%d) = %.4f, want %.3f", p.a+1, p.b+1, got, p.eqn)
		}
		for k := 1; k <= 3; k++ {
			if got := math.Abs(a.GroupSum(k) - b.GroupSum(k)); math.Abs(got-p.groups[k-1]) > 0.001 {
				t.Errorf("Table 4 row k = %d (D%d, D%d) = %.4f, want %.3f", k, p.a+1, p.b+1, got, p.groups[k-1])
			}
		}
		if Dissimilarity(a, b, Equation) != Dissimilarity(b, a, Equation) {
			t.Errorf("Equation not symmetric on D%d, D%d", p.a+1, p.b+1)
		}
	}
}

// TestTable4Normalized checks the Normalized form on the Table 2 vectors
// against values computed by hand: the printed Eq. (1) values (0.355, 0.140,
// 0.292, see TestTable4) over the sum of the two documents' group sums. From
// Table 3, D1's group sums are (0.348+0.401+0.390+0.365)/3 = 0.501,
// (0.328+0.365+0.348)·2/3 = 0.694 and 0.267, so S1 = 1.462; likewise
// S2 = 0.488+0.650+0.542 = 1.680 and S3 = 0.488+0.675+0.485 = 1.648.
func TestTable4Normalized(t *testing.T) {
	d := []*Vector{table2(t, 0), table2(t, 1), table2(t, 2)}
	for i, s := range []float64{1.462, 1.680, 1.648} {
		if got := d[i].GroupSum(1) + d[i].GroupSum(2) + d[i].GroupSum(3); math.Abs(got-s) > 0.001 {
			t.Errorf("S%d = %.4f, want %.3f", i+1, got, s)
		}
	}
	for _, p := range []struct {
		a, b int
		want float64
	}{
		{0, 1, 0.355 / (1.462 + 1.680)}, // 0.113
		{1, 2, 0.140 / (1.680 + 1.648)}, // 0.042
		{0, 2, 0.292 / (1.462 + 1.648)}, // 0.094
	} {
		got := Dissimilarity(d[p.a], d[p.b], Normalized)
		if math.Abs(got-p.want) > 0.0005 {
			t.Errorf("Normalized(D%d, D%d) = %.4f, want %.3f", p.a+1, p.b+1, got, p.want)
		}
		if got != Dissimilarity(d[p.b], d[p.a], Normalized) {
			t.Errorf("Normalized not symmetric on D%d, D%d", p.a+1, p.b+1)
		}
	}
}
