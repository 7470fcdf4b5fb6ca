package preprocess

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"testing"
)

func scanAll(text string) []string {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Split(ScanSentences)
	var out []string
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func TestScanSentences(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"basic", "One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"e.g. i.e. etc.", "Use tools, e.g. grep and sed. Also awk, i.e. a language, etc. and more. Done.",
			[]string{"Use tools, e.g. grep and sed.", "Also awk, i.e. a language, etc. and more.", "Done."}},
		{"e.g. before capital", "Databases, e.g. PostgreSQL, are big. Yes.", []string{"Databases, e.g. PostgreSQL, are big.", "Yes."}},
		{"etc. at end", "Apples, pears, etc. Then bananas.", []string{"Apples, pears, etc.", "Then bananas."}},
		{"titles", "Dr. Smith met Mr. Jones. They talked.", []string{"Dr. Smith met Mr. Jones.", "They talked."}},
		{"decimals", "Pi is 3.14 roughly. Version 9.6.2 works.", []string{"Pi is 3.14 roughly.", "Version 9.6.2 works."}},
		{"U.S.", "He moved to the U.S. in May. It rained.", []string{"He moved to the U.S. in May.", "It rained."}},
		{"initials", "J. R. R. Tolkien wrote it. Fine.", []string{"J. R. R. Tolkien wrote it.", "Fine."}},
		{"urls", "See www.example.com for more. Thanks.", []string{"See www.example.com for more.", "Thanks."}},
		{"quotes", `He said "Stop." Then he left.`, []string{`He said "Stop."`, "Then he left."}},
		{"ellipsis and ?!", "Really?! Yes... Sure.", []string{"Really?!", "Yes...", "Sure."}},
		{"lowercase continues", "Figure 3. shows it. Next.", []string{"Figure 3. shows it.", "Next."}},
		{"headings", "9.9. Date/Time Functions\nTable 9.33. Operators", []string{"9.9. Date/Time Functions", "Table 9.33. Operators"}},
		{"newline breaks", "a heading\nfirst sentence. second", []string{"a heading", "first sentence. second"}},
		{"cjk", "通过使用虚拟系统，我们能运行多个系统。参见 Debian wiki！真的吗？好", []string{"通过使用虚拟系统，我们能运行多个系统。", "参见 Debian wiki！", "真的吗？", "好"}},
		{"cjk closing quote", "他说：“你好。”然后走了。", []string{"他说：“你好。”", "然后走了。"}},
		{"japanese", "今日は晴れです。明日は雨。", []string{"今日は晴れです。", "明日は雨。"}},
		{"other terminators", "नमस्ते। ठीक है॥ Done", []string{"नमस्ते।", "ठीक है॥", "Done"}},
		{"whitespace only", " \n\t \n", nil},
		{"trim", "   padded.   \n\n  next  ", []string{"padded.", "next"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := scanAll(c.in)
			if !slices.Equal(got, c.want) {
				t.Errorf("ScanSentences(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

// TestScanSentencesStreaming: a Scanner with a tiny buffer (many calls with
// atEOF false) finds the same sentences as one call per sentence at EOF.
func TestScanSentencesStreaming(t *testing.T) {
	text := "Dr. Smith paid 3.50 dollars. Why? Because, e.g. he could. 你好。世界！ End"
	want := scanAll(text)
	for size := 1; size <= 8; size++ {
		sc := bufio.NewScanner(&oneByteReader{s: text, n: size})
		sc.Buffer(make([]byte, 0, 4), 1<<10)
		sc.Split(ScanSentences)
		var got []string
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("reads of %d bytes: got %q, want %q", size, got, want)
		}
	}
}

type oneByteReader struct {
	s string
	n int
}

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, errEOF
	}
	n := copy(p[:min(len(p), r.n)], r.s)
	r.s = r.s[n:]
	return n, nil
}

func TestPageSentences(t *testing.T) {
	var p Pipeline
	pg, err := p.Process([]byte("<h1>Intro</h1><p>First one. Second one.</p><p>• </p><p>3.14 is pi.</p>"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Intro", "First one.", "Second one.", "3.14 is pi."}
	if !slices.Equal(pg.Sentences, want) {
		t.Errorf("Sentences = %q, want %q", pg.Sentences, want)
	}
}

var errEOF = io.EOF
