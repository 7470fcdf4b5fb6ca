package preprocess

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// Digest returns a SHA-256, in hex, of what a Pipeline made of a page: the
// Page's Language, Text, Sentences, Tokens and Terms, or err when it made
// none. Two versions of a pipeline that give the same digests for a corpus
// treat its pages the same, byte for byte. A nil page without an error (no
// Pipeline returns one) has a digest of its own, unlike any page's.
func Digest(pg *Page, err error) string {
	h := sha256.New()
	if err != nil {
		digestString(h, "error: "+err.Error())
		return hex.EncodeToString(h.Sum(nil))
	}
	if pg == nil {
		digestString(h, "nil page")
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
