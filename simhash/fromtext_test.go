package simhash

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
)

// fromTextInputs are texts on which FromText is checked against the full
// pipeline: English, Chinese, Japanese, mixed scripts, punctuation only,
// the characters the text normalisation drops (soft hyphen, U+FEFF), text
// that is not UTF-8, binary data, and text without terms.
var fromTextInputs = []string{
	"The meetings affect the closing of the affection. Running runners ran.",
	"近似重复网页检测。通过使用虚拟系统，我们能在单个机器上同时运行多个系统。",
	"日本語のテキストです。カタカナとひらがな。",
	"Linux内核2.6版本 supports KVM虚拟化 and Xen; e.g. Dr. Smith 3.14 ÉCOLE",
	"!?.,;: -- \u2014 \u00a0 。！？",
	"co\u00ADoperate co-operate \uFEFFcooperate",
	"\xEF\xBB\xBFA text after a byte-order mark.",
	"caf\xe9 cr\xe8me br\xfbl\xe9e na\xefve r\xe9sum\xe9",
	"\x00\x01\x02\x03\x04\x05\x06\x07\x08 binary \x0e\x0f\x10\x11\x12\x13",
	"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0",
	"%PDF-1.7 a document",
	"the and of a b c 的 了 是",
	"",
	" \n\t ",
}

// fromTextWant is the fingerprint of text by the full pipeline: Sum over the
// Terms of plain-text ProcessContent, with FromText's errors.
func fromTextWant(text string) (Fingerprint, error) {
	var p preprocess.Pipeline
	page, err := p.ProcessContent([]byte(text), "text/plain")
	if err != nil {
		return 0, err
	}
	return Sum(page.Terms)
}

// checkFromText fails unless FromText gives Sum(ProcessContent(text, "text/plain").Terms),
// or the same error (the pipeline's, wrapped, or ErrNoFeatures).
func checkFromText(t *testing.T, text string) {
	t.Helper()
	got, err := FromText(text)
	want, wantErr := fromTextWant(text)
	switch {
	case wantErr != nil:
		if errors.Is(wantErr, neardup.ErrNoFeatures) {
			if !errors.Is(err, neardup.ErrNoFeatures) {
				t.Fatalf("FromText(%.60q) error %v, want ErrNoFeatures", text, err)
			}
		} else if err == nil || err.Error() != "simhash: FromText: "+wantErr.Error() {
			t.Fatalf("FromText(%.60q) error %v, want the pipeline's %v", text, err, wantErr)
		}
	case err != nil || got != want:
		t.Fatalf("FromText(%.60q) = %v, %v; Sum(ProcessContent(text, text/plain).Terms) = %v", text, got, err, want)
	}
}

func TestFromTextIsSumOfPlainText(t *testing.T) {
	inputs := fromTextInputs
	for _, file := range []string{"testdata/en-10k.txt", "../preprocess/testdata/debian-reference-virtualized-system.zh.html"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b), string(b[:len(b)/3]), string(b[777:len(b)/2+1]))
	}
	// Twice over: the second round meets Pipelines that have memoised the
	// words of the first.
	for range 2 {
		for _, in := range inputs {
			checkFromText(t, in)
		}
	}
	// The inputs reach every outcome.
	outcomes := map[string]bool{}
	for _, in := range inputs {
		_, err := FromText(in)
		switch {
		case err == nil:
			outcomes["fingerprint"] = true
		case errors.Is(err, neardup.ErrNoFeatures):
			outcomes["no features"] = true
		case errors.Is(err, preprocess.ErrEmpty):
			outcomes["empty"] = true
		case errors.Is(err, preprocess.ErrInvalidUTF8):
			outcomes["not text"] = true
		}
	}
	if len(outcomes) != 4 {
		t.Errorf("the inputs reach only %v", outcomes)
	}
	long := strings.Repeat("x", preprocess.DefaultMaxBytes+1)
	if _, err := FromText(long); !errors.Is(err, preprocess.ErrTooLarge) {
		t.Errorf("FromText of %d bytes: error %v, want ErrTooLarge", len(long), err)
	}
}

// FuzzFromTextSum checks FromText against Sum over the Terms of the full
// pipeline on any text.
func FuzzFromTextSum(f *testing.F) {
	for _, s := range fromTextInputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFromText(t, text)
	})
}
