package doccheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/neardup/neardup"

// The two floors of internal/ (docs/CONTRIBUTING.md, "Layout"). Foundations
// are what the library's packages are built on: they import no package of
// the module outside internal/ but other foundations. Tooling is what tests,
// benchmarks and the evaluate command use: no package of the library
// imports it outside its tests. Every package under internal/ is one or the
// other.
var (
	foundations = []string{"detector", "docid", "fleet", "fpblock", "sentinel", "snapshot"}
	tooling     = []string{"benchtest", "corpus", "detectortest", "doccheck", "jepsen", "race", "readme", "servertest", "synth"}
)

// imports returns, for every directory of the repository with Go files (the
// nested modules included: their paths are the module's path and the
// directory), the module's packages its non-test files import.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := make(map[string][]string)
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if n := e.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := module
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if (p == module || strings.HasPrefix(p, module+"/")) && !slices.Contains(out[pkg], p) {
				out[pkg] = append(out[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// floor returns "foundation", "tooling" or "" for a package path.
func floor(pkg string) string {
	name, ok := strings.CutPrefix(pkg, module+"/internal/")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, "/")
	switch {
	case slices.Contains(foundations, name):
		return "foundation"
	case slices.Contains(tooling, name):
		return "tooling"
	}
	return "unclassified"
}

// TestLayers checks the floors of internal/: foundations import only
// foundations, tooling is imported by no package of the library (tests,
// tooling and the evaluate command may), and every package under internal/
// is on one floor.
func TestLayers(t *testing.T) {
	all := imports(t, "../..")
	if len(all) < 20 {
		t.Fatalf("found %d packages: not the repository", len(all))
	}
	for pkg, deps := range all {
		from := floor(pkg)
		if from == "unclassified" {
			t.Errorf("%s is neither a foundation nor tooling: add it to one list in layers_test.go and docs/CONTRIBUTING.md", pkg)
		}
		for _, dep := range deps {
			to := floor(dep)
			switch {
			case from == "foundation" && to != "foundation":
				t.Errorf("foundation %s imports %s", pkg, dep)
			case to == "tooling" && from != "tooling" && pkg != module+"/examples/evaluate":
				t.Errorf("%s (not tooling) imports the tooling package %s", pkg, dep)
			}
		}
	}
}
