package preprocess_test

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup/preprocess"
)

func Example() {
	var p preprocess.Pipeline // the zero value uses the defaults
	page, err := p.Process([]byte(`<html><head><title>Crawling</title>
<script>track()</script></head><body>
<h1>Web crawling</h1>
<p>A crawler downloads web pages, e.g. news pages. Crawlers revisit the pages that they have seen daily!</p>
</body></html>`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(page.Language)
	for _, s := range page.Sentences {
		fmt.Println("-", s)
	}
	fmt.Println(strings.Join(page.Tokens, " "))
	fmt.Println(page.Top(3))
	// Output:
	// en
	// - Web crawling
	// - A crawler downloads web pages, e.g. news pages.
	// - Crawlers revisit the pages that they have seen daily!
	// web crawl crawler download web page news page crawler revisit page seen daili
	// [{page 3} {crawler 2} {web 2}]
}

func ExampleNew() {
	p, err := preprocess.New(preprocess.Options{Language: preprocess.Chinese})
	if err != nil {
		fmt.Println(err)
		return
	}
	page, _ := p.ProcessContent([]byte("我们的虚拟化系统。"), "text/plain")
	fmt.Println(page.Tokens)
	_, err = preprocess.New(preprocess.Options{Language: "klingon"})
	fmt.Println(err != nil)
	// Output:
	// [的虚 虚拟 拟化 化系 系统]
	// true
}

func ExampleScanSentences() {
	// ScanSentences is a bufio.SplitFunc; here it is called directly.
	data := []byte("Dr. Smith paid 3.50 dollars. 你好。世界！")
	for len(data) > 0 {
		adv, tok, _ := preprocess.ScanSentences(data, true)
		if tok != nil {
			fmt.Printf("%q\n", tok)
		}
		data = data[adv:]
	}
	// Output:
	// "Dr. Smith paid 3.50 dollars."
	// "你好。"
	// "世界！"
}

func ExamplePage_blocks() {
	var p preprocess.Pipeline
	page, err := p.ProcessContent([]byte(`<header><a href="/">Example News</a></header>
<nav><ul><li><a href="/">Home</a><li><a href="/world">World</a><li><a href="/sport">Sport</a></ul></nav>
<main><h1>Crawlers revisit pages</h1><p>A crawler downloads pages daily.</p></main>
<footer>Copyright Example News</footer>`), "text/html")
	if err != nil {
		fmt.Println(err)
		return
	}
	start := 0
	for _, b := range page.Blocks {
		fmt.Printf("%-10s %q %q\n", b.Kind, b.Text, page.Tokens[start:b.End])
		start = b.End
	}
	// Output:
	// header     "Example News" ["exampl" "news"]
	// navigation "Home" ["home"]
	// navigation "World" ["world"]
	// navigation "Sport" ["sport"]
	// content    "Crawlers revisit pages" ["crawler" "revisit" "page"]
	// content    "A crawler downloads pages daily." ["crawler" "download" "page" "daili"]
	// footer     "Copyright Example News" ["copyright" "exampl" "news"]
}
