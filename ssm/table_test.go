package ssm

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/neardup/neardup/preprocess"
)

// A Table keeps copies of its keywords' texts: a text cut out of a whole
// page (as a preprocess.Term's may be) must not keep the page alive while
// the table is kept.
func TestNewTableCopiesTexts(t *testing.T) {
	page := strings.Repeat("filler ", 10_000) + "keyword"
	text := page[len(page)-len("keyword"):]
	tb, err := NewTable([]preprocess.Term{{Text: text, Count: 3}})
	if err != nil {
		t.Fatal(err)
	}
	got := tb.Terms()[0].Text
	if got != text {
		t.Fatalf("Terms()[0].Text = %q, want %q", got, text)
	}
	if unsafe.StringData(got) == unsafe.StringData(text) {
		t.Error("the table's keyword shares the page's memory")
	}
}
