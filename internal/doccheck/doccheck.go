// Package doccheck checks the godoc of the repository's packages against the
// rules of docs/CONTRIBUTING.md ("Docs, tests and measurements"): a package
// comment of at most MaxPackageDocLines lines, and no text that belongs
// elsewhere in any doc comment go doc shows (the package comment, exported
// declarations, their fields and methods):
//
//   - timings and rates (a duration in ns, µs or ms, a benchmark's
//     per-operation or per-second figure) and
//     corpus figures (F1, precision or recall followed by a number): they
//     belong in docs/BENCHMARKS.md, which godoc points to;
//   - the make or kind of machine a number was measured on, or its load;
//   - the project's working vocabulary, which means nothing to a reader of
//     the library (the rules variable in doccheck.go lists the words).
//
// Check reads the Go files of a directory tree with go/parser; it does not
// build or run them. Test files, testdata and hidden directories are
// skipped. It is used by this package's test over the repository; it is not
// a linter for other modules.
package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// MaxPackageDocLines is the most lines a package comment may have, summed
// over the package's files.
const MaxPackageDocLines = 100

// A Problem is one doc comment that breaks a rule.
type Problem struct {
	// Pos is the file and line of the comment's offending line (of the
	// package clause's comment for a package doc that is too long),
	// relative to the root given to Check.
	Pos string
	// Rule names the broken rule, for example "timing" or "too long".
	Rule string
	// Text is the offending line of the comment, or the line count.
	Text string
}

// String formats p as "Pos: Rule: Text".
func (p Problem) String() string { return p.Pos + ": " + p.Rule + ": " + p.Text }

// rules are the words no doc comment may hold, by rule name.
var rules = []struct {
	name string
	re   *regexp.Regexp
}{
	{"timing", regexp.MustCompile(`\d\s?(ns|µs|us|ms)\b|(?i)\b(nano|micro|milli)seconds?\b|ns/op|calls/s\b|\d\s?[KMG]B/s\b`)},
	{"corpus figure", regexp.MustCompile(`(?i)\b(F1|precision|recall)\b\W{0,3}(of|is|at|=)?\s*[01]?\.\d`)},
	{"machine", regexp.MustCompile(`\b(AMD|EPYC|Xeon|VMs?)\b|(?i)\bthis machine\b|\bload average\b|(?i)\bshared cores?\b|\bunder (heavy )?load\b`)},
	{"working word", regexp.MustCompile(`(?i)\bseed[ -]?0\d|\bseed papers?\b|\bsessions?\b|\bhelpers?\b`)},
}

// Check parses every package under root and returns the problems of their
// doc comments, sorted by position. It returns an error only when a file
// cannot be read or parsed.
func Check(root string) ([]Problem, error) {
	var problems []Problem
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			return nil
		}
		if n := e.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		ps, err := checkDir(root, path)
		problems = append(problems, ps...)
		return err
	})
	slices.SortStableFunc(problems, func(a, b Problem) int { return strings.Compare(a.Pos, b.Pos) })
	return problems, err
}

// parsed is a package's non-test files, parsed with comments.
type parsed struct {
	name  string
	files []*ast.File
}

// parseDir parses the non-test Go files of dir, by package name, in the
// order of the names (as parser.ParseDir, which is deprecated, did).
func parseDir(fset *token.FileSet, dir string) ([]parsed, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var pkgs []parsed
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(pkgs, func(p parsed) bool { return p.name == f.Name.Name })
		if i < 0 {
			pkgs = append(pkgs, parsed{name: f.Name.Name})
			i = len(pkgs) - 1
		}
		pkgs[i].files = append(pkgs[i].files, f)
	}
	return pkgs, nil
}

// checkDir checks the package in dir, if there is one.
func checkDir(root, dir string) ([]Problem, error) {
	fset := token.NewFileSet()
	pkgs, err := parseDir(fset, dir)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	// pos is the file and line of p, lines lines below it.
	pos := func(p token.Pos, lines int) string {
		position := fset.Position(p)
		rel, err := filepath.Rel(root, position.Filename)
		if err != nil {
			rel = position.Filename
		}
		return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), position.Line+lines)
	}
	for _, pkg := range pkgs {
		lines, first := 0, token.NoPos
		for _, f := range pkg.files {
			if f.Doc == nil {
				continue
			}
			lines += fset.Position(f.Doc.End()).Line - fset.Position(f.Doc.Pos()).Line + 1
			if first == token.NoPos {
				first = f.Package
			}
		}
		if lines > MaxPackageDocLines {
			problems = append(problems, Problem{pos(first, 0), "too long", fmt.Sprintf("package %s: %d lines of package comment, want at most %d", pkg.name, lines, MaxPackageDocLines)})
		}
		for _, f := range pkg.files {
			for _, g := range shown(f) {
				for _, c := range g.List {
					for i, line := range strings.Split(c.Text, "\n") {
						for _, r := range rules {
							if r.re.MatchString(line) {
								problems = append(problems, Problem{pos(c.Pos(), i), r.name, strings.TrimSpace(line)})
							}
						}
					}
				}
			}
		}
	}
	return problems, nil
}

// shown returns the comments of f that go doc -all shows: the package
// comment and the doc comments of exported declarations, their exported
// fields and methods, and interface methods.
func shown(f *ast.File) []*ast.CommentGroup {
	var gs []*ast.CommentGroup
	add := func(cs ...*ast.CommentGroup) {
		for _, c := range cs {
			if c != nil {
				gs = append(gs, c)
			}
		}
	}
	add(f.Doc)
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, fd := range fl.List {
			if len(fd.Names) == 0 || slices.ContainsFunc(fd.Names, func(n *ast.Ident) bool { return n.IsExported() }) {
				add(fd.Doc, fd.Comment)
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() {
				add(d.Doc)
			}
		case *ast.GenDecl:
			exported := false
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					if slices.ContainsFunc(s.Names, func(n *ast.Ident) bool { return n.IsExported() }) {
						exported = true
						add(s.Doc, s.Comment)
					}
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					exported = true
					add(s.Doc, s.Comment)
					switch t := s.Type.(type) {
					case *ast.StructType:
						fields(t.Fields)
					case *ast.InterfaceType:
						fields(t.Methods)
					}
				}
			}
			if exported {
				add(d.Doc)
			}
		}
	}
	return gs
}
