package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestHoldout chooses shingle's threshold on two corpora by leaving each
// out: one line per corpus left out, and the value to ship.
func TestHoldout(t *testing.T) {
	a, b := writeCorpus(t), writeCorpus(t)
	var out, errs bytes.Buffer
	if err := run([]string{"-corpus", a + "," + b, "-sweep", "shingle", "-holdout"}, &out, &errs); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, dir := range []string{a, b} {
		found := false
		for _, l := range lines {
			// corpus, value chosen on the other, its F1, best value, best F1
			if f := strings.Fields(l); len(f) == 5 && f[0] == filepath.Base(dir) && f[2] == "1.0000" {
				found = true
			}
		}
		if !found {
			t.Errorf("no line for %s left out (F1 1 on copies that differ in a footer):\n%s", filepath.Base(dir), out.String())
		}
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "best on all 2 corpora: shingle threshold=") {
		t.Errorf("last line %q, want the value of best mean F1\n%s", last, out.String())
	}
	if err := run([]string{"-corpus", a, "-sweep", "shingle", "-holdout"}, &out, &errs); err == nil {
		t.Error("-holdout with one corpus accepted")
	}
	if err := run([]string{"-corpus", a + "," + b, "-holdout"}, &out, &errs); err == nil {
		t.Error("-holdout without -sweep accepted")
	}
}
