// Package judge holds package minhash's verdict rules and what they
// compare, for its Detector and for a repository of records shared by
// processes (minhash/redisindex): a page's Feature (the hash of its text,
// its whole-page and content sketches, the block each content hash came
// from), the rules that decide whether two pages are near-duplicates
// (rules.go), and the Judge, which gives those verdicts on Records, a
// feature's form kept outside a Detector, with their binary forms. It is
// internal to minhash's modules: minhash's users get the Detector.
package judge

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash/internal/sketch"
	"github.com/neardup/neardup/preprocess"
)

// Feature is what a Detector computes once per document: the hash of its
// text, the sketch of the whole page, and the sketch of its content (the
// blocks its markup does not mark as navigation, header, footer or
// sidebar) with the block each content hash came from.
type Feature struct {
	Host    string
	Exact   uint64 // the hash of the page's text
	Page    sketch.Sketch
	Content sketch.Sketch
	Tags    []uint8  // Tags[i]: index in Blocks of the block of Content[i]
	Blocks  []uint32 // the distinct block keys of Content's hashes, ascending
	Share   uint8    // the content's share of the page's tokens, in 1/255
	// Keys[i] is the index key of Content[i]'s element (sketch.IndexKey),
	// for a shared repository's index; nil in a feature read back from
	// bytes.
	Keys []uint32
}

// minContentTokens is the least content, in tokens, that a page's content
// sketch is made of; a page with less has its lines that are mostly link
// text as content too (an index page whose entries are links), and a page
// with less still (a page that is all navigation, say) its whole text. A
// thin page whose few words of content are
// its own (a generated API page: a signature and "No description
// available.") keeps them as its content, so that two such pages are not
// matched through the navigation they share.
const minContentTokens = 8

type featureKey struct{ page, content, w int }

// Extract returns d's feature, computed once per Document and sketch sizes
// (o resolved), with the Builders of pool (a pool the caller keeps for o's
// sizes and leaves to Extract; nil for new Builders).
func Extract(d *neardup.Document, o Options, pool *sync.Pool) (Feature, error) {
	return neardup.Feature(d, featureKey{o.PageSketchSize, o.SketchSize, o.ShingleWidth}, func(d *neardup.Document) (Feature, error) {
		var bs *builders
		if pool != nil {
			bs, _ = pool.Get().(*builders)
		}
		if bs == nil {
			bs = &builders{sketch.NewBuilder(o.PageSketchSize, o.ShingleWidth), sketch.NewBuilder(o.SketchSize, o.ShingleWidth)}
		}
		f, err := featureOf(d, o, bs)
		if pool != nil {
			pool.Put(bs)
		}
		return f, err
	})
}

// builders are the two Builders of a feature, reused from page to page: a
// page's sketches are built in memory a previous page has just used, not
// in fresh memory.
type builders struct{ page, content *sketch.Builder }

// textBlock is one block of a page with its tokens.
type textBlock struct {
	key       uint32
	furniture bool
	linked    bool // a line of Content, furniture as mostly link text
	main      bool // inside the page's marked main content
	tokens    []string
}

// blocksOf returns the blocks of p with their analysed tokens, and whether
// p's markup marks its main content. A page made without Blocks (a Page
// built by hand) is read as one block per line.
//
// On a page that marks its main content (preprocess.Block.Main), the
// blocks outside it are furniture: what a site puts around the text it
// marks — a blog's list of recent posts, a wiki's sidebar — however the
// markup names them.
func blocksOf(p *preprocess.Page) ([]textBlock, bool) {
	if len(p.Blocks) == 0 {
		return linesOf(p), false
	}
	blocks := make([]textBlock, 0, len(p.Blocks))
	start, hasMain := 0, false
	for _, b := range p.Blocks {
		end := min(b.End, len(p.Tokens))
		toks := p.Tokens[start:max(start, end)]
		start = max(start, end)
		if len(toks) > 0 {
			fb := isFurniture(b)
			hasMain = hasMain || b.Main
			blocks = append(blocks, textBlock{furniture: fb, linked: fb && b.Kind == preprocess.Content, main: b.Main, tokens: toks})
		}
	}
	if hasMain {
		for i := range blocks {
			if b := &blocks[i]; !b.main {
				b.furniture, b.linked = true, false
			}
		}
	}
	return blocks, hasMain
}

