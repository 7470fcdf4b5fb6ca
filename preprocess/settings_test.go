package preprocess

import "testing"

func TestSettings(t *testing.T) {
	var zero Pipeline
	def, _ := New(Options{MaxBytes: 1 << 10, StemCacheSize: -1, MaxTerms: DefaultMaxTerms})
	if zero.Settings() != def.Settings() {
		t.Errorf("MaxBytes and StemCacheSize changed Settings: %q, %q", zero.Settings(), def.Settings())
	}
	want := "preprocess v2 language=detect stopwords=true stem=true extra=[] mintokenlen=2 maxtokenlen=64 maxtokens=262144"
	if got := zero.Settings(); got != want {
		t.Errorf("Settings() = %q, want %q", got, want)
	}
	a, _ := New(Options{ExtraStopWords: []string{"B", "a", "b"}})
	b, _ := New(Options{ExtraStopWords: []string{"a", "b"}})
	if a.Settings() != b.Settings() {
		t.Errorf("the same stop words in another order or case: %q, %q", a.Settings(), b.Settings())
	}
	seen := map[string]bool{zero.Settings(): true}
	for _, o := range []Options{{Language: "en"}, {KeepStopWords: true}, {NoStem: true}, {ExtraStopWords: []string{"x"}}, {MinTokenLen: 3}, {MaxTokenLen: 32}, {MaxTokens: 100}, {MaxTerms: 100}} {
		p, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if seen[p.Settings()] {
			t.Errorf("Options %+v: Settings %q not distinct", o, p.Settings())
		}
		seen[p.Settings()] = true
	}
}
