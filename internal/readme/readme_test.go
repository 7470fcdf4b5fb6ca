package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// normal collapses each line's runs of white space, so that gofmt's
// alignment of comments does not matter.
func normal(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The README's Go code is this package's: its program is main.go, and its
// other snippets are in snippets.go, in order.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	var prog string
	var rest []string
	for _, b := range blocks {
		if strings.HasPrefix(b[1], "package main") {
			prog = b[1]
		} else {
			rest = append(rest, normal(b[1]))
		}
	}
	main, _ := os.ReadFile("main.go")
	if i := strings.Index(string(main), "package main"); i < 0 || normal(string(main[i:])) != normal(prog) {
		t.Error("README's program differs from main.go")
	}
	snip, _ := os.ReadFile("snippets.go")
	if !strings.Contains(normal(string(snip)), strings.Join(rest, "\n")) {
		t.Error("README's snippets differ from snippets.go (or their order)")
	}
}

// The README's judge keeps a new page, takes the same page fetched again as
// known (nothing new kept), and finds a mirror.
func TestJudge(t *testing.T) {
	article := "<p>Glaciers store snow that falls on their high plateau year after year, and the snow is buried and slowly compressed into ice.</p><p>Tiny bubbles of air trapped between the grains preserve samples of the ancient atmosphere for hundreds of thousands of years.</p>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<nav>Home | "+r.URL.Path+"</nav>"+article)
	}))
	defer srv.Close()
	det, _ := minhash.New(minhash.Options{})
	var pipe preprocess.Pipeline
	for _, path := range []string{"/a", "/a", "/mirror"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		judge(t.Context(), det, &pipe, srv.URL+path, resp)
		resp.Body.Close()
	}
	if det.Len() != 1 || det.Remove(t.Context(), srv.URL+"/a") != nil { // Remove fails for a page not kept
		t.Fatalf("kept %d pages, want only /a", det.Len())
	}
}
