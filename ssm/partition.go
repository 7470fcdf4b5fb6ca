package ssm

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/snapshot"
)

// Domain is one domain of the repository (§4: the paper's five are Software
// Engineering, Mechanical Engineering, Civil Engineering, Electrical
// Electronics Engineering and Biological Science), defined by its keyword
// vocabulary.
type Domain struct {
	// Name is for the caller; it is not compared.
	Name string
	// Keywords are compared with the texts of a page's top terms, which are
	// analysed (lower-cased, stop words removed, stemmed; Han text as
	// character bigrams): pass analysed forms, for example through
	// AnalyzeKeywords with the pipeline that preprocesses the pages.
	Keywords []string
}

// SizeRange is one size bucket: pages of From to To bytes, inclusive. To = 0
// means no upper bound (only the last bucket may have it).
type SizeRange struct{ From, To int }

// DefaultSizes returns the paper's size buckets (§4): 1–64 KB, 65–128 KB
// and ≥ 129 KB, with KB = 1024 bytes and a size in KB rounded up, so that
// every size falls in one bucket: 0..65536, 65537..131072 and 131073 bytes
// on. Each call returns a new slice.
func DefaultSizes() []SizeRange {
	return []SizeRange{{0, 64 << 10}, {64<<10 + 1, 128 << 10}, {128<<10 + 1, 0}}
}

// PartitionOptions configures a Partitioner.
type PartitionOptions struct {
	// Domains are the domains; at least one, each with at least one
	// non-empty keyword.
	Domains []Domain
	// Sizes are the size buckets, ascending, starting at 0, each starting
	// one byte after the previous one ends, the last unbounded (To = 0).
	// Nil means DefaultSizes().
	Sizes []SizeRange
	// Margin, in bytes, makes a page within Margin bytes of a bucket's
	// boundary also probe the neighbouring bucket across it (Match only;
	// Add keeps the page in its own bucket), so a near-duplicate that grew
	// or shrank across the boundary is still found. Zero is the paper's
	// rule: one bucket. Negative is invalid.
	Margin int
	// N is the number of top keywords of a page that are matched with the
	// vocabularies. Zero means DefaultN (the paper's 10); valid 1..MaxN.
	// The table is shared with a Detector of the same N (neardup.Feature).
	N int
}

// Partitioner splits the repository by domain and by page size (§4), so a new
// page is compared only within its part: 1/15 of the repository with five
// domains and three sizes when pages spread evenly. As the Partitioner of a
// cluster.Detector (cluster.Options.Partitioner) it keeps a detector of any
// method in each part.
//
// A page's domain is the one whose vocabulary holds the most of its top N
// keywords (each keyword counts once per domain); a tie goes to the lowest
// domain index, and a page none of whose keywords is in any vocabulary goes
// to a domain of its own, "other" (index len(Domains)). Its size is len(Raw)
// of the document, or len(Page.Text) when Raw is nil. Part numbers are
// domain·len(Sizes) + bucket.
//
// A Partitioner is immutable and safe for concurrent use.
type Partitioner struct {
	o     PartitionOptions
	vocab map[string][]int32 // keyword -> domains that hold it
}

// NewPartitioner returns a Partitioner. No domain, a domain without keywords,
// size buckets that overlap, leave a gap, are not ascending, do not start at
// 0 or end bounded, a negative Margin or N out of range return an error
// wrapping neardup.ErrInvalidOption.
func NewPartitioner(o PartitionOptions) (*Partitioner, error) {
	bad := func(format string, args ...any) (*Partitioner, error) {
		return nil, fmt.Errorf("ssm: NewPartitioner: "+format+": %w", append(args, neardup.ErrInvalidOption)...)
	}
	if o.N == 0 {
		o.N = DefaultN
	}
	if o.N < 1 || o.N > MaxN {
		return bad("N = %d not in 1..%d", o.N, MaxN)
	}
	if o.Margin < 0 {
		return bad("Margin = %d is negative", o.Margin)
	}
	if len(o.Domains) == 0 {
		return bad("no domain")
	}
	if o.Sizes == nil {
		o.Sizes = DefaultSizes()
	}
	if err := checkSizes(o.Sizes); err != nil {
		return bad("%v", err)
	}
	p := &Partitioner{vocab: make(map[string][]int32)}
	o.Domains = append([]Domain(nil), o.Domains...)
	o.Sizes = append([]SizeRange(nil), o.Sizes...)
	for i, dom := range o.Domains {
		n := 0
		for _, w := range dom.Keywords {
			if w == "" {
				continue
			}
			ds := p.vocab[w]
			if len(ds) > 0 && ds[len(ds)-1] == int32(i) {
				continue // repeated in this domain
			}
			p.vocab[w] = append(ds, int32(i))
			n++
		}
		if n == 0 {
			return bad("domain %d (%q) has an empty vocabulary", i, dom.Name)
		}
		o.Domains[i].Keywords = append([]string(nil), dom.Keywords...)
	}
	p.o = o
	return p, nil
}

