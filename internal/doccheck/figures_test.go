package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/editdist"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/sentence"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/ssm"
)

// readme returns the repository's README.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// packageDoc returns the doc comments of the Go files (not tests) of the
// repository's directory dir, as go doc shows them, joined.
func packageDoc(t *testing.T, dir string) string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("../..", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, cg := range af.Comments {
			b.WriteString(cg.Text())
			b.WriteString("\n")
		}
	}
	return b.String()
}

// numbers returns every number the regular expression's first group
// captures in s (commas as thousands separators), failing when there is
// none: a figure the test cannot find any more is a figure it no longer
// checks.
func numbers(t *testing.T, where, s, expr string) []float64 {
	t.Helper()
	var out []float64
	for _, m := range regexp.MustCompile(expr).FindAllStringSubmatch(s, -1) {
		x, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", where, m[0], err)
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		t.Errorf("%s: no match for %s: the figure moved or was reworded (update this test)", where, expr)
	}
	return out
}

// TestFiguresAgree: the defaults and figures the README states are the
// packages' constants and the figures their godoc states. Catches a
// README or godoc figure left behind when a default or a measurement
// changes (shingle's memory per page: "6 KB", "8.5 KB", "7,875 B" and
// "12.5 KB" at once).
func TestFiguresAgree(t *testing.T) {
	rd := readme(t)
	for _, c := range []struct {
		what, expr string
		want       float64
	}{
		{"minhash ContentDistance", "`ContentDistance` \\(([0-9.]+)\\)", minhash.DefaultContentDistance},
		{"simhash T_B", `T_B = ([0-9]+) bits`, simhash.DefaultMaxDistance},
		{"sentence T_s", `T_s = ([0-9]+), or`, sentence.DefaultThreshold},
		{"sentence relative tolerance", `T_s = [0-9]+, or ([0-9.]+) of the longer page`, sentence.DefaultRelative},
		{"shingle MaxPatterns", `at most ([0-9,]+) of its\s+weighted patterns`, shingle.DefaultMaxPatterns},
		{"shingle MaxPatterns (bad input)", "shingle keeps ([0-9,]+) patterns \\(`MaxPatterns`\\)", shingle.DefaultMaxPatterns},
		{"editdist MaxLength", "editdist the first ([0-9,]+) feature characters \\(`MaxLength`\\)", editdist.DefaultMaxLength},
		{"editdist alpha", `α ([0-9.]+), ε [0-9.]+, β [0-9.]+[;)]`, editdist.DefaultAlpha},
		{"editdist epsilon", `α [0-9.]+, ε ([0-9.]+), β [0-9.]+[;)]`, editdist.DefaultEpsilon},
		{"editdist beta", `α [0-9.]+, ε [0-9.]+, β ([0-9.]+)[;)]`, editdist.DefaultBeta},
		{"ssm cut-off", `the default ([0-9.]+) was chosen`, ssm.DefaultCutoff},
		{"ssm keywords", `ssm the top ([0-9]+) keywords`, ssm.DefaultN},
		{"preprocess MaxBytes (MiB)", "`preprocess.Options.MaxBytes` \\(([0-9]+) MiB by default\\)", preprocess.DefaultMaxBytes >> 20},
	} {
		for _, got := range numbers(t, "README: "+c.what, rd, c.expr) {
			if got != c.want {
				t.Errorf("README: %s is %v, the package's default %v", c.what, got, c.want)
			}
		}
	}

	// Memory per kept shingle page: the README's memory line and the
	// shingle godoc give the same measured figure.
	shingleDoc := packageDoc(t, "shingle")
	readmeBytes := numbers(t, "README: shingle memory per page", rd, `shingle ([0-9,]+) B \(about`)
	for _, got := range numbers(t, "shingle godoc: memory per page", shingleDoc, `costs ([0-9,]+) B`) {
		for _, want := range readmeBytes {
			if got != want {
				t.Errorf("shingle godoc: a kept page costs %v B, the README %v B", got, want)
			}
		}
	}
	// The README's "which method" advice quotes the same figure.
	for _, got := range numbers(t, "README: which method, shingle memory", rd, `a consistent sample, ([0-9,]+) B per page`) {
		for _, want := range readmeBytes {
			if got != want {
				t.Errorf("README's which-method advice: shingle %v B per page, its memory line %v B", got, want)
			}
		}
	}
	// The godoc's 6 KB is the patterns alone: 512 patterns of 12 bytes.
	for _, kb := range numbers(t, "shingle godoc: pattern memory", shingleDoc, `\(([0-9]+) KB of patterns`) {
		if want := float64(shingle.DefaultMaxPatterns*12) / 1024; kb != want {
			t.Errorf("shingle godoc: %v KB of patterns, DefaultMaxPatterns × 12 bytes is %v KB", kb, want)
		}
	}

	// A cascade's order: the README says simhash first; sentence's godoc
	// must not say the sentence filter goes first.
	if strings.Contains(rd, "fastest with SimHash first") {
		doc := strings.Join(strings.Fields(packageDoc(t, "sentence")), " ")
		for _, bad := range []string{"Put it first in a neardup.Cascade", "first in a neardup.Cascade"} {
			if strings.Contains(doc, bad) {
				t.Errorf("sentence godoc says %q; the README says a cascade is fastest with SimHash first", bad)
			}
		}
	}

	// The results table names its columns as evaluate prints them.
	for _, l := range strings.Split(rd, "\n") {
		if strings.HasPrefix(l, "| corpus | method |") && strings.Contains(l, "sensitivity") {
			t.Errorf("README results table says sensitivity, evaluate prints recall: %s", l)
		}
	}
}

