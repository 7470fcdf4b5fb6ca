package neardup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/neardup/neardup/internal/docid"
	"github.com/neardup/neardup/internal/sentinel"
	"github.com/neardup/neardup/preprocess"
)

// Errors shared by every method. Packages wrap them with their own prefix and
// the document ID, so callers test them with errors.Is.
var (
	// ErrNilDocument reports a nil *Document or a Document without a Page.
	ErrNilDocument = errors.New("neardup: nil document")
	// ErrNoFeatures reports a document from which a method can extract no
	// features (no keywords, no sentences, no 。 ...): the method cannot decide.
	ErrNoFeatures = errors.New("neardup: document has no features")
	// ErrInvalidOption reports a constructor option outside its documented range.
	ErrInvalidOption = sentinel.ErrInvalidOption
	// ErrDuplicateID reports an Add of an ID that is already kept.
	ErrDuplicateID = sentinel.ErrDuplicateID
	// ErrUnknownID reports a Remove or lookup of an ID that is not kept.
	ErrUnknownID = sentinel.ErrUnknownID
	// ErrInvalidID reports a document ID that no detector keeps: the empty
	// ID, or one longer than MaxIDLen bytes. Add, MatchOrAdd and Replace
	// refuse it before they look at the repository; error messages quote at
	// most a prefix of an ID.
	ErrInvalidID = docid.ErrInvalid
)

// MaxIDLen is the longest document ID, in bytes, that a detector keeps, the
// same for every detector and fleet backend: a URL of 2,048 bytes, the
// longest most crawlers and sitemaps accept, fits, and so does a
// PostgreSQL primary key. A longer ID (or the empty ID) is refused with an
// error wrapping ErrInvalidID; hash a longer key to make an ID of it.
const MaxIDLen = docid.MaxLen

// errorf is fmt.Errorf for this package's messages, which begin "neardup: ":
// a wrapped error whose text begins so too (a sentinel of this package, an
// error of a Cascade stage that is itself a Cascade) is printed without it,
// so that no message repeats the prefix. errors.Is and errors.As see the
// wrapped errors unchanged.
func errorf(format string, args ...any) error {
	for i, a := range args {
		if err, ok := a.(error); ok && strings.HasPrefix(err.Error(), prefix) {
			args[i] = unprefixed{err}
		}
	}
	return fmt.Errorf(format, args...)
}

const prefix = "neardup: "

// unprefixed is an error printed without this package's prefix.
type unprefixed struct{ err error }

func (u unprefixed) Error() string { return strings.TrimPrefix(u.err.Error(), prefix) }
func (u unprefixed) Unwrap() error { return u.err }

// Analyzer turns a fetched page into a preprocess.Page; contentType is the
// page's HTTP Content-Type (may be ""), for its charset and media type.
// *preprocess.Pipeline implements it.
type Analyzer interface {
	ProcessContent(raw []byte, contentType string) (*preprocess.Page, error)
}

// Document is one page, preprocessed once. Detectors read its features through
// Feature, which computes each of them once however many stages ask.
//
// A Document is safe for concurrent use by detectors; it must not be copied
// after first use. Raw and Page must not be modified once the document has
// been handed to a detector.
type Document struct {
	// ID is the caller's key for the page: a URL, a content hash, a row id.
	ID string
	// Host is the page's host name, lower-cased, for same-host rules.
	Host string
	// Raw is the page as fetched, for size rules and for methods that skip
	// content extraction.
	Raw []byte
	// Page is the preprocessed page: text, sentences, tokens, term frequencies.
	Page *preprocess.Page

	mu       sync.Mutex
	features map[any]*feature
}

type feature struct {
	once sync.Once
	v    any
	err  error
}

