package shingle

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// streamPage is one manifest row as examples/evaluate sees it: a page the
// pipeline rejects has a nil doc and is never flagged nor kept.
type streamPage struct {
	doc *neardup.Document
	dup bool // an earlier page of the manifest has the same group
}

func loadStream(tb testing.TB, dir string) []streamPage {
	tb.Helper()
	rows := readManifest(tb, dir)
	seen := map[string]bool{}
	pages := make([]streamPage, len(rows))
	for i, r := range rows {
		pages[i].dup = seen[r[2]]
		seen[r[2]] = true
	}
	var p preprocess.Pipeline
	err := parallel(tb.Context(), len(rows), func(i int) error {
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rows[i][3])))
		if err != nil {
			return err
		}
		if d, err := neardup.NewDocument(&p, rows[i][0], rows[i][1], raw); err == nil {
			if _, err := VectorOf(d, DefaultM); err == nil {
				pages[i].doc = d
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return pages
}

// TestSweep streams each corpus through a Detector per threshold, as
// examples/evaluate does (MatchOrAdd in manifest order; a flagged page is a
// true positive iff an earlier page has its group), and logs precision,
// recall and F1. It runs only when NEARDUP_SWEEP is set, to
// "form:t1,t2,..." (form equation, table or normalized), e.g.
//
//	NEARDUP_SWEEP=normalized:0.1,0.2,0.3 go test -run TestSweep -v ./shingle/
func TestSweep(t *testing.T) {
	spec := os.Getenv("NEARDUP_SWEEP")
	if spec == "" {
		t.Skip("corpus sweep not requested: set NEARDUP_SWEEP=form:t1,t2,... to sweep thresholds on the corpora")
	}
	name, list, _ := strings.Cut(spec, ":")
	var form Form
	for f := range Normalized + 1 {
		if f.String() == name {
			form = f
		}
	}
	if form.String() != name {
		t.Fatalf("unknown form %q", name)
	}
	var ths []float64
	for _, s := range strings.Split(list, ",") {
		th, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	for _, corpus := range []string{"en-dev", "zh-dev", "en-dev-hard", "zh-dev-hard"} {
		t.Run(corpus, func(t *testing.T) {
			pages := loadStream(t, corpusDir(t, corpus))
			rows := make([]string, len(ths))
			err := parallel(t.Context(), len(ths), func(i int) error {
				dt, err := New(Options{Threshold: ths[i], Form: form})
				if err != nil {
					return err
				}
				var tp, fp, fn, tn int
				for _, p := range pages {
					flagged := false
					if p.doc != nil {
						ms, _, err := dt.MatchOrAdd(p.doc)
						if err != nil {
							return err
						}
						flagged = len(ms) > 0
					}
					switch {
					case flagged && p.dup:
						tp++
					case flagged:
						fp++
					case p.dup:
						fn++
					default:
						tn++
					}
				}
				prec := float64(tp) / float64(max(1, tp+fp))
				rec := float64(tp) / float64(max(1, tp+fn))
				f1 := 2 * prec * rec / max(1e-12, prec+rec)
				rows[i] = fmt.Sprintf("%s %-6s %g\tTP %d FP %d FN %d TN %d\tP %.3f R %.3f F1 %.3f",
					corpus, form, ths[i], tp, fp, fn, tn, prec, rec, f1)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				t.Log(r)
			}
		})
	}
}