// checkSizes returns why sizes are not a partition of [0, ∞) into ascending
// buckets, or nil.
func checkSizes(sizes []SizeRange) error {
	if len(sizes) == 0 {
		return fmt.Errorf("no size bucket")
	}
	if sizes[0].From != 0 {
		return fmt.Errorf("size bucket 0 starts at %d, want 0", sizes[0].From)
	}
	for i, s := range sizes {
		last := i == len(sizes)-1
		switch {
		case s.To == 0 && !last:
			return fmt.Errorf("size bucket %d (%d..) is unbounded but not the last: it overlaps bucket %d", i, s.From, i+1)
		case s.To == 0:
		case s.To < s.From:
			return fmt.Errorf("size bucket %d ends at %d before it starts at %d", i, s.To, s.From)
		case last:
			return fmt.Errorf("the last size bucket ends at %d: larger pages have no bucket (use To = 0)", s.To)
		}
		if i == 0 {
			continue
		}
		prev := sizes[i-1]
		switch {
		case s.From <= prev.To:
			return fmt.Errorf("size buckets %d (%d..%d) and %d (%d..) overlap or are not ascending", i-1, prev.From, prev.To, i, s.From)
		case s.From > prev.To+1:
			return fmt.Errorf("size buckets %d (..%d) and %d (%d..) leave a gap", i-1, prev.To, i, s.From)
		}
	}
	return nil
}

// Parts returns the number of parts: (len(Domains) + 1) · len(Sizes), the
// "other" domain included.
func (p *Partitioner) Parts() int { return (len(p.o.Domains) + 1) * len(p.o.Sizes) }

// Split returns the domain and size bucket of a part number.
func (p *Partitioner) Split(part int) (domain, bucket int) {
	return part / len(p.o.Sizes), part % len(p.o.Sizes)
}

// DomainName returns the name of domain i, "other" for len(Domains).
func (p *Partitioner) DomainName(i int) string {
	if i >= 0 && i < len(p.o.Domains) {
		return p.o.Domains[i].Name
	}
	if i == len(p.o.Domains) {
		return "other"
	}
	return "domain(" + strconv.Itoa(i) + ")"
}

// Domain returns d's domain: the index of the domain whose vocabulary holds
// the most of d's top N keywords, ties to the lowest index, or len(Domains)
// ("other") when none holds any. Errors are TableOf's.
func (p *Partitioner) Domain(d *neardup.Document) (int, error) {
	t, err := TableOf(d, p.o.N)
	if err != nil {
		return 0, err
	}
	var small [16]int
	var counts []int
	if len(p.o.Domains) <= len(small) {
		counts = small[:len(p.o.Domains)]
	} else {
		counts = make([]int, len(p.o.Domains))
	}
	for _, term := range t.terms {
		for _, i := range p.vocab[term.Text] {
			counts[i]++
		}
	}
	best := len(p.o.Domains)
	for i, c := range counts {
		if c > 0 && (best == len(p.o.Domains) || c > counts[best]) {
			best = i
		}
	}
	return best, nil
}

// Bucket returns the size bucket of a page of size bytes.
func (p *Partitioner) Bucket(size int) int {
	for i, s := range p.o.Sizes {
		if s.To == 0 || size <= s.To {
			return i
		}
	}
	return len(p.o.Sizes) - 1 // unreachable: the last bucket is unbounded
}

// size returns the size of d's page in bytes.
func size(d *neardup.Document) int {
	if d.Raw != nil {
		return len(d.Raw)
	}
	return len(d.Page.Text)
}