// NewDocument preprocesses raw, fetched from rawURL with the HTTP
// Content-Type header contentType, with a and returns the Document. rawURL
// may be empty; when it parses, its host becomes Document.Host. contentType
// may be empty; its charset decodes the page before any <meta> charset or
// detection does (see package preprocess/charset). The errors of a (empty,
// invalid UTF-8, too large, ...) are returned wrapped with id.
//
// To read a page from a body (an HTTP response's, a file) without reading
// more than the analyzer takes, read it with preprocess.ReadPage first:
//
//	raw, err := preprocess.ReadPage(resp.Body, pipe.Options().MaxBytes)
//	// ... handle err ...
//	doc, err := neardup.NewDocument(pipe, url, url, resp.Header.Get("Content-Type"), raw)
func NewDocument(a Analyzer, id, rawURL, contentType string, raw []byte) (*Document, error) {
	if a == nil {
		return nil, errorf("neardup: NewDocument %s: nil Analyzer: %w", docid.Quote(id), ErrInvalidOption)
	}
	page, err := a.ProcessContent(raw, contentType)
	if err != nil {
		return nil, errorf("neardup: document %s: %w", docid.Quote(id), err)
	}
	return &Document{ID: id, Host: docid.Host(rawURL), Raw: raw, Page: page}, nil
}

// Feature returns the feature of d stored under key, computing it with compute
// the first time any caller asks. Concurrent callers with the same key wait for
// the one computation and share its result (or its error). key must be
// comparable; packages use an unexported key type, as with context.Context
// values, so features of different packages never collide.
func Feature[T any](d *Document, key any, compute func(*Document) (T, error)) (T, error) {
	d.mu.Lock()
	if d.features == nil {
		d.features = make(map[any]*feature)
	}
	f, ok := d.features[key]
	if !ok {
		f = new(feature)
		d.features[key] = f
	}
	d.mu.Unlock()
	f.once.Do(func() { f.v, f.err = compute(d) })
	if f.err != nil {
		var zero T
		return zero, f.err
	}
	v, _ := f.v.(T)
	return v, nil
}

// Check returns ErrNilDocument (wrapped) when d is nil or has no Page, and nil
// otherwise. Detectors call it first.
func Check(d *Document) error {
	if d == nil {
		return ErrNilDocument
	}
	if d.Page == nil {
		return errorf("neardup: document %s has no Page: %w", docid.Quote(d.ID), ErrNilDocument)
	}
	return nil
}

// Measure names the unit of a Match's Score, so that a caller can tell which
// measure a score is in whatever detector or Cascade stage produced it. Each
// method package defines its measures as constants (simhash.Bits,
// sentence.CountDifference, shingle's Form.Measure, ...).
type Measure string

// Match is one kept document that a new document nearly duplicates.
type Match struct {
	// ID is the kept document's ID.
	ID string
	// Score is the distance between the new document and the kept one in
	// the unit Measure names: 0 for identical features, lower is closer,
	// for every method (Hamming bits for simhash, a dissimilarity for
	// shingle, one minus the overlap for editdist, SSM for ssm, the
	// sentence-count difference for sentence).
	Score float64
	// Measure is the unit of Score: the measure of the detector (or, in a
	// Cascade, of the last stage) that scored the match.
	Measure Measure
}

// String formats m as "ID (Score Measure)".
func (m Match) String() string {
	return fmt.Sprintf("%s (%g %s)", m.ID, m.Score, m.Measure)
}

// Detector keeps documents and finds the kept ones that a new document nearly
// duplicates. Implementations in this module are safe for concurrent use.
//
// Document IDs: a kept ID is 1 to MaxIDLen bytes; Add, MatchOrAdd and Replace
// refuse any other with an error wrapping ErrInvalidID. Match and Verify do
// not read the ID.
//
// Contexts: every method of this interface and of Verifier, Remover,
// MatchAdder and Replacer takes a context first. A detector whose calls wait
// on a server (minhash/redisindex, simhash/redisindex, simhash/pgindex)
// bounds and cancels the call with it; an in-process detector does not
// block and may ignore it. When a method returns the context's error, the
// method's contract on a failed call applies (for a server backend: the
// write may or may not have happened). Pass context.Background() rather
// than nil. Cascade, Window and cluster.Detector pass the context to each
// stage, window or part detector and check it before each one, so a cancelled call
// stops at the next stage; a Cascade's best-effort rollback of a failed Add
// removes the page without the context's cancellation
// (context.WithoutCancel), so that a cancelled call cannot leave a
// half-added page. The Persister methods take no context.
type Detector interface {
	// Match returns the kept documents that d nearly duplicates, best first.
	// It returns no matches and a nil error when there are none. A query of
	// a kept page finds the page itself, under its own ID, at distance 0.
	Match(ctx context.Context, d *Document) ([]Match, error)
	// Add keeps d for later comparisons. Adding an ID twice is an error
	// wrapping ErrDuplicateID.
	Add(ctx context.Context, d *Document) error
}

