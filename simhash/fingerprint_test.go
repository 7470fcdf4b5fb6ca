package simhash

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// Kumar and Govindarajulu, Table 3 (Wp2, Wp3) and Table 5 (Wp_new), 64 bits each.
const (
	tableWpNew = "0101111000110101011010100010101101010001000011010010010101000100"
	tableWp2   = "0101111000110101011010100010101101010001000011010010010101000011"
	tableWp3   = "0100010001011010010011000011110000011101000101000010100101000011"
	// tableWp1 is printed with 71 digits in Table 3: it is not a 64-bit
	// fingerprint and cannot be compared.
	tableWp1 = "00011000001011110010100000001110010111000011010001100100011001000010100"
)

func mustParse(t testing.TB, s string) Fingerprint {
	t.Helper()
	f, err := ParseBinary(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPaperSection33Example: §3.3, 110010 vs 101010 differ in the second
// and third bits, b_f = 2 ≤ T_B = 3: near-duplicates. The second pair,
// 100110 vs 111011, differs in 4 bits > T_B: not near-duplicates.
func TestPaperSection33Example(t *testing.T) {
	const tb = 3
	for _, c := range []struct {
		a, b string
		bf   int
		dup  bool
	}{
		{"110010", "101010", 2, true},
		{"100110", "111011", 4, false},
	} {
		bf := Distance(mustParse(t, c.a), mustParse(t, c.b))
		if bf != c.bf || (bf <= tb) != c.dup {
			t.Errorf("b_f(%s, %s) = %d (dup %v), want %d (dup %v)", c.a, c.b, bf, bf <= tb, c.bf, c.dup)
		}
	}
}

// TestPaperTables3And5: b_f(Wp_new, Wp2) = 3 and b_f(Wp_new, Wp3) = 27.
// Wp1 is printed with 71 bits and ParseBinary rejects it.
//
// Note the paper then calls Wp_new "not a near duplicate" because the
// difference "exceeds the threshold": that holds for Wp2 only with T_B ≤ 2,
// while §3.3's example uses T_B = 3 (with which Wp2 would be a match).
func TestPaperTables3And5(t *testing.T) {
	nw, wp2, wp3 := mustParse(t, tableWpNew), mustParse(t, tableWp2), mustParse(t, tableWp3)
	if got := Distance(nw, wp2); got != 3 {
		t.Errorf("b_f(new, Wp2) = %d, want 3", got)
	}
	if got := Distance(nw, wp3); got != 27 {
		t.Errorf("b_f(new, Wp3) = %d, want 27", got)
	}
	for _, s := range []string{tableWpNew, tableWp2, tableWp3} {
		if got := mustParse(t, s).String(); got != s {
			t.Errorf("String round trip: %s != %s", got, s)
		}
	}
	if _, err := ParseBinary(tableWp1); !errors.Is(err, ErrSyntax) {
		t.Errorf("ParseBinary(71-bit Wp1) error = %v, want ErrSyntax", err)
	}
}

func TestParseBinaryErrors(t *testing.T) {
	for _, s := range []string{"", "2", "01x", strings.Repeat("1", 65)} {
		if _, err := ParseBinary(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseBinary(%q) error = %v, want ErrSyntax", s, err)
		}
	}
	if f := mustParse(t, strings.Repeat("1", 64)); f != ^Fingerprint(0) {
		t.Errorf("all ones = %x", uint64(f))
	}
}

func TestDistanceZeroAlloc(t *testing.T) {
	a, b := Fingerprint(0xdeadbeef), Fingerprint(0x12345678)
	var sink int
	if n := testing.AllocsPerRun(100, func() { sink += Distance(a, b) }); n != 0 {
		t.Errorf("Distance allocates %v times", n)
	}
	_ = sink
}

// TestBuilderMatchesPseudoCode checks Builder against a literal transcription
// of Kumar and Govindarajulu, Fig. 2.
func TestBuilderMatchesPseudoCode(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 200; it++ {
		var terms []preprocess.Term
		n := r.IntN(30) + 1
		if it%10 == 0 {
			n = 3000 // enough weight to flush the 16-bit lanes several times
		}
		for j := n; j > 0; j-- {
			c := r.IntN(9) + 1
			switch r.IntN(20) {
			case 0:
				c = -c
			case 1:
				c = 0xffff
			case 2:
				c = 1 << 20
			case 3:
				c = 30000 + r.IntN(40000)
			}
			terms = append(terms, preprocess.Term{Text: randWord(r), Count: c})
		}
		var sim [64]int
		for _, kw := range terms { // Fig. 2, line by line
			x := Hash(kw.Text)
			for i := 0; i < 64; i++ {
				if x>>i&1 == 1 {
					sim[i] += kw.Count
				} else {
					sim[i] -= kw.Count
				}
			}
		}
		var want Fingerprint
		for i := 0; i < 64; i++ {
			if sim[i] > 0 {
				want |= 1 << i
			}
		}
		got, err := Sum(terms)
		if err != nil || got != want {
			t.Fatalf("Sum = %v, %v; want %v", got, err, want)
		}
		// Streaming, with a Fingerprint call half-way, equals one-shot.
		var bld Builder
		for j, kw := range terms {
			if j == len(terms)/2 {
				_, _ = bld.Fingerprint()
			}
			bld.AddWeighted(kw.Text, kw.Count)
		}
		if got3, _ := bld.Fingerprint(); got3 != want {
			t.Fatalf("streaming Builder = %v, want %v", got3, want)
		}
		// Order does not matter.
		r.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
		if got2, _ := Sum(terms); got2 != got {
			t.Fatalf("Sum depends on order")
		}
	}
}

func TestNoFeatures(t *testing.T) {
	for _, s := range []string{"the and of", "a b c", "的 了 是"} { // stop words, short tokens
		if _, err := FromText(s); !errors.Is(err, neardup.ErrNoFeatures) {
			t.Errorf("FromText(%q) error = %v, want ErrNoFeatures", s, err)
		}
	}
	for _, s := range []string{"", "   ", "!?.,;: -- \u2014 \u00a0"} {
		if _, err := FromText(s); !errors.Is(err, preprocess.ErrEmpty) && !errors.Is(err, neardup.ErrNoFeatures) {
			t.Errorf("FromText(%q) error = %v, want ErrEmpty or ErrNoFeatures", s, err)
		}
	}
	if _, err := Sum(nil); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Sum(nil) error = %v", err)
	}
	if _, err := Sum([]preprocess.Term{{Text: "a", Count: 0}}); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("Sum(zero counts) error = %v", err)
	}
	var b Builder
	if _, err := b.Fingerprint(); !errors.Is(err, neardup.ErrNoFeatures) {
		t.Errorf("empty Builder error = %v", err)
	}
}

