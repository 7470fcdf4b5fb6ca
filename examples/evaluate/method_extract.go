//go:build extractors

package main

import (
	"bytes"
	"context"
	"flag"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	distiller "github.com/markusmobius/go-domdistiller"
	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
)

// optionalFamilies is the main-content extraction libraries' family when
// evaluate is built with -tags extractors.
func optionalFamilies() []family { return []family{extractorMethods} }

// An extractor returns the main-content text of an HTML page (raw, fetched
// from pageURL, which may be nil), or "" when it finds none.
type extractor func(raw []byte, pageURL *url.URL) (string, error)

// namedExtractor is one extraction library.
type namedExtractor struct {
	name, doc string
	extract   extractor
}

// extractors are the main-content extraction libraries measured against
// minhash's own content model, each at its documented defaults, with the
// work its result does not need (publication dates, pagination) switched
// off where the library has an option for it.
func extractors() []namedExtractor {
	return []namedExtractor{
		{"trafilatura", "github.com/markusmobius/go-trafilatura (ContentText, comments left out)", extractTrafilatura},
		{"readability", "codeberg.org/readeck/go-readability/v2 (the article's text)", extractReadability},
		{"distiller", "github.com/markusmobius/go-domdistiller (Result.Text)", extractDistiller},
	}
}

// extractorMethods is one method per extraction library: minhash at its
// defaults over the text the library extracts from each page (see
// extracted).
func extractorMethods(*flag.FlagSet) []method {
	var ms []method
	for _, e := range extractors() {
		ms = append(ms, method{
			name: "minhash-" + e.name,
			doc:  "minhash at its defaults over the main content " + e.doc + " extracts, as plain text; the page itself when it extracts nothing",
			new:  func() (neardup.Detector, error) { return newExtracted(e.extract) },
		})
	}
	return ms
}

func extractTrafilatura(raw []byte, pageURL *url.URL) (string, error) {
	r, err := trafilatura.Extract(bytes.NewReader(raw), trafilatura.Options{
		OriginalURL:     pageURL,
		ExcludeComments: true,
		HtmlDateMode:    trafilatura.Disabled,
	})
	if err != nil || r == nil {
		return "", err
	}
	return r.ContentText, nil
}

func extractReadability(raw []byte, pageURL *url.URL) (string, error) {
	a, err := readability.FromReader(bytes.NewReader(raw), pageURL)
	if err != nil || a.Node == nil {
		return "", err
	}
	var b strings.Builder
	if err := a.RenderText(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}

func extractDistiller(raw []byte, pageURL *url.URL) (string, error) {
	r, err := distiller.ApplyForReader(bytes.NewReader(raw), &distiller.Options{OriginalURL: pageURL, SkipPagination: true})
	if err != nil || r == nil {
		return "", err
	}
	return r.Text, nil
}

// extracted is a neardup.Detector and neardup.MatchAdder that hands its
// inner minhash detector (default options), in place of each document, one
// made of the main-content text an extraction library finds in the
// document's Raw bytes, preprocessed as plain text (so that minhash's own
// template model sees one block per paragraph and no markup). A page the
// library extracts nothing from, or fails on, or whose text has no tokens,
// is handed over as it is (the whole page, through minhash's own
// content model). It is safe for concurrent use when the extractor is.
type extracted struct {
	extract extractor
	pipe    preprocess.Pipeline
	inner   *minhash.Detector
}

func newExtracted(e extractor) (*extracted, error) {
	inner, err := minhash.New(minhash.Options{})
	if err != nil {
		return nil, err
	}
	return &extracted{extract: e, inner: inner}, nil
}

// content returns the document to hand the inner detector for d.
func (x *extracted) content(d *neardup.Document) *neardup.Document {
	if d == nil || len(d.Raw) == 0 {
		return d
	}
	text, err := x.extract(d.Raw, pageURL(d))
	if err != nil || strings.TrimSpace(text) == "" {
		return d
	}
	page, err := x.pipe.ProcessContent([]byte(text), "text/plain")
	if err != nil || len(page.Tokens) == 0 {
		return d
	}
	return &neardup.Document{ID: d.ID, Host: d.Host, Raw: d.Raw, Page: page}
}

// pageURL is the URL the extractors are given for d: its ID when that is an
// absolute URL, else the root of its host, else nil.
func pageURL(d *neardup.Document) *url.URL {
	if u, err := url.Parse(d.ID); err == nil && u.IsAbs() && u.Host != "" {
		return u
	}
	if d.Host != "" {
		return &url.URL{Scheme: "https", Host: d.Host, Path: "/"}
	}
	return nil
}

// Match returns the inner detector's matches for d's main content.
func (x *extracted) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	return x.inner.Match(ctx, x.content(d))
}

// Add keeps d's main content in the inner detector.
func (x *extracted) Add(ctx context.Context, d *neardup.Document) error {
	return x.inner.Add(ctx, x.content(d))
}

// MatchOrAdd is the inner detector's MatchOrAdd on d's main content.
func (x *extracted) MatchOrAdd(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	return x.inner.MatchOrAdd(ctx, x.content(d))
}