// Verifier is the second entry point a Cascade stage needs: given candidates
// found by an earlier stage, it returns those that d nearly duplicates by its
// own measure, with its own scores, best first. Candidates the verifier does
// not keep are not matches.
type Verifier interface {
	Verify(ctx context.Context, d *Document, candidates []Match) ([]Match, error)
}

// Remover is implemented by detectors that can forget a kept document.
// Removing an ID that is not kept returns an error wrapping ErrUnknownID.
type Remover interface {
	Remove(ctx context.Context, id string) error
}

// Replacer is implemented by detectors that take a page fetched again: Replace
// forgets what is kept under d.ID (if anything) and keeps d, unless d nearly
// duplicates another kept document, in which case it returns those matches
// and d.ID is no longer kept. It is one step, like MatchOrAdd, so no two
// near-duplicates are ever kept. The page kept under d.ID is never among its
// matches, so a Replace retried after a lost reply or an error whose write
// landed answers as the call it retries did: kept = true and no matches for
// a page that call kept (unless a near-duplicate was kept meanwhile by a
// plain Add, which checks nothing). The in-process detectors,
// simhash/redisindex and simhash/pgindex change nothing when the page kept
// under d.ID is d's page at distance 0.
type Replacer interface {
	Replace(ctx context.Context, d *Document) (matches []Match, kept bool, err error)
}

// MatchAdder is implemented by detectors with an atomic "add if new": it
// returns the matches of d, and when there are none it keeps d, with no other
// Add in between. Two concurrent near-duplicate pages can therefore never both
// be kept.
//
// Its own page: when d.ID is already kept and the page kept under it is d's
// page (at distance 0 in the detector's measure: the same text, fingerprint
// or features), MatchOrAdd changes nothing and returns no matches and added
// = true, whatever else d matches. So a page is never told it duplicates
// itself, and a call retried after a lost reply, a timeout or any error
// whose write landed hears what the first call would have said: "kept",
// never "near-duplicate of <its own ID>". This holds in process and through
// every fleet backend, without the call records the backends keep for
// their own re-sends.
//
// A kept ID with another page (the page changed since it was kept): the
// matches of d are returned, the page kept under d.ID among them when it is
// near d, with added = false; when d matches nothing, MatchOrAdd returns an
// error wrapping ErrDuplicateID. Neither keeps d: a page fetched again
// under its kept ID is Replace's (Replacer).
type MatchAdder interface {
	MatchOrAdd(ctx context.Context, d *Document) (matches []Match, added bool, err error)
}

// checkDoc returns Check's error, or one wrapping ErrInvalidID when d's ID
// cannot be kept, for the compositions' MatchOrAdd (their stages check
// Add themselves).
func checkDoc(op string, d *Document) error {
	if err := Check(d); err != nil {
		return err
	}
	if err := docid.Check(d.ID); err != nil {
		return errorf("neardup: %s %s: %w", op, docid.Quote(d.ID), err)
	}
	return nil
}

// OwnPage reports whether ms, the matches of a document with ID id, hold the
// page kept under id itself: a match under id at distance 0. A MatchAdder
// built from other detectors (Cascade, Window, cluster.Detector, or a caller's
// own) answers "added" when it does (see MatchAdder).
func OwnPage(id string, ms []Match) bool {
	for _, m := range ms {
		if m.ID == id && m.Score == 0 {
			return true
		}
	}
	return false
}

// SortMatches orders ms best first for methods whose Score is a distance:
// ascending Score, then ascending ID, so results are deterministic.
func SortMatches(ms []Match) {
	slices.SortFunc(ms, func(a, b Match) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
