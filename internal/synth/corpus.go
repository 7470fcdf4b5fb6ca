package synth

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// WriteCorpus writes the crawl of opts to dir as a labelled corpus:
// dir/manifest.tsv, with the header line
//
//	id	url	group	file	kind	original
//
// and one row per page in crawl order, and each page's HTML as
// dir/pages/<id>.html. A re-offer's row repeats its page's id and file (the
// file is written once). The first four columns are the corpus format the
// repository's tools read (a page is a near-duplicate iff an earlier row
// has its group); kind and original (Page.Kind, Page.Original) are for
// error analysis. dir is created if needed; files already there are
// overwritten. Errors wrap ErrInvalidOption for bad options.
func WriteCorpus(dir string, opts Options) error {
	c, err := New(opts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "pages"), 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "id\turl\tgroup\tfile\tkind\toriginal")
	for p, ok := c.Next(); ok; p, ok = c.Next() {
		file := "pages/" + p.ID + ".html"
		if p.Kind != Reoffer {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(file)), p.HTML, 0o644); err != nil {
				f.Close()
				return err
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, p.URL, p.GroupLabel(), file, p.Kind, p.Original)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