// TestSectionReferences: a doc comment that points to a section of its
// package's documentation (package documentation, "Name") names a heading
// that the package's doc has. Catches "Memory" for a section titled
// "Memory and cost".
func TestSectionReferences(t *testing.T) {
	ref := regexp.MustCompile(`package documentation, "([^"]+)"`)
	checked := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "//", " ")), " ")
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			checked++
			rel, _ := filepath.Rel("../..", filepath.Dir(path))
			if !strings.Contains(packageDoc(t, rel), "# "+m[1]+"\n") {
				t.Errorf("%s: refers to the section %q, which package %s's documentation does not have", path, m[1], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Error("no section reference found: the pattern no longer matches (update this test)")
	}
}

// TestMaxBytesDefaults: every command's -maxbytes flag defaults to
// preprocess.DefaultMaxBytes, as the README says (8 MiB). Catches a
// command with a default of its own (examples/crawl's 4 MiB).
func TestMaxBytesDefaults(t *testing.T) {
	for _, file := range []string{"cmd/neardup/main.go", "examples/crawl/main.go"} {
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, filepath.Join("../..", file), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		ast.Inspect(af, func(n ast.Node) bool {
			// fs.Int64("maxbytes", default, usage) or
			// fs.Int64Var(&v, "maxbytes", default, usage).
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 3 {
				return true
			}
			name, ok := call.Args[len(call.Args)-3].(*ast.BasicLit)
			if !ok || name.Value != `"maxbytes"` {
				return true
			}
			found++
			def := call.Args[len(call.Args)-2]
			if sel, ok := def.(*ast.SelectorExpr); !ok || sel.Sel.Name != "DefaultMaxBytes" {
				t.Errorf("%s: -maxbytes defaults to %s, not preprocess.DefaultMaxBytes", fset.Position(def.Pos()), exprText(def))
			}
			return true
		})
		if found != 1 {
			t.Errorf("%s: %d -maxbytes flags found, want 1", file, found)
		}
	}
}

// exprText is the source text of a simple expression, for messages.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Value
	case *ast.BinaryExpr:
		return exprText(e.X) + e.Op.String() + exprText(e.Y)
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return "an expression"
}
