package docid

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		id string
		ok bool
	}{
		{"", false},
		{"a", true},
		{strings.Repeat("x", MaxLen), true},
		{strings.Repeat("x", MaxLen+1), false},
	} {
		err := Check(c.id)
		if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("Check(%d bytes) = %v, want ok %v", len(c.id), err, c.ok)
		}
	}
}

// TestQuote checks that a long ID is cut to 64 bytes at a character
// boundary and marked, and a short one is quoted whole.
func TestQuote(t *testing.T) {
	if got := Quote("https://a/b"); got != `"https://a/b"` {
		t.Errorf("Quote(short) = %s", got)
	}
	long := strings.Repeat("é", 100) // 2 bytes each: byte 64 starts a rune
	if got, want := Quote(long), `"`+strings.Repeat("é", 32)+`"…`; got != want {
		t.Errorf("Quote(long) = %s, want %s", got, want)
	}
	odd := "x" + long // byte 64 is inside a rune: cut before it
	if got, want := Quote(odd), `"x`+strings.Repeat("é", 31)+`"…`; got != want {
		t.Errorf("Quote(odd) = %s, want %s", got, want)
	}
	if got := Quote(strings.Repeat("y", 1<<20)); len(got) > 80 {
		t.Errorf("Quote(1 MiB) is %d bytes", len(got))
	}
}

// Host lower-cases the host name and drops the port.
func TestHost(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "",
		"http://WWW.Example.com:8080/a": "www.example.com",
		"https://example.org":           "example.org",
		"://bad":                        "",
	} {
		if got := Host(in); got != want {
			t.Errorf("Host(%q) = %q, want %q", in, got, want)
		}
	}
}
