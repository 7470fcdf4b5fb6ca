package editdist_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/editdist"
	"github.com/neardup/neardup/preprocess"
)

// A reprint on another site with a new template and one sentence edited is a
// near-replica: its feature string (the character before each 。) keeps 4
// of the original's 5. A page without 。 cannot be decided.
func Example() {
	pipe := new(preprocess.Pipeline)
	doc := func(id, url, html string) *neardup.Document {
		d, err := neardup.NewDocument(pipe, id, url, "", []byte(html))
		if err != nil {
			panic(err)
		}
		return d
	}
	det, err := editdist.New(editdist.Options{}) // α = 0.8, β = 0.6, ε = 0.2
	if err != nil {
		panic(err)
	}
	original := doc("a", "https://news.example.cn/a", `<div>首页 | 新闻</div>
		<p>市政府今天宣布新公园正式开放。公园占地五十公顷。种植了上千棵树。市民可以免费入园。开放时间为早上六点到晚上十点。</p>
		<div>版权所有 © 新闻网</div>`)
	if err := det.Add(context.Background(), original); err != nil {
		panic(err)
	}
	reprint := doc("b", "https://portal.example.com/b", `<nav>门户 | 财经 | 体育 | 娱乐</nav><div>广告：立即购买</div>
		<p>市政府今天宣布新公园正式开放。公园占地五十公顷。种植了许多树木。市民可以免费入园。开放时间为早上六点到晚上十点。</p>`)
	f, _ := det.FeatureOf(reprint)
	fmt.Println("feature string:", string(f.String))
	matches, err := det.Match(context.Background(), reprint)
	if err != nil {
		panic(err)
	}
	for _, m := range matches {
		fmt.Printf("near-replica of %s: 1 − LCC/m = %.2f\n", m.ID, m.Score)
	}
	_, err = det.Match(context.Background(), doc("c", "", "<p>No Chinese full stop here.</p>"))
	fmt.Println(errors.Is(err, neardup.ErrNoFeatures))
	// Output:
	// feature string: 放顷木园点
	// near-replica of a: 1 − LCC/m = 0.20
	// true
}