// Partition returns d's home part, domain·len(Sizes) + bucket, and with a
// Margin the part of the neighbouring bucket of the same domain when d's size
// is within Margin bytes of the boundary between them.
// Errors are TableOf's.
func (p *Partitioner) Partition(d *neardup.Document) ([]int, error) {
	dom, err := p.Domain(d)
	if err != nil {
		return nil, err
	}
	sz := size(d)
	b := p.Bucket(sz)
	base := dom * len(p.o.Sizes)
	parts := []int{base + b}
	if m := p.o.Margin; m > 0 {
		s := p.o.Sizes[b]
		if b > 0 && sz-s.From < m {
			parts = append(parts, base+b-1)
		}
		if s.To != 0 && s.To-sz < m {
			parts = append(parts, base+b+1)
		}
	}
	return parts, nil
}

// Options returns the partitioner's options, defaults filled in.
func (p *Partitioner) Options() PartitionOptions { return p.o }

// AnalyzeKeywords returns the distinct analysed forms of words as a would
// analyse them in a page (lower-cased, stop words dropped, stemmed, Han text
// as bigrams), in order of first appearance, for Domain.Keywords. Words that
// analyse to nothing (stop words) are dropped.
func AnalyzeKeywords(a neardup.Analyzer, words ...string) ([]string, error) {
	if a == nil {
		return nil, fmt.Errorf("ssm: AnalyzeKeywords: nil Analyzer: %w", neardup.ErrInvalidOption)
	}
	var out []string
	seen := make(map[string]bool)
	for _, w := range words {
		if strings.TrimSpace(w) == "" {
			continue
		}
		page, err := a.ProcessContent([]byte(w), "")
		if err != nil {
			continue // only stop words, or nothing to analyse
		}
		for _, tok := range page.Tokens {
			if !seen[tok] {
				seen[tok] = true
				out = append(out, tok)
			}
		}
	}
	return out, nil
}

// params are what places a page in its home part: N, the size buckets and
// the domains' vocabularies (as a count and an xxhash digest). Margin only
// widens Match, so a snapshot can be read with another.
func (p *Partitioner) params() []snapshot.Param {
	var sizes strings.Builder
	for i, s := range p.o.Sizes {
		if i > 0 {
			sizes.WriteByte(',')
		}
		fmt.Fprintf(&sizes, "%d-%d", s.From, s.To)
	}
	h := xxhash.New()
	for _, dom := range p.o.Domains {
		for _, w := range dom.Keywords {
			h.WriteString(w)
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	return []snapshot.Param{
		{Name: "N", Value: strconv.Itoa(p.o.N)},
		{Name: "Sizes", Value: sizes.String()},
		{Name: "Domains", Value: strconv.Itoa(len(p.o.Domains)) + ":" + strconv.FormatUint(h.Sum64(), 16)},
	}
}

// WriteTo writes a snapshot that records what places pages in parts (N, the
// size buckets, a digest of the vocabularies), so that the snapshot of a
// cluster.Detector partitioned by it is read back only by one whose
// Partitioner places pages the same way (neardup.Persister). The
// Partitioner has no other state.
func (p *Partitioner) WriteTo(w io.Writer) (int64, error) {
	return snapshot.NewWriter(w, "ssm.Partitioner", p.params()).Close()
}

// ReadFrom reads a snapshot written by WriteTo; one written by a Partitioner
// that places pages otherwise returns an error wrapping
// neardup.ErrSnapshotMismatch.
func (p *Partitioner) ReadFrom(r io.Reader) (int64, error) {
	_, n, err := p.Restore(r)
	return n, err
}

// Restore is ReadFrom; there is nothing to install.
func (p *Partitioner) Restore(r io.Reader) (install func(), n int64, err error) {
	sr, err := snapshot.NewReader(r, "ssm.Partitioner", p.params())
	if err != nil {
		return nil, 0, fmt.Errorf("ssm: Partitioner: %w", err)
	}
	if n, err = sr.Close(); err != nil {
		return nil, n, fmt.Errorf("ssm: Partitioner: %w", err)
	}
	return func() {}, n, nil
}

var _ neardup.Persister = (*Partitioner)(nil)
