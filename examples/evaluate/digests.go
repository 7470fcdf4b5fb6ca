package main

import (
	"bufio"
	"io"

	"github.com/neardup/neardup/preprocess"
)

// writeDigests writes one line per page, "digest id": a SHA-256 of
// everything preprocess.Pipeline.Process makes of the page (Language, Text,
// Sentences, Tokens and Terms, or the error). Two versions of the pipeline
// that write the same lines for a corpus treat its pages the same, byte for
// byte: compare them with diff.
func writeDigests(pages source, w io.Writer) error {
	bw := bufio.NewWriter(w)
	var pipe preprocess.Pipeline
	for p := range pages.all {
		pg, err := pipe.Process(p.raw)
		if _, err := io.WriteString(bw, preprocess.Digest(pg, err)+" "+p.id+"\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}
