package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
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
		if _, err := io.WriteString(bw, pageDigest(pg, err)+" "+p.id+"\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// pageDigest returns a SHA-256 of everything pg holds, or of err.
func pageDigest(pg *preprocess.Page, err error) string {
	h := sha256.New()
	if err != nil {
		digestString(h, "error: "+err.Error())
		return hex.EncodeToString(h.Sum(nil))
	}
	digestString(h, string(pg.Language))
	digestString(h, pg.Text)
	digestStrings(h, pg.Sentences)
	digestStrings(h, pg.Tokens)
	for _, t := range pg.Terms {
		digestString(h, t.Text)
		binary.Write(h, binary.LittleEndian, int64(t.Count))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func digestString(h hash.Hash, s string) {
	binary.Write(h, binary.LittleEndian, int64(len(s)))
	h.Write([]byte(s))
}

func digestStrings(h hash.Hash, ss []string) {
	binary.Write(h, binary.LittleEndian, int64(len(ss)))
	for _, s := range ss {
		digestString(h, s)
	}
}
