package main

import (
	"errors"
	"strings"
)

// plain is err's message without the package prefixes that the library's
// errors carry ("neardup: ", "preprocess: ", "simhash: ", ..., `document
// "ID": ` and "LoadFile NAME: ", which the command's messages say
// already), so that each message the command writes has one
// prefix: the command's own, or none. A segment is dropped only when it is
// exactly such a prefix; the message's other text is kept as it is.
//
// The library errors that chain prefixes: neardup.NewDocument
// (`neardup: document "ID": preprocess: no visible text`), LoadFile and
// SaveFile (`neardup: LoadFile NAME: minhash: neardup: unsupported
// snapshot`), and the detectors' features (`simhash: document "ID" has no
// terms: neardup: document has no features`).
func plain(err error) string {
	if err == nil {
		return ""
	}
	lines := strings.Split(err.Error(), "\n")
	for i, line := range lines {
		segs := strings.Split(line, ": ")
		kept := segs[:0]
		for j, s := range segs {
			if j < len(segs)-1 && libPrefix(s) {
				continue
			}
			kept = append(kept, s)
		}
		lines[i] = strings.Join(kept, ": ")
	}
	return strings.Join(lines, "\n")
}

// libPrefix reports whether s is a prefix segment of the library's errors:
// the name of one of its packages, the page they are about, or the
// function (LoadFile, SaveFile) and its file.
func libPrefix(s string) bool {
	switch s {
	case "neardup", "preprocess", "charset", "minhash", "simhash", "shingle", "sentence", "ssm", "editdist", "cluster":
		return true
	}
	return strings.HasPrefix(s, `document "`) && strings.HasSuffix(s, `"`) ||
		strings.HasPrefix(s, "LoadFile") || strings.HasPrefix(s, "SaveFile")
}

// errNoPages is a run that judged no page: an empty folder, a folder of
// files that are not pages, or pages all refused.
var errNoPages = errors.New("no pages")
