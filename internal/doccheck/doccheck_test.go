package doccheck

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestRepository checks the doc comments of every package of the
// repository, the nested modules included.
func TestRepository(t *testing.T) {
	problems, err := Check("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestBad checks that Check finds each rule's words in a package made to
// break them, and only in the comments go doc shows.
func TestBad(t *testing.T) {
	problems, err := Check("testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Pos+" "+p.Rule)
	}
	want := []string{
		"bad.go:1 machine",
		"bad.go:1 timing",
		"bad.go:2 corpus figure",
		"bad.go:2 machine",
		"bad.go:2 working word",
		"bad.go:5 working word",
		"bad.go:12 timing",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSeedWords checks that a doc comment naming the papers by their
// place in the project's seed list, not by authors and title, is a working
// word. The words are assembled here so that no file of the repository
// carries them.
func TestSeedWords(t *testing.T) {
	for _, words := range []string{"seed" + " 000", "seed" + "-001", "the seed" + " papers"} {
		dir := t.TempDir()
		doc := "// Package seed cites " + words + ".\npackage seed\n"
		if err := writeFile(dir+"/seed.go", doc); err != nil {
			t.Fatal(err)
		}
		problems, err := Check(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != 1 || problems[0].Rule != "working word" {
			t.Errorf("%q: problems %v, want one \"working word\"", words, problems)
		}
	}
}

// TestTooLong checks the limit on the package comment's lines.
func TestTooLong(t *testing.T) {
	dir := t.TempDir()
	doc := "// Package long has a long comment.\n" + strings.Repeat("//\n", MaxPackageDocLines) + "package long\n"
	if err := writeFile(dir+"/long.go", doc); err != nil {
		t.Fatal(err)
	}
	problems, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].Rule != "too long" || !strings.Contains(problems[0].Text, "101 lines") {
		t.Errorf("a package comment of %d lines: problems %v, want one \"too long\"", MaxPackageDocLines+1, problems)
	}
}

func writeFile(name, text string) error { return os.WriteFile(name, []byte(text), 0o644) }
