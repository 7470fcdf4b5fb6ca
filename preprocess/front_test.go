package preprocess

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pack is the key collect gives tok, a sub-string of text.
func pack(tok, text string) (uint64, bool) {
	if k, ok := packToken(tok, text); ok {
		return k, true
	}
	return packSlow(tok)
}

func TestPackToken(t *testing.T) {
	text := "ab abc abcdefgh abcdefghi 内核 ab"
	keys := map[uint64]string{}
	for _, tok := range AppendTokens(nil, text) {
		i := strings.Index(text, tok)
		for _, at := range []int{i, strings.LastIndex(text, tok)} {
			k, ok := pack(text[at:at+len(tok)], text)
			if ok != (len(tok) <= 8) {
				t.Fatalf("key of %q: short = %v", tok, ok)
			}
			if !ok {
				continue
			}
			if k == 0 {
				t.Fatalf("key of %q = 0, the empty key", tok)
			}
			if ks, _ := packSlow(tok); ks != k {
				t.Fatalf("packSlow(%q) = %#x, packToken %#x", tok, ks, k)
			}
			if kb, ok := packBytes(append(make([]byte, 0, 16), tok...)); !ok || kb != k {
				t.Fatalf("packBytes(%q) = %#x, %v; packToken %#x", tok, kb, ok, k)
			}
			// Spare capacity holding other bytes is masked off.
			buf := []byte(tok + "xyzxyzxyz")[:len(tok)]
			if kb, ok := packBytes(buf); !ok || kb != k {
				t.Fatalf("packBytes(%q) before other bytes = %#x, %v; packToken %#x", tok, kb, ok, k)
			}
			if other, dup := keys[k]; dup && other != tok {
				t.Fatalf("%q and %q share key %#x", tok, other, k)
			}
			keys[k] = tok
		}
	}
	// The last "ab" is read byte by byte, the first with one load: one key.
	if len(keys) != 4 {
		t.Errorf("keys %v, want one per distinct short token", keys)
	}
	if _, ok := packToken("ab", "ab"); ok {
		t.Error("packToken read eight bytes from a two-byte text")
	}
}

// TestCollectCountsTokens checks collect and collectWords (and so their
// short-token caches) against a
// plain count of AppendTokens's tokens, on texts with far more distinct
// short tokens than the cache has slots, repeated in random order, some
// with capitals (so met both as they are and lower-cased), and with tokens
// at the very end of the text.
func TestCollectCountsTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var words []string
	for range 5000 {
		n := 1 + r.IntN(10)
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz0123456789ABCXYZ"[r.IntN(42)]
		}
		words = append(words, string(b))
	}
	words = append(words, "内核", "系统", "Straße", "ÉCOLE", "Ｆｕｌｌ")
	for _, n := range []int{1, 100, 20000} {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(" \n,"[r.IntN(3)])
		}
		b.WriteString(words[r.IntN(len(words))])
		text := b.String()

		var order []string
		counts := map[string]int32{}
		for _, tok := range AppendTokens(nil, text) {
			if counts[tok] == 0 {
				order = append(order, tok)
			}
			counts[tok]++
		}
		s := newScratch()
		for pass := range 4 {
			if pass == 0 {
				s.collect(text, DefaultMaxTerms, 0, 0)
			} else {
				// The word table, new, then holding the page's words.
				s.collectWords(text, DefaultMaxTerms, maxWords)
			}
			var got []string
			for _, sf := range s.surfs {
				got = append(got, sf.text)
				if sf.count != counts[sf.text] {
					t.Fatalf("%d words: %q counted %d times, want %d", n, sf.text, sf.count, counts[sf.text])
				}
			}
			if !slices.Equal(got, order) {
				t.Fatalf("%d words: surfaces %.20q..., want %.20q...", n, got, order)
			}
		}
	}
}
