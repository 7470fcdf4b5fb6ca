// Package template learns, page by page, the text blocks that recur across
// the pages of a site (navigation, sidebars, footers, cookie notices) so that
// a near-duplicate test can discount them: a block is template on a host once
// it has been seen on MinPages earlier pages of that host.
//
// A block is one line of a page's visible text (preprocess keeps block
// elements as lines), compared after lower-casing, collapsing white space and
// turning digits into 0 (so "Page 3 of 12" and "Page 4 of 12" are one block).
// Memory is bounded: each host keeps at most MaxBlocks block counts (when
// full, the blocks seen on one page only are dropped first) and the model at
// most MaxHosts hosts (the least recently seen goes first). A Model is not
// safe for concurrent use.
package template

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/internal/snapshot"
)

// Defaults of a Model.
const (
	MinPages  = 3
	MaxBlocks = 1 << 15
	MaxHosts  = 1 << 12
)

// Model counts, per host, the pages each block has been seen on.
type Model struct {
	minPages, maxBlocks, maxHosts int

	hosts map[string]*host
	clock uint64 // for the least recently seen host
}

type host struct {
	pages   uint64            // pages observed
	count   map[uint32]uint32 // block key -> pages seen on
	seen    uint64            // clock when last observed
	version uint64            // blocks that have become template so far
}

// New returns an empty Model in which a block is template once seen on
// minPages pages of a host (MinPages when minPages ≤ 0), with the default
// bounds.
func New(minPages int) *Model {
	if minPages <= 0 {
		minPages = MinPages
	}
	return &Model{minPages: minPages, maxBlocks: MaxBlocks, maxHosts: MaxHosts, hosts: make(map[string]*host)}
}

// Block returns the hash of a block of text as the model compares it, and
// false for a block with no letter or digit (which is never template nor
// content).
func Block(text string) (uint64, bool) {
	var buf [256]byte
	b := buf[:0]
	space, any := false, false
	for _, r := range text {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsDigit(r):
			r = '0'
			any = true
		case unicode.IsLetter(r):
			r = unicode.ToLower(r)
			any = true
		}
		if space && len(b) > 0 {
			b = append(b, ' ')
		}
		space = false
		b = utf8.AppendRune(b, r)
	}
	if !any {
		return 0, false
	}
	return xxhash.Sum64(b), true
}

// Key is the 32-bit key of a block hash in a Model (and a tag in MinHash
// sketches).
func Key(h uint64) uint32 { return uint32(h ^ h>>32) }

// Blocks returns the blocks of text (its lines) with their hashes, skipping
// those without a letter or digit.
func Blocks(text string) (blocks []string, hashes []uint64) {
	for line := range strings.Lines(text) {
		if h, ok := Block(line); ok {
			blocks = append(blocks, line)
			hashes = append(hashes, h)
		}
	}
	return blocks, hashes
}

// IsTemplate reports whether the block with key h has been seen on at least
// minPages pages of host.
func (m *Model) IsTemplate(hostName string, h uint32) bool {
	hs := m.hosts[hostName]
	return hs != nil && hs.count[h] >= uint32(m.minPages)
}

// Version returns a number that changes whenever a block of host becomes
// template, so that what was derived from the template of a host can be kept
// until it changes. It is 0 for a host never observed.
func (m *Model) Version(hostName string) uint64 {
	if hs := m.hosts[hostName]; hs != nil {
		return hs.version
	}
	return 0
}

// Pages returns the number of pages of host observed (since the host was
// last dropped for room).
func (m *Model) Pages(hostName string) uint64 {
	if hs := m.hosts[hostName]; hs != nil {
		return hs.pages
	}
	return 0
}

// Observe counts a page of host with the block keys of its text (each
// distinct block once).
func (m *Model) Observe(hostName string, hashes []uint32) {
	hs := m.hosts[hostName]
	if hs == nil {
		if len(m.hosts) >= m.maxHosts {
			m.dropOldestHost()
		}
		hs = &host{count: make(map[uint32]uint32)}
		m.hosts[hostName] = hs
	}
	m.clock++
	hs.seen = m.clock
	hs.pages++
	for i, h := range hashes {
		if repeated(hashes[:i], h) {
			continue
		}
		if hs.count[h] == 0 && len(hs.count) >= m.maxBlocks {
			hs.prune(m.maxBlocks/2, uint32(m.minPages))
		}
		if hs.count[h]++; hs.count[h] == uint32(m.minPages) {
			hs.version++
		}
	}
}

// repeated reports whether h is among the earlier hashes of a page (pages
// have a few hundred blocks; a short scan beats a set for most).
func repeated(earlier []uint32, h uint32) bool {
	if len(earlier) > 64 {
		earlier = earlier[len(earlier)-64:] // repeats are mostly near
	}
	for _, e := range earlier {
		if e == h {
			return true
		}
	}
	return false
}

// prune drops blocks seen on one page only, then, while more than keep
// remain, those seen on two, and so on; dropping a template block (seen on
// minPages or more) changes the host's version.
func (hs *host) prune(keep int, minPages uint32) {
	for limit := uint32(1); len(hs.count) > keep; limit++ {
		for h, c := range hs.count {
			if c <= limit {
				delete(hs.count, h)
			}
		}
		if limit >= minPages {
			hs.version++
		}
	}
}

func (m *Model) dropOldestHost() {
	var oldest string
	first := true
	for name, hs := range m.hosts {
		if first || hs.seen < m.hosts[oldest].seen {
			oldest, first = name, false
		}
	}
	delete(m.hosts, oldest)
}

// Len returns the number of block counts the model keeps.
func (m *Model) Len() int {
	n := 0
	for _, hs := range m.hosts {
		n += len(hs.count)
	}
	return n
}

// Encode writes the model to a snapshot: the hosts, each with its block
// counts of two or more pages (a block seen once is not needed to tell
// template).
func (m *Model) Encode(sw *snapshot.Writer) {
	sw.Uvarint(uint64(len(m.hosts)))
	for _, name := range slices.Sorted(maps.Keys(m.hosts)) {
		hs := m.hosts[name]
		sw.Text(name)
		sw.Uvarint(hs.seen)
		sw.Uvarint(hs.version)
		sw.Uvarint(hs.pages)
		var keep []uint32
		for h, c := range hs.count {
			if c >= 2 {
				keep = append(keep, h)
			}
		}
		slices.Sort(keep)
		sw.Uvarint(uint64(len(keep)))
		for _, h := range keep {
			sw.Uvarint(uint64(h))
			sw.Uvarint(uint64(hs.count[h]))
		}
	}
	sw.Uvarint(m.clock)
}

// Decode reads a model written by Encode, for New(minPages).
func Decode(sr *snapshot.Reader, minPages int) *Model {
	m := New(minPages)
	nh := sr.Count()
	for i := uint64(0); sr.Err() == nil && i < nh; i++ {
		name := sr.Text()
		hs := &host{count: make(map[uint32]uint32), seen: sr.Uvarint(), version: sr.Uvarint(), pages: sr.Uvarint()}
		nb := sr.Count()
		for j := uint64(0); sr.Err() == nil && j < nb; j++ {
			h := sr.Uvarint()
			c := sr.Uvarint()
			if c < 2 || c > 1<<32-1 || h > 1<<32-1 {
				sr.Fail("template: block %d seen %d times", h, c)
			}
			hs.count[uint32(h)] = uint32(c)
		}
		m.hosts[name] = hs
	}
	m.clock = sr.Uvarint()
	return m
}
