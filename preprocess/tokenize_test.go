package preprocess

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestAppendTokens(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"ascii", "Hello, World! foo_bar x86-64", []string{"hello", "world", "foo", "bar", "x86", "64"}},
		{"digits", "PostgreSQL 15.20 released in 2024", []string{"postgresql", "15", "20", "released", "in", "2024"}},
		{"uppercase non-ascii", "ÉCOLE Straße ÇA МОСКВА", []string{"école", "straße", "ça", "москва"}},
		{"chinese bigrams", "虚拟化系统", []string{"虚拟", "拟化", "化系", "系统"}},
		{"lone han", "第 9 章", []string{"第", "9", "章"}},
		{"mixed scripts", "Linux内核2.6版本", []string{"linux", "内核", "2", "6", "版本"}},
		{"cjk punctuation", "你好，世界。", []string{"你好", "世界"}},
		{"japanese", "日本語のテキスト", []string{"日本", "本語", "語の", "のテ", "テキ", "キス", "スト"}},
		{"korean", "한국어 텍스트", []string{"한국", "국어", "텍스", "스트"}},
		{"full-width", "ＡＢＣ１２３ ｄｅｆ", []string{"abc123", "def"}},
		{"apostrophes", "don't PostgreSQL's", []string{"don", "t", "postgresql", "s"}},
		{"combining marks", "naïve cafe\u0301", []string{"naïve", "cafe\u0301"}},
		{"empty", " ,.!? ", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := AppendTokens(nil, c.in)
			if !slices.Equal(got, c.want) {
				t.Errorf("AppendTokens(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestStopWords(t *testing.T) {
	cases := []struct {
		lang Language
		w    string
		want bool
	}{
		{English, "the", true}, {English, "would", true}, {English, "isn", true}, {English, "database", false},
		{French, "les", true}, {French, "de", true}, {French, "été", true},
		{Spanish, "que", true}, {Russian, "и", true}, {Swedish, "och", true},
		{Norwegian, "og", true}, {Hungarian, "és", true},
		{Chinese, "的", true}, {Chinese, "我们", true}, {Chinese, "系统", false}, {Chinese, "的系", false},
		{Chinese, "the", true}, // Latin words in CJK pages use the English list
		{Japanese, "の", true}, {Korean, "한국", false},
	}
	for _, c := range cases {
		if got := IsStopWord(c.lang, c.w); got != c.want {
			t.Errorf("IsStopWord(%s, %q) = %v, want %v", c.lang, c.w, got, c.want)
		}
	}
}

func TestPipelineStopAndStem(t *testing.T) {
	var p Pipeline
	pg, err := p.Process([]byte("The meetings were closed. Meeting closely!"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"meet", "close", "meet", "close"}; !slices.Equal(pg.Tokens, want) {
		t.Errorf("Tokens = %q, want %q", pg.Tokens, want)
	}
	// Chinese: stop characters dropped as unigrams, all-stop bigrams dropped.
	pg, err = p.Process([]byte("我们的系统是在运行。的"))
	if err != nil {
		t.Fatal(err)
	}
	if pg.Language != Chinese {
		t.Errorf("Language = %q, want zh", pg.Language)
	}
	for _, tok := range pg.Tokens {
		if isCJKStop(tok) {
			t.Errorf("stop token %q kept in %q", tok, pg.Tokens)
		}
	}
	if !slices.Contains(pg.Tokens, "系统") || slices.Contains(pg.Tokens, "我们") || slices.Contains(pg.Tokens, "的") {
		t.Errorf("Tokens = %q", pg.Tokens)
	}

	// Options switch the stages off.
	p2, _ := New(Options{KeepStopWords: true, NoStem: true})
	pg, _ = p2.Process([]byte("The meetings were closed."))
	if want := []string{"the", "meetings", "were", "closed"}; !slices.Equal(pg.Tokens, want) {
		t.Errorf("Tokens = %q, want %q", pg.Tokens, want)
	}
	p3, _ := New(Options{MinTokenLen: 3, MaxTokenLen: 6})
	pg, _ = p3.Process([]byte("ab abc abcdef abcdefg 12 123 中"))
	if want := []string{"abc", "abcdef", "123", "中"}; !slices.Equal(pg.Tokens, want) {
		t.Errorf("Tokens = %q, want %q", pg.Tokens, want)
	}
}

func TestDetectLanguage(t *testing.T) {
	type tc struct {
		text      string
		want, alt Language // alt: also right (a short text may be Undetermined)
	}
	cases := []tc{
		{"通过使用虚拟系统，我们能在单个机器上同时运行多个系统。参见 Debian wiki 的系统虚拟化。", Chinese, ""},
		{"操作系统级的容器虚拟化，加上内核级的支持，比如 LXC (Linux Containers), Docker, systemd-nspawn(1)", Chinese, ""},
		{"日本語のテキストは、ひらがなとカタカナと漢字で書かれています。", Japanese, ""},
		{"한국어 텍스트는 한글로 씁니다.", Korean, ""},
		{"The quick brown fox jumps over the lazy dog and runs into the forest.", English, ""},
		{"Le chat est sur la table et il dort dans la maison avec les enfants.", French, ""},
		{"El perro está en la casa y los niños juegan con él en el jardín.", Spanish, ""},
		{"Я не знаю, что он делает в этом доме, но мы его видим.", Russian, ""},
		{"Det är en bok som jag har läst och den är mycket bra.", Swedish, ""},
		// Cyrillic pages of languages other than Russian were English.
		{"Ця програма дозволяє переглянути вміст файлу, але вона не змінює його, якщо ви не вкажете інший параметр.", Ukrainian, ""},
		{"Тази програма показва съдържанието на файла, но не го променя, ако не зададете друг параметър.", Bulgarian, Undetermined},
		{"Ovo je slobodan softver koji se može koristiti i menjati, ali bez ikakve garancije.", Undetermined, ""},
		{"Dette program viser indholdet af filen, men det ændrer ikke noget, hvis du ikke beder om det.", Danish, Undetermined},
		{"Dieses Programm zeigt den Inhalt der Datei an, aber es ändert nichts, wenn Sie es nicht wollen.", German, ""},
		// A Javadoc class hierarchy page, which was Norwegian ("for", "java" ...).
		{"org.yaml.snakeyaml.events Class Hierarchy (SnakeYAML 1.33 API) JavaScript is disabled on your browser. " +
			"Skip navigation links Overview Package Class Use Tree Deprecated Index Help SEARCH: Hierarchy For Package " +
			"org.yaml.snakeyaml.events Package Hierarchies: All Packages Class Hierarchy java.lang. Object " +
			"org.yaml.snakeyaml.events. Event org.yaml.snakeyaml.events. CollectionEndEvent org.yaml.snakeyaml.events. " +
			"MappingEndEvent Enum Hierarchy java.lang. Object java.lang. Enum <E> (implements java.lang. Comparable <T>, " +
			"java.lang.constant.Constable, java.io. Serializable ) org.yaml.snakeyaml.events. Event.ID Copyright © 2008–2023. " +
			"All rights reserved.", English, Undetermined},
		{"12345 67890", Undetermined, ""},
		{"", Undetermined, ""},
	}
	for _, c := range cases {
		if got := DetectLanguage(c.text); got != c.want && (c.alt == "" || got != c.alt) {
			t.Errorf("DetectLanguage(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestTermsAndTop(t *testing.T) {
	var p Pipeline
	pg, err := p.Process([]byte("web web web mining mining data zeta alpha"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Term{{"web", 3}, {"mine", 2}, {"alpha", 1}, {"data", 1}, {"zeta", 1}}
	if !slices.Equal(pg.Terms, want) {
		t.Errorf("Terms = %v, want %v", pg.Terms, want)
	}
	if got := pg.Top(3); !slices.Equal(got, want[:3]) {
		t.Errorf("Top(3) = %v", got)
	}
	if got := pg.Top(100); !slices.Equal(got, want) {
		t.Errorf("Top(100) = %v", got)
	}
	if pg.Top(0) != nil || pg.Top(-1) != nil {
		t.Error("Top(n<=0) != nil")
	}
	top := pg.Top(1)
	top[0].Count = 99
	if pg.Terms[0].Count != 3 {
		t.Error("Top shares memory with Terms")
	}
	// Interning: equal tokens are the same string.
	if strings.Join(pg.Tokens, " ") != "web web web mine mine data zeta alpha" {
		t.Errorf("Tokens = %q", pg.Tokens)
	}
}

func TestErrors(t *testing.T) {
	var p Pipeline
	small, _ := New(Options{MaxBytes: 10})
	cases := []struct {
		name string
		p    *Pipeline
		in   []byte
		want error
	}{
		{"nil", &p, nil, ErrEmpty},
		{"empty", &p, []byte{}, ErrEmpty},
		{"whitespace", &p, []byte(" \n\t\r\n "), ErrEmpty},
		{"bom only", &p, []byte("\uFEFF"), ErrEmpty},
		{"html no text", &p, []byte("<html><head><title>x</title><script>a()</script></head><body><!-- c --></body></html>"), ErrEmpty},
		{"html whitespace", &p, []byte("<div>  &nbsp; </div>"), ErrEmpty},
		{"binary", &p, []byte("\x00\x01\x02PNG\x1a\x00\x00\x0dIHDR\x00\x00\x00\x10\x08\x06\x00"), ErrInvalidUTF8},
		{"too large", small, []byte("01234567890"), ErrTooLarge},
	}
	for _, c := range cases {
		pg, err := c.p.Process(c.in)
		if !errors.Is(err, c.want) || pg != nil {
			t.Errorf("%s: Process = %v, %v; want %v", c.name, pg, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "preprocess: ") {
			t.Errorf("%s: error %q lacks the package prefix", c.name, err)
		}
	}
	// A declared Western charset is decoded.
	pg, err := p.Process([]byte("<meta charset=\"ISO-8859-1\"><p>caf\xe9 cr\x92s</p>"))
	if err != nil || pg.Text != "café cr’s" {
		t.Errorf("latin1: %v, %v", pg, err)
	}
}

func TestNewInvalidOptions(t *testing.T) {
	bad := []Options{
		{MaxBytes: -1},
		{Language: "english"},
		{Language: "xx"},
		{Language: Undetermined},
		{MinTokenLen: -1},
		{MaxTokenLen: -2},
		{MaxTokens: -1},
		{MaxTerms: -1},
		{MinTokenLen: 10, MaxTokenLen: 5},
		{ExtraStopWords: []string{""}},
		{ExtraStopWords: []string{"\xff"}},
	}
	for _, o := range bad {
		p, err := New(o)
		if !errors.Is(err, ErrInvalidOption) || p != nil {
			t.Errorf("New(%+v) = %v, %v; want ErrInvalidOption", o, p, err)
		}
	}
	for _, l := range SupportedLanguages() {
		if _, err := New(Options{Language: l}); err != nil {
			t.Errorf("New(Language %q): %v", l, err)
		}
	}
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var zero Pipeline
	if got, want := p.Options(), zero.Options(); got.MaxBytes != want.MaxBytes || got.MaxBytes != DefaultMaxBytes || got.MinTokenLen != DefaultMinTokenLen {
		t.Errorf("defaults: New %+v, zero %+v", got, want)
	}
}

func TestForcedLanguage(t *testing.T) {
	p, _ := New(Options{Language: French})
	pg, err := p.Process([]byte("Les chats mangeaient les souris"))
	if err != nil {
		t.Fatal(err)
	}
	if pg.Language != French || !slices.Equal(pg.Tokens, []string{"chat", "mang", "sour"}) {
		t.Errorf("got %s %q", pg.Language, pg.Tokens)
	}
}

// classifyRef is classify as it was before its shortcuts for punctuation:
// the definition the shortcuts must agree with.
func classifyRef(r rune) charClass {
	if r < utf8.RuneSelf {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || ('A' <= r && r <= 'Z') {
			return classWord
		}
		return classSep
	}
	switch {
	case 0x4E00 <= r && r <= 0x9FFF, 0x3040 <= r && r <= 0x30FF, 0x3400 <= r && r <= 0x4DBF:
		return classCJK // CJK unified ideographs, Hiragana, Katakana (incl. ー), extension A
	case 0xAC00 <= r && r <= 0xD7A3:
		return classHangul
	case 0xFF10 <= r && r <= 0xFF19, 0xFF21 <= r && r <= 0xFF3A, 0xFF41 <= r && r <= 0xFF5A:
		return classWord // full-width ASCII letters and digits
	case r == 0x3005 || r == 0x3006 || r == 0x3007: // 々 〆 〇
		return classCJK
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
		return classCJK
	case unicode.Is(unicode.Hangul, r):
		if unicode.IsLetter(r) {
			return classHangul
		}
		return classSep
	case unicode.IsLetter(r), unicode.IsDigit(r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Mc, r):
		return classWord
	}
	return classSep
}

// TestClassifyFastPaths checks classify's range shortcuts against the
// Unicode tables for every rune.
func TestClassifyFastPaths(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := classify(r), classifyRef(r); got != want {
			t.Fatalf("classify(%U) = %d, want %d", r, got, want)
		}
	}
}

// TestIsSentenceTerminal checks isSentenceTerminal's shortcuts against the
// Unicode table for every non-ASCII rune.
func TestIsSentenceTerminal(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if got, want := isSentenceTerminal(r), unicode.Is(unicode.Sentence_Terminal, r); got != want {
			t.Fatalf("isSentenceTerminal(%U) = %v, want %v", r, got, want)
		}
	}
}