// isFurniture reports whether a block is page furniture rather than the
// page's content: what the markup marks as navigation, header, footer,
// sidebar or form, and a line that is mostly link text (an entry of a menu
// that the markup does not mark). The entries of a table of contents the
// markup marks, lines mostly of link text, are content: a chapter page's
// are its outline (two releases of a manual whose chapters differ are
// different pages), and a manual's sidebar, the same on every page, is
// taken out as its host's template. Its other text (its title, the
// summaries beside its entries, which repeat the listed pages' own) is
// furniture.
func isFurniture(b preprocess.Block) bool {
	switch b.Kind {
	case preprocess.Content:
		return b.Links >= 0.8
	case preprocess.Contents:
		return b.Links < 0.8
	}
	return true
}

// linesOf returns the lines of p's text as blocks, tokenised.
func linesOf(p *preprocess.Page) []textBlock {
	var blocks []textBlock
	var toks []string
	for line := range strings.Lines(p.Text) {
		start := len(toks)
		toks = preprocess.AppendTokens(toks, line)
		j := start
		for _, t := range toks[start:] {
			if !preprocess.IsStopWord(p.Language, t) {
				toks[j] = t
				j++
			}
		}
		toks = toks[:j]
		if j > start {
			blocks = append(blocks, textBlock{tokens: toks[start:j:j]})
		}
	}
	return blocks
}

func featureOf(d *neardup.Document, o Options, bs *builders) (Feature, error) {
	blocks, hasMain := blocksOf(d.Page)
	if len(blocks) == 0 {
		return Feature{}, fmt.Errorf("minhash: document %q has no text: %w", d.ID, neardup.ErrNoFeatures)
	}
	f := Feature{Host: d.Host, Exact: xxhash.Sum64String(d.Page.Text)}
	pb, cb := bs.page, bs.content
	pb.Reset()
	cb.Reset()
	for i := range blocks {
		blk := &blocks[i]
		cb.SetTag(uint32(i))
		key := uint64(len(blk.tokens))
		for _, t := range blk.tokens {
			th := xxhash.Sum64String(t)
			pb.AddHash(th)
			if !blk.furniture {
				cb.AddHash(th)
			}
			if t[0] >= '0' && t[0] <= '9' {
				th = 0 // numbers: "page 3 of 12" and "page 4 of 12" are one block
			}
			key = (key ^ th) * 0x9e3779b97f4a7c15
		}
		blk.key = uint32(key>>32 ^ key)
	}
	f.Page = pb.Sketch()
	// Too little content: the page's lines mostly of link text count too,
	// then (pass 1) the whole page.
	for pass := 0; pass < 2 && !(pass == 1 && hasMain) && cb.Count() < minContentTokens && cb.Count() < pb.Count(); pass++ {
		cb.Reset()
		for i, blk := range blocks {
			if pass == 0 && blk.furniture && !blk.linked {
				continue
			}
			cb.SetTag(uint32(i))
			for _, t := range blk.tokens {
				cb.Add(t)
			}
		}
	}
	f.Share = uint8(255 * cb.Count() / max(pb.Count(), 1))
	var tags []uint32
	f.Content, tags, f.Keys = cb.Tagged()
	if len(f.Page) == 0 {
		return Feature{}, fmt.Errorf("minhash: document %q has no words: %w", d.ID, neardup.ErrNoFeatures)
	}
	keys := make([]uint32, len(tags))
	for i, t := range tags {
		keys[i] = blocks[t].key
	}
	slices.Sort(keys)
	f.Blocks = slices.Clone(slices.Compact(keys)) // exactly as long as needed: it is kept
	f.Tags = make([]uint8, len(tags))
	for i, t := range tags {
		j, _ := slices.BinarySearch(f.Blocks, blocks[t].key)
		f.Tags[i] = uint8(j)
	}
	return f, nil
}