func randWord(r *rand.Rand) string {
	var b strings.Builder
	for i := r.IntN(8) + 1; i > 0; i-- {
		b.WriteByte(byte('a' + r.IntN(26)))
	}
	return b.String()
}

// ofText is the Detector's fingerprint of a plain-text document.
func ofText(t testing.TB, text string) (Fingerprint, error) {
	t.Helper()
	var p preprocess.Pipeline
	d, err := neardup.NewDocument(&p, "d", "", "", []byte(text))
	if err != nil {
		return 0, err
	}
	return Of(d)
}

// checkAgree checks that FromText gives the Detector's fingerprint.
func checkAgree(t *testing.T, text string) {
	t.Helper()
	got, gerr := FromText(text)
	want, werr := ofText(t, text)
	if (gerr == nil) != (werr == nil) || got != want {
		t.Fatalf("FromText(%q) = %v, %v; the Detector's fingerprint = %v, %v", text, got, gerr, want, werr)
	}
}

func TestFromTextIsTheDetectors(t *testing.T) {
	for _, s := range []string{
		"Hello hello HELLO world", "The meetings affect the closing of the affection.",
		"日本語のテキスト", "近似重复网页检测。", "Straße STRASSE", "İstanbul", "σίσυφος ΣΊΣΥΦΟΣ",
		"naïve café", "tab\tsep\r\nline",
	} {
		checkAgree(t, s)
	}
	b, err := os.ReadFile("testdata/en-10k.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	checkAgree(t, text)
	// A near-duplicate (one sentence edited) stays close; an unrelated
	// text does not.
	f1, _ := FromText(text)
	f2, _ := FromText(strings.Replace(text, "The primary message should be short", "The main message ought to be brief", 1))
	if d := Distance(f1, f2); d > 3 {
		t.Errorf("one edited sentence moved the fingerprint by %d bits", d)
	}
	f3, _ := FromText(strings.Repeat("completely unrelated words about gardening and tomatoes ", 20))
	if d := Distance(f1, f3); d < 10 {
		t.Errorf("unrelated text only %d bits away", d)
	}
}

// TestFromTextConcurrent checks that FromText, whose Pipelines are shared
// through a pool, gives every caller the fingerprint a fresh Pipeline gives,
// whatever other texts the same Pipelines processed before or at once.
func TestFromTextConcurrent(t *testing.T) {
	b, err := os.ReadFile("testdata/en-10k.txt")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{string(b), "日本語のテキストと近似重复网页检测。", "The meetings affect the closing of the affection."}
	want := make([]Fingerprint, len(texts))
	for i, text := range texts {
		if want[i], err = ofText(t, text); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				j := (g + i) % len(texts)
				if got, err := FromText(texts[j]); err != nil || got != want[j] {
					errs <- fmt.Sprintf("FromText(text %d) = %v, %v; want %v", j, got, err, want[j])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestStringSorted(t *testing.T) {
	// String is fixed-width, so string order is numeric order.
	fs := []Fingerprint{5, 1 << 63, 0, 77}
	ss := make([]string, len(fs))
	for i, f := range fs {
		ss[i] = f.String()
	}
	slices.Sort(fs)
	slices.Sort(ss)
	for i := range fs {
		if fs[i].String() != ss[i] {
			t.Fatal("String order differs from numeric order")
		}
	}
}
