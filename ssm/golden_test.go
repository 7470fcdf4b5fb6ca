package ssm

import (
	"math"
	"testing"

	"github.com/neardup/neardup/preprocess"
)

// The worked examples of Zaheer, Narayana and Sreevani (2019), §3.7. Rows are
// (keyword, term frequency) in the paper's index order.

// Table 3.1 (and 3.7): keywords from Document 1.
var table31 = []preprocess.Term{
	tt("Mine", 221), tt("Data", 199), tt("Algorithm", 180), tt("Knowledge", 179), tt("Extract", 150),
	tt("Clean", 100), tt("Process", 70), tt("Integrate", 55), tt("Value", 40), tt("Insight", 22),
}

// Table 3.2: keywords from Document 2.
var table32 = []preprocess.Term{
	tt("Hadoop", 190), tt("Framework", 188), tt("Process", 177), tt("Clean", 176), tt("Data", 150),
	tt("Parallel", 101), tt("Compute", 99), tt("Insight", 67), tt("Component", 66), tt("Value", 56),
}

// Table 3.7 as the paper computed with it (Tables 3.9, 3.10): "Process" has
// tf 60 and "Knowledge" 160, where Table 3.7 prints 70 and 179. The indexes
// do not change.
var table37Computed = []preprocess.Term{
	tt("Mine", 221), tt("Data", 199), tt("Algorithm", 180), tt("Knowledge", 160), tt("Extract", 150),
	tt("Clean", 100), tt("Process", 60), tt("Integrate", 55), tt("Value", 40), tt("Insight", 22),
}

// Table 3.8: keywords from Document 2 of the second example.
var table38 = []preprocess.Term{
	tt("Clean", 191), tt("Integrate", 190), tt("Data", 188), tt("Component", 150), tt("Extract", 145),
	tt("Process", 78), tt("Mine", 60), tt("Compute", 55), tt("Insight", 54), tt("Algorithm", 43),
}

// tt is one row of a keyword table.
func tt(text string, tf int) preprocess.Term { return preprocess.Term{Text: text, Count: tf} }

const tol = 0.0001 // the paper prints four decimals

// paperCutoff is a cut-off the paper's two examples agree with: it prints
// none, but calls 19.5865 near and 52.6368 not. The package default
// (DefaultCutoff, 7, chosen on labelled corpora) calls both pages different: the
// paper's example tables, with term frequencies in the hundreds, are far from
// the tables of real pages.
const paperCutoff = 36

func mustTable(t *testing.T, terms []preprocess.Term) Table {
	t.Helper()
	tab, err := NewTable(terms)
	if err != nil {
		t.Fatal(err)
	}
	for i, term := range terms {
		if got := tab.Index(term.Text); got != i+1 {
			t.Fatalf("index of %q = %d, want %d (the paper's)", term.Text, got, i+1)
		}
	}
	return tab
}

func near(a, b float64) bool { return math.Abs(a-b) <= tol }

func checkCommon(t *testing.T, name string, got []Common, want []Common) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %+v", name, len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Keyword != w.Keyword || g.X != w.X || g.Y != w.Y || g.A != w.A || g.B != w.B || !near(g.S, w.S) {
			t.Errorf("%s row %d = %+v, want %+v", name, i+1, g, w)
		}
	}
}

func checkOnly(t *testing.T, name string, got []Only, want []Only) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %+v", name, len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Keyword != w.Keyword || g.TF != w.TF || !near(g.S, w.S) {
			t.Errorf("%s row %d = %+v, want %+v", name, i+1, g, w)
		}
	}
}

// TestGoldenNotDuplicate reproduces Tables 3.1–3.6: SSM = 52.6368, above the
// cut-off. Deviations from the printed tables:
//   - Table 3.4 prints tf 211 for "Mine"; its S_DT1 = 59.3797 is ln(221)·11,
//     the tf of Table 3.1, which is used here.
//   - Table 3.3 prints S_Dc(Value) as "-0.0": ln(40/56)·|1+(9−10)| is 0.
//   - Table 3.6 prints the sum 526.3638, a typo for 526.3684 (its SSM,
//     52.6368, is 526.368/10).
func TestGoldenNotDuplicate(t *testing.T) {
	t1, t2 := mustTable(t, table31), mustTable(t, table32)
	br := Explain(t1, t2)
	checkCommon(t, "Table 3.3", br.Common, []Common{
		{"Data", 199, 150, 2, 5, 0.5653},
		{"Clean", 100, 176, 6, 4, -1.6959},
		{"Process", 70, 177, 7, 3, -4.6382},
		{"Value", 40, 56, 9, 10, 0},
		{"Insight", 22, 67, 10, 8, -3.3409},
	})
	checkOnly(t, "Table 3.4", br.OnlyNew, []Only{
		{"Mine", 221, 59.3797}, // printed with tf 211
		{"Algorithm", 180, 57.1225},
		{"Knowledge", 179, 57.0612},
		{"Extract", 150, 55.1169},
		{"Integrate", 55, 44.0806},
	})
	checkOnly(t, "Table 3.5", br.OnlyStored, []Only{
		{"Hadoop", 190, 57.7172},
		{"Framework", 188, 57.6008},
		{"Parallel", 101, 50.7663},
		{"Compute", 99, 50.5463},
		{"Component", 66, 46.0862},
	})
	if !near(br.Sum, 526.3684) || br.N != 10 || !near(br.SSM, 52.6368) {
		t.Errorf("Table 3.6: Sum %.4f N %v SSM %.4f, want 526.3684 (printed 526.3638), 10, 52.6368", br.Sum, br.N, br.SSM)
	}
	if got := SSM(t1, t2); !near(got, 52.6368) {
		t.Errorf("SSM = %.6f, want 52.6368", got)
	}
	if got := SSM(t1, t2); math.Abs(got-br.SSM) > 1e-9 {
		t.Errorf("SSM = %v, Explain = %v", got, br.SSM)
	}
	if _, ok := (Options{Cutoff: paperCutoff}).near(SSM(t1, t2)); ok {
		t.Errorf("SSM %.4f is below a cut-off of %v: the paper's non-duplicate would match", SSM(t1, t2), paperCutoff)
	}
}

// TestGoldenDuplicate reproduces Tables 3.7–3.12: SSM = 19.5865 (printed
// 19.5864), a near-duplicate, computed as the paper did. Deviations from the
// printed tables:
//   - "Process" has tf 60 in T1 (Table 3.9's row and S_Dc = −0.5247 =
//     ln(60/78)·2), where Table 3.7 prints 70.
//   - "Knowledge" has tf 160 (Table 3.10's row and S_DT1 = 55.8269 =
//     ln(160)·11), where Table 3.7 prints 179.
//   - S_Dc(Insight) = ln(22/54)·|1+(10−9)| = −1.7958; Table 3.9 prints 1.7958
//     without the minus, but its sum 195.8647 includes −1.7958.
//
// Table 3.12's SSM, 19.5864, truncates 19.58646.
func TestGoldenDuplicate(t *testing.T) {
	t1, t2 := mustTable(t, table37Computed), mustTable(t, table38)
	br := Explain(t1, t2)
	checkCommon(t, "Table 3.9", br.Common, []Common{
		{"Mine", 221, 60, 1, 7, 6.5190},
		{"Data", 199, 188, 2, 3, 0},
		{"Algorithm", 180, 43, 3, 10, 8.5905},
		{"Extract", 150, 145, 5, 5, 0.0339},
		{"Clean", 100, 191, 6, 1, -3.8826},
		{"Process", 60, 78, 7, 6, -0.5247}, // Table 3.7 prints tf 70
		{"Integrate", 55, 190, 8, 2, -8.6778},
		{"Insight", 22, 54, 10, 9, -1.7958}, // printed without the minus
	})
	checkOnly(t, "Table 3.10", br.OnlyNew, []Only{
		{"Knowledge", 160, 55.8269}, // Table 3.7 prints tf 179
		{"Value", 40, 40.5776},
	})
	checkOnly(t, "Table 3.11", br.OnlyStored, []Only{
		{"Component", 150, 55.1169},
		{"Compute", 55, 44.0806},
	})
	if !near(br.Sum, 195.8647) || br.N != 10 || !near(br.SSM, 19.5865) {
		t.Errorf("Table 3.12: Sum %.4f N %v SSM %.4f, want 195.8647, 10, 19.5865 (printed 19.5864)", br.Sum, br.N, br.SSM)
	}
	if got := SSM(t1, t2); !near(got, 19.5865) {
		t.Errorf("SSM = %.6f, want 19.5865", got)
	}
	if _, ok := (Options{Cutoff: paperCutoff}).near(SSM(t1, t2)); !ok {
		t.Errorf("SSM %.4f is not below a cut-off of %v: the paper's near-duplicate would be missed", SSM(t1, t2), paperCutoff)
	}

	// With Table 3.7 as printed (Process 70, Knowledge 179) the same pages
	// score 19.7407: still a near-duplicate.
	printed := mustTable(t, table31)
	if got := SSM(printed, t2); !near(got, 19.7407) {
		t.Errorf("SSM with Table 3.7 as printed = %.4f, want 19.7407", got)
	}
}
