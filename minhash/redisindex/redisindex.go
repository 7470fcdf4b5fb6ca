// Package redisindex keeps a minhash repository in Redis (or Valkey), so
// that the fetchers of a crawler fleet, in many processes on many machines,
// share one repository with the verdicts of the in-process minhash.Detector:
// a page one process keeps is a near-duplicate for all of them, and of two
// near-duplicates offered at once by any processes one is kept.
//
// Redis holds each kept page's record (its sketches, the
// blocks of its content and their host), the postings of its index keys,
// the hash of its text, and the template model: for each host, how many
// kept pages hold each block, and for each block the hosts it is template
// on. Every process judges pages itself, with the in-process Detector's
// rules (minhash/internal/judge, which only minhash's modules import), from the
// records and counts it reads, so the model is shared: a host may be
// crawled by any process, and a process that restarts has nothing to
// rebuild.
//
// A page's candidates are the in-process Detector's: it is looked up under
// the index keys of its 16 smallest content hashes (Judge.QueryKeys,
// with the default Options.Keys; it is filed under the first 8,
// Judge.Keys), and a kept page is a
// candidate when it is filed under two of them, or, when it is of the
// page's host or filed under one key, under one that at most judge.RareKey
// (4) pages are filed under (the scripts gather every page filed under
// one such key; the client leaves out those of other hosts). A MatchOrAdd
// reads in one script
// (the page's exact copies, remembered verdict and template counts, the
// keys they give it, and its candidates with their hosts' templates),
// judges in the client, and, when nothing is near, adds in a second script
// that first checks that no page was filed under the page's query keys or
// kept with its text since it read; if one was, it reads again. A page with
// nothing to be judged against (no candidate, no copy of its text) is added
// by the read script itself, in one round trip. Two near-duplicates either
// of which is the other's candidate therefore never both stay, whichever
// processes offer them, as in the Detector. Each script runs to its end on the primary
// before any other command, so a client that dies mid-call leaves
// the call done or not done.
//
// Verdicts are the Detector's, with two differences: a kept page stays
// filed under the keys its content had when it was kept (the Detector
// files a page again when its host's template changes), and the candidates
// of a page are read under its keys' postings as the repository holds them
// when it reads.
//
// Retries: the write scripts carry a random call ID and record their
// result under it (Prefix:m3:c:<id>, for Options.CallTTL), so a call the
// client re-sends after a lost reply is answered, not run again. A call
// that failed may or may not have kept its page; call it again: a page
// kept under its own ID with its text is answered "added" with no matches
// (neardup.MatchAdder), so a page is never told it is a near-duplicate of
// itself. Bad stored data (a posting or ID naming no record, a record cut
// short or in no state) is an error wrapping neardup.ErrCorrupt, never a
// verdict. Options.ReplicaAck makes each write wait for replicas.
//
// On Redis Cluster, pass a *redis.ClusterClient and set either
// Options.SingleSlot — the prefix becomes a hash tag, every key of the
// repository falls in one hash slot, the scripts stay atomic, and the
// repository lives on the shard that serves the slot — or Options.Spread:
// every key in a slot of its own, so the repository's memory and calls
// spread over every shard, and "add if new" is a protocol of leases with
// fencing over the keys a page touches (spread.go): two near-duplicates
// racing on different clients are never both kept, a client that dies
// mid-call leaves no page anyone sees and no lease past Options.LeaseTTL,
// and a write step re-sent changes nothing. A Spread call takes
// more round trips (about ten for a new page: reads before and under its
// leases, the leases, its record, its filings, its commit, which counts
// its blocks, and the release, each step at once over its keys).
// docs/fleet.md has the Redis settings the guarantees rely on, and the
// memory per page.
package redisindex

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/minhash/internal/judge"
)

// Defaults of Options, the same in simhash/redisindex.
const (
	// DefaultTimeout is Options.Timeout when it is zero.
	DefaultTimeout = fleet.DefaultTimeout
	// DefaultCallTTL is Options.CallTTL when it is zero: a minute, beyond
	// the retries of a call under go-redis's default timeouts.
	DefaultCallTTL = fleet.DefaultCallTTL
	// DefaultLeaseTTL is Options.LeaseTTL of a Spread repository when it
	// is zero.
	DefaultLeaseTTL = fleet.DefaultLeaseTTL
	// DefaultReplicaTimeout is Options.ReplicaTimeout when it is zero.
	DefaultReplicaTimeout = fleet.DefaultReplicaTimeout
)

// maxAttempts bounds the reads a MatchOrAdd makes when other processes keep
// filing pages under its keys between its read and its write.
const maxAttempts = 16

// ErrRedis wraps every error of the Redis client (a lost connection, a
// timeout, a script error), so that a caller can tell them from the
// documents' own errors. It is simhash/redisindex's ErrRedis too.
var ErrRedis = fleet.ErrRedis

// ErrNotReplicated reports a write call whose changes fewer replicas than
// Options.ReplicaAck acknowledged within Options.ReplicaTimeout. The
// changes are on the primary, and a failover before they reach a replica
// loses them; the error wraps ErrRedis too. Retry the call: a page that
// was kept is answered "added" (neardup.MatchAdder).
var ErrNotReplicated = fleet.ErrNotReplicated

// ErrContended is returned (wrapped) by a MatchOrAdd or Replace that found
// pages filed under its keys by other processes each time it was about to
// add, maxAttempts times in a row. Nothing was added; the call may be made
// again.
var ErrContended = errors.New("redisindex: keys contended")

// Options configures a Detector.
type Options struct {
	// Client is the Redis client (required): a *redis.Client, or a
	// *redis.ClusterClient with SingleSlot.
	Client redis.UniversalClient
	// Prefix starts every key the Detector uses; zero means "neardup".
	// Detectors with one Prefix share one repository. It may not hold
	// braces (SingleSlot adds them).
	Prefix string
	// SingleSlot makes the prefix a Redis Cluster hash tag ({Prefix}), so
	// that every key of the repository is in one hash slot.
	SingleSlot bool
	// Spread spreads the repository's keys over every slot of a Redis
	// Cluster (or keeps them on one server as they would be there), and
	// makes "add if new" a protocol of leases over the keys a page touches
	// (spread.go) instead of one script. It may not be set with SingleSlot.
	// Every process sharing a Prefix must agree on it: the keys differ.
	Spread bool
	// LeaseTTL is how long a Spread call holds the leases on its keys at
	// most; zero means DefaultLeaseTTL, and it is at least a hundredth of a
	// second. A call whose leases expire before it commits may find its
	// page aborted by the call that took them, and starts again; a client
	// that dies holding leases delays the calls that need them by up to
	// this.
	LeaseTTL time.Duration
	// Minhash are the detector's options (the zero value: the defaults).
	// Every process sharing a Prefix must use the same: the repository
	// records them at its first write and refuses calls with others (an
	// error wrapping neardup.ErrInvalidOption).
	Minhash minhash.Options
	// Timeout bounds each call within its context; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// CallTTL is how long Redis keeps the result of a write call under the
	// call's ID for the client's retries; zero means DefaultCallTTL. A call
	// whose context has a later deadline keeps it until then and a second.
	CallTTL time.Duration
	// ReplicaAck is how many replicas must have a write's changes before
	// the call goes on: after each script that may write (a read that may
	// keep its page, a commit, a Remove; with Spread each filing of a new
	// page and its commit, so that no page is committed before its filings
	// are on the replicas) the client sends Redis WAIT on the connection
	// that ran it. Zero (the default) waits for none, and a failover can
	// then lose what the primary acknowledged and had not yet sent
	// (docs/fleet.md gives the window and the cost).
	ReplicaAck int
	// ReplicaTimeout bounds each wait; zero means DefaultReplicaTimeout. A
	// call whose changes fewer replicas acknowledged in time returns an
	// error wrapping ErrNotReplicated: they are on the primary, and may be
	// lost by a failover.
	ReplicaTimeout time.Duration
}

// Detector is a minhash near-duplicate detector whose kept pages live in
// Redis. It implements neardup.Detector, Verifier, Remover, MatchAdder and
// Replacer; Scores are minhash.JaccardDistance.
// It is safe for concurrent use, and across processes. The zero Detector
// is not usable (its methods return errors wrapping
// neardup.ErrInvalidOption); make one with New.
type Detector struct {
	opts   Options
	fc     *fleet.Core // the options every backend shares
	client redis.UniversalClient
	judge  *judge.Judge
	prefix string // Prefix (in braces with SingleSlot) and ":m3"
	cfg    string // the Judge's options, as the repository records them
	// compared counts the kept pages judged against pages offered.
	compared atomic.Int64
	// keyMisses counts the reads whose keys, derived by the script, were
	// not the Judge's (then read again; tests check it stays 0).
	keyMisses atomic.Int64
	spread    spread // the key names of a Spread repository
	layout    layout // oneSlot or spreadLayout, chosen by New
	// theme is the theme set last read, with its version (one-slot
	// repositories): a read sends the version, and gets the set again only
	// when it has changed.
	theme atomic.Pointer[themeSet]
	// beforeCommit, when set (by tests), is called by a Spread call between
	// filing a new page and committing it; an error it returns ends the call
	// there, as if the client died: nothing released.
	beforeCommit func() error
	// afterCommit, when set (by tests), is called by a Spread call after it
	// committed a new page, or marked a page removed, and before it applies
	// the host's template changes; an error it returns ends the call there.
	afterCommit func() error
}

// New returns a Detector. A nil Client or options out of range return an
// error wrapping neardup.ErrInvalidOption. It does not contact Redis.
func New(o Options) (*Detector, error) {
	fc, err := fleet.New(fleet.Config{Client: o.Client, Prefix: o.Prefix, SingleSlot: o.SingleSlot, Spread: o.Spread, Timeout: o.Timeout,
		CallTTL: o.CallTTL, LeaseTTL: o.LeaseTTL, ReplicaAck: o.ReplicaAck, ReplicaTimeout: o.ReplicaTimeout})
	if err != nil {
		return nil, err
	}
	j, err := judge.NewJudge(judge.Options(o.Minhash))
	if err != nil {
		return nil, fmt.Errorf("redisindex: New: %w", err)
	}
	o.Minhash = minhash.Options(j.Options())
	c := fc.Config
	o.Prefix, o.Timeout, o.CallTTL, o.LeaseTTL, o.ReplicaTimeout = c.Prefix, c.Timeout, c.CallTTL, c.LeaseTTL, c.ReplicaTimeout
	m := o.Minhash
	cfg := fmt.Sprintf("content %g page %g guard %g host %g template %d sketch %d/%dx%d keys %d/%d",
		m.ContentDistance, m.PageDistance, m.ContentGuard, m.HostPageDistance, m.TemplatePages,
		m.SketchSize, m.PageSketchSize, m.ShingleWidth, m.Keys, m.MaxPostings)
	det := &Detector{opts: o, fc: fc, client: o.Client, judge: j, prefix: fc.KeyPrefix("m3"), cfg: cfg,
		spread: spread{o.Prefix + ":ms2"}}
	det.layout = oneSlot{det}
	if o.Spread {
		det.layout = spreadLayout{det}
	}
	return det, nil
}

// layout is how a repository's keys lie: in one slot, where a script reads
// a page and another adds it (oneSlot, script.go), or over every slot,
// where a write is a protocol of leases (spreadLayout, spread.go). Its
// methods return their errors wrapped for the caller.
type layout interface {
	match(ctx context.Context, d *neardup.Document, r *judge.Record) ([]neardup.Match, error)
	// matchOrAdd is MatchOrAdd, Replace (replacing) or Add (force: d is
	// kept whatever is kept).
	matchOrAdd(ctx context.Context, op string, d *neardup.Document, r *judge.Record, replacing, force bool) ([]neardup.Match, bool, error)
	remove(ctx context.Context, id string) error
	contains(ctx context.Context, id string) (bool, error)
	len(ctx context.Context) (int, error)
}

// oneSlot is the layout of a repository in one slot.
type oneSlot struct{ *Detector }

// Options returns the options in effect, defaults filled in.
func (det *Detector) Options() Options { return det.opts }

// Comparisons returns how many kept pages this Detector has judged pages
// against (in every call) since it was made: the work the candidate index
// leaves.
func (det *Detector) Comparisons() int64 { return det.compared.Load() }

// keys are the KEYS of every script: one key of the repository's slot, so
// that a cluster client sends the script to the shard that serves it.
func (det *Detector) keys() []string { return []string{det.prefix + ":cfg"} }

// writeArgs returns the ARGV every write script starts with, for the call
// ID call.
func (det *Detector) writeArgs(ctx context.Context, call string, more ...any) []any {
	o := det.opts.Minhash
	maxp := o.MaxPostings
	if maxp < 0 { // no bound
		maxp = math.MaxInt32
	}
	a := []any{det.prefix, det.cfg, call, det.fc.RecordTTL(ctx).Milliseconds(), o.TemplatePages, maxp, judge.MaxHostBlocks}
	return append(a, more...)
}

func u32s(vs []uint32) string {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return string(b)
}

func u64(v uint64) string { return string(binary.BigEndian.AppendUint64(nil, v)) }

// entry returns the entry of a page kept under id (layout in script.go).
func entry(id string, r *judge.Record, keys []uint32) (string, error) {
	if err := checkLengths(id, r); err != nil {
		return "", err
	}
	blocks := r.Blocks()
	b := make([]byte, 0, 16+len(id)+len(r.Host())+4*(len(keys)+len(blocks))+1024)
	b = binary.BigEndian.AppendUint16(b, uint16(len(id)))
	b = append(b, id...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(r.Host())))
	b = append(b, r.Host()...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(keys)))
	b = append(b, u32s(keys)...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(blocks)))
	b = append(b, u32s(blocks)...)
	b = binary.BigEndian.AppendUint64(b, r.TextHash())
	b, err := r.AppendBinary(b)
	return string(b), err
}

// checkLengths returns an error when an entry cannot hold id or r's host.
func checkLengths(id string, r *judge.Record) error {
	if len(id) > math.MaxUint16 || len(r.Host()) > math.MaxUint16 {
		return fmt.Errorf("redisindex: ID or host longer than %d bytes: %w", math.MaxUint16, neardup.ErrInvalidOption)
	}
	return nil
}

// parseEntry returns the ID and the record of an entry.
func (det *Detector) parseEntry(e string) (string, *judge.Record, error) {
	f, ok := splitEntry(e)
	if !ok {
		return "", nil, cutShort(e)
	}
	return det.parseFields(f)
}

// cutShort is the error of an entry e that splitEntry finds cut short.
func cutShort(e string) error {
	return fmt.Errorf("redisindex: %w: entry of %d bytes cut short", neardup.ErrCorrupt, len(e))
}

// parseFields returns the ID and the record of an entry split into f.
func (det *Detector) parseFields(f entryFields) (string, *judge.Record, error) {
	r, err := det.judge.ParseRecord([]byte(f.rec))
	if err != nil {
		return "", nil, fmt.Errorf("redisindex: entry of %s: %w", detector.QuoteID(f.id), err) // wraps neardup.ErrCorrupt
	}
	return f.id, r, nil
}

// entryFields are the parts of an entry (layout in script.go): keys and
// blocks as 4-byte values, concatenated; rec the record's binary form.
type entryFields struct{ id, host, keys, blocks, rec string }

// splitEntry returns the parts of an entry, and false when it is cut short.
func splitEntry(e string) (entryFields, bool) {
	p := 0
	field := func(unit int) string {
		if p+2 > len(e) {
			p = len(e) + 1
			return ""
		}
		n := int(binary.BigEndian.Uint16([]byte(e[p:p+2]))) * unit
		p += 2
		if p+n > len(e) {
			p = len(e) + 1
			return ""
		}
		s := e[p : p+n]
		p += n
		return s
	}
	var f entryFields
	f.id, f.host, f.keys, f.blocks = field(1), field(1), field(4), field(4)
	p += 8 // text hash
	if p > len(e) {
		return entryFields{}, false
	}
	f.rec = e[p:]
	return f, true
}

// template returns the Template of a host whose blocks (ascending) have the
// host and theme counts hc and tc (aligned with blocks).
func (det *Detector) template(blocks []uint32, hc, tc []any) judge.Template {
	if len(hc) != len(blocks) || len(tc) != len(blocks) {
		return nil
	}
	count := func(cs []any) func(uint32) uint32 {
		return func(b uint32) uint32 {
			if i, ok := slices.BinarySearch(blocks, b); ok {
				n, _ := cs[i].(int64)
				return uint32(n)
			}
			return 0
		}
	}
	return det.judge.TemplateOf(count(hc), count(tc))
}

// strs returns the strings of a script's list.
func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// set returns the 4-byte blocks of a script's list as a set.
func set(v any) map[uint32]bool {
	l, _ := v.([]any)
	m := make(map[uint32]bool, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok && len(s) == 4 {
			m[binary.BigEndian.Uint32([]byte(s))] = true
		}
	}
	return m
}

// read is what a page is judged by: its record, template, keys and query
// keys (Judge.Keys and QueryKeys), the last handle given when it read, its
// matches, and the handle kept under its ID.
type read struct {
	rec     *judge.Record
	tmpl    judge.Template
	keys    []uint32
	query   []uint32
	seen    int64
	matches []neardup.Match
	own     int64
	verdict bool // matches hold a remembered verdict
	// handles are the handles of the matches judged, by ID (when the read
	// gave them).
	handles map[string]int64
}

// readPage reads what d is judged by and judges it against the kept pages
// filed under its keys (but the page kept under its ID when replacing).
// With a call ID it keeps d at once when it has nothing to be judged
// against (no copy of its text, no remembered verdict, no page kept under
// its ID, no candidate): then it returns (nil, true, nil).
func (det *Detector) readPage(ctx context.Context, op string, d *neardup.Document, r *judge.Record, replacing bool, call string) (*read, bool, error) {
	_, tags := r.Content()
	rep, addNew, rec := 0, 0, []byte(nil)
	if replacing {
		rep = 1
	}
	if call != "" {
		if err := checkLengths(d.ID, r); err != nil {
			return nil, false, err
		}
		var err error
		if rec, err = r.MarshalBinary(); err != nil {
			return nil, false, err
		}
		addNew = 1
	}
	theme := det.theme.Load()
	a := det.writeArgs(ctx, call, u64(r.TextHash()), r.Host(), u32s(r.Blocks()), d.ID,
		u32s(r.IndexKeys()), string(tags), det.opts.Minhash.Keys, rep, addNew, rec, theme.version(), theme.flags(r.Blocks()),
		len(det.judge.QueryKeys(r, nil)))
	var run *redis.Cmd
	if call != "" { // it may keep the page
		run = det.fc.Run(ctx, readScript, det.keys(), a...)
	} else {
		run = readScript.Run(ctx, det.client, det.keys(), a...)
	}
	res, err := run.Slice()
	if err != nil {
		return nil, false, fleet.Wrap(op, d.ID, err)
	}
	if len(res) > 0 && res[0] == "added" {
		if len(res) == 5 { // keys and counts: check them against the Judge's
			hc, _ := res[3].([]any)
			tc, _ := res[4].([]any)
			keys, _ := res[2].(string)
			if u32s(det.judge.QueryKeys(r, det.template(r.Blocks(), hc, tc))) != keys {
				det.keyMisses.Add(1)
			}
		}
		return nil, true, nil
	}
	if len(res) != 8 {
		return nil, false, fmt.Errorf("redisindex: %s %s: %w: reply of %d values", op, detector.QuoteID(d.ID), ErrRedis, len(res))
	}
	seen, _ := res[0].(int64)
	own, _ := res[5].(int64)
	st := &ownState{verdict: strs(res[2]), own: uint64(own)}
	st.exact = strs(res[1])
	st.hc, _ = res[3].([]any)
	st.tc, _ = res[4].([]any)
	rd, found := det.ownRead(st, d, r, replacing)
	rd.seen, rd.own = seen, own
	if !replacing {
		own = 0
	}
	// The script derived the query keys from the counts it read, as
	// Judge.QueryKeys does, and gathered their candidates; should the two
	// ever differ, the candidates are read again under the Judge's keys.
	scriptKeys, _ := res[6].(string)
	res, _ = res[7].([]any)
	if u32s(rd.query) != scriptKeys {
		det.keyMisses.Add(1)
		res, err = candidatesScript.Run(ctx, det.client, det.keys(), det.prefix, det.cfg, u32s(rd.query), own, theme.version()).Slice()
		if err != nil {
			return nil, false, fleet.Wrap(op, d.ID, err)
		}
	}
	if len(res) != 6 {
		return nil, false, fmt.Errorf("redisindex: %s %s: %w: candidates reply of %d values", op, detector.QuoteID(d.ID), ErrRedis, len(res))
	}
	es, _ := res[0].([]any)
	hosts, _ := res[1].([]any)
	tsets, _ := res[2].([]any)
	handles, _ := res[3].([]any)
	if v, _ := res[4].(string); v != theme.version() && len(es) > 0 {
		if _, ok := res[5].([]any); !ok {
			return nil, false, fmt.Errorf("redisindex: %s %s: %w: theme set of version %s not sent", op, detector.QuoteID(d.ID), ErrRedis, v)
		}
		theme = &themeSet{v, set(res[5])}
		det.theme.Store(theme)
	}
	entries := make([]string, 0, len(es))
	hs := make([]int64, len(es))
	for i, e := range es {
		s, _ := e.(string)
		entries = append(entries, s)
		if i < len(handles) {
			hs[i], _ = handles[i].(int64)
		}
	}
	tmpl := make(map[string]judge.Template, len(hosts))
	for i, h := range hosts {
		name, _ := h.(string)
		var host string
		if i < len(tsets) {
			host, _ = tsets[i].(string)
		}
		tmpl[name] = func(b uint32) bool { return hasBlock(host, b) || theme.blocks[b] }
	}
	if err := det.judgeEntries(ctx, rd, entries, hs, found, replacing, tmpl); err != nil {
		return nil, false, fleet.Wrap(op, d.ID, err)
	}
	return rd, false, nil
}

// hasBlock reports whether the string of 4-byte blocks s, ascending, holds
// b.
func hasBlock(s string, b uint32) bool {
	n := len(s) / 4
	i := sort.Search(n, func(i int) bool { return binary.BigEndian.Uint32([]byte(s[4*i:4*i+4])) >= b })
	return i < n && binary.BigEndian.Uint32([]byte(s[4*i:4*i+4])) == b
}

// themeSet is a version of the theme set: the blocks template on
// judge.ThemeHosts hosts or more.
type themeSet struct {
	v      string
	blocks map[uint32]bool
}

// version returns the set's version, "" for none.
func (t *themeSet) version() string {
	if t == nil {
		return ""
	}
	return t.v
}

// flags returns a byte for each of blocks: '1' if the set holds it, else
// '0' ("" for no set).
func (t *themeSet) flags(blocks []uint32) string {
	if t == nil {
		return ""
	}
	b := make([]byte, len(blocks))
	for i, x := range blocks {
		b[i] = '0'
		if t.blocks[x] {
			b[i] = '1'
		}
	}
	return string(b)
}

// alone reports whether the kept page of entry f is a candidate of rd's
// page through one key in common, by the Detector's rule (minhash
// store.Search): the scripts gather a page filed under one of rd.query
// only when that key is rare, and such a page is a candidate when it is of
// rd's host or is filed under one key (it cannot share two).
func (rd *read) alone(f entryFields) bool {
	return f.host == rd.rec.Host() || len(f.keys) < 8
}

// judgeEntries judges rd's page against the kept pages whose entries are
// given (but those in found, and copies of its text when not replacing),
// with their hosts' templates (tmpl, or when it is nil those
// spreadTemplates reads), and adds those near it to rd.matches, sorted,
// and the handle of each (handles, aligned with entries, when given) to
// rd.handles.
func (det *Detector) judgeEntries(ctx context.Context, rd *read, entries []string, handles []int64, found map[string]bool, replacing bool,
	tmpl map[string]judge.Template) error {
	type cand struct {
		id     string
		rec    *judge.Record
		handle int64
		alone  bool // a candidate through one rare key (read.alone)
	}
	var gathered []cand
	var blocks map[string][]uint32 // by host: the blocks of its pages, for spreadTemplates
	if tmpl == nil {
		blocks = map[string][]uint32{}
	}
	for i, e := range entries {
		f, ok := splitEntry(e)
		if !ok {
			return cutShort(e)
		}
		id, kr, err := det.parseFields(f)
		if err != nil {
			return err
		}
		if found[id] || kr.TextHash() == rd.rec.TextHash() && !replacing {
			continue
		}
		c := cand{id: id, rec: kr, alone: rd.alone(f)}
		if i < len(handles) {
			c.handle = handles[i]
		}
		gathered = append(gathered, c)
		if blocks != nil {
			blocks[kr.Host()] = append(blocks[kr.Host()], kr.Blocks()...)
		}
	}
	if len(gathered) > 0 {
		if tmpl == nil {
			var err error
			if tmpl, err = det.spreadTemplates(ctx, blocks); err != nil {
				return err
			}
		}
		// A page gathered through two keys, or one rare key (the scripts'
		// rule), is a candidate when it shares two keys with rd's page as
		// the Detector files it now: the Detector files a kept page again
		// when its host's template changes, the repository keeps the keys
		// it was filed under when kept.
		query := det.judge.QueryHashes(rd.rec, rd.tmpl)
		kept := gathered[:0]
		for _, c := range gathered {
			if found[c.id] {
				continue
			}
			if c.alone || det.judge.SharedKeys(query, c.rec, tmpl[c.rec.Host()]) >= 2 {
				found[c.id] = true
				kept = append(kept, c)
			}
		}
		for _, c := range kept {
			det.compared.Add(1)
			if dist, near := det.judge.Near(rd.rec, rd.tmpl, c.rec, tmpl[c.rec.Host()]); near {
				rd.matches = append(rd.matches, neardup.Match{ID: c.id, Score: dist, Measure: minhash.JaccardDistance})
				if c.handle != 0 {
					if rd.handles == nil {
						rd.handles = map[string]int64{}
					}
					rd.handles[c.id] = c.handle
				}
			}
		}
	}
	neardup.SortMatches(rd.matches)
	return nil
}

// Match returns the kept pages that d nearly duplicates, closest first.
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	r, err := det.record(d)
	if err != nil {
		return nil, err
	}
	return det.layout.match(ctx, d, r)
}

// record returns d's record, or the error of a document the method cannot
// judge.
func (det *Detector) record(d *neardup.Document) (*judge.Record, error) {
	if det.client == nil {
		return nil, det.fc.Ready()
	}
	return det.judge.Record(d)
}

// writable returns d's record, or the error of a document the method
// cannot judge or keep (its ID empty or over neardup.MaxIDLen bytes).
func (det *Detector) writable(op string, d *neardup.Document) (*judge.Record, error) {
	r, err := det.record(d)
	if err != nil {
		return nil, err
	}
	if err := fleet.CheckID(op, d.ID); err != nil {
		return nil, err
	}
	return r, nil
}

func (det oneSlot) match(ctx context.Context, d *neardup.Document, r *judge.Record) ([]neardup.Match, error) {
	rd, _, err := det.readPage(ctx, "Match", d, r, false, "")
	if err != nil {
		return nil, err
	}
	return rd.matches, nil
}

// Verify returns those of candidates that are kept and near d.
func (det *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	ms, err := det.Match(ctx, d)
	if err != nil {
		return nil, err
	}
	return detector.Among(ms, candidates, func(m neardup.Match) string { return m.ID }), nil
}

// Add keeps d whatever is kept; an ID already kept returns an error
// wrapping neardup.ErrDuplicateID.
func (det *Detector) Add(ctx context.Context, d *neardup.Document) error {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	r, err := det.writable("Add", d)
	if err != nil {
		return err
	}
	_, _, err = det.layout.matchOrAdd(ctx, "Add", d, r, false, true)
	return err
}

// MatchOrAdd returns the kept pages d nearly duplicates; when there are
// none it keeps d, so that of two near-duplicate pages offered by any
// processes at once one is kept.
//
// When it returns an error (a lost connection, a deadline) the page may or
// may not have been kept; Match tells which.
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	return det.matchOrAdd(ctx, "MatchOrAdd", d, false)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): the page kept under d.ID is not a match; when d is
// near another kept page, the page kept under d.ID is forgotten and the
// matches returned; otherwise d is kept under its ID in place of it.
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	return det.matchOrAdd(ctx, "Replace", d, true)
}

func (det *Detector) matchOrAdd(ctx context.Context, op string, d *neardup.Document, replacing bool) ([]neardup.Match, bool, error) {
	r, err := det.writable(op, d)
	if err != nil {
		return nil, false, err
	}
	return det.layout.matchOrAdd(ctx, op, d, r, replacing, false)
}

// matchOrAdd reads and judges d, and adds it when nothing is near, or
// reads again when a page was filed under its keys meanwhile.
func (det oneSlot) matchOrAdd(ctx context.Context, op string, d *neardup.Document, r *judge.Record, replacing, force bool) ([]neardup.Match, bool, error) {
	if force {
		rd, _, err := det.readPage(ctx, op, d, r, false, "")
		if err != nil {
			return nil, false, err
		}
		added, err := det.commit(ctx, op, d, rd, math.MaxInt64, false, fleet.NewCall())
		return nil, added, err
	}
	call := fleet.NewCall() // one ID for every attempt: a recorded add answers them all
	for range maxAttempts {
		rd, added, err := det.readPage(ctx, op, d, r, replacing, call)
		if err != nil || added {
			return nil, added, err
		}
		if !replacing && neardup.OwnPage(d.ID, rd.matches) {
			return nil, true, nil // its own page: nothing changes (neardup.MatchAdder)
		}
		if len(rd.matches) > 0 {
			if replacing && rd.own != 0 {
				if err := det.Remove(ctx, d.ID); err != nil && !errors.Is(err, neardup.ErrUnknownID) {
					return nil, false, err
				}
			}
			if !rd.verdict && rd.matches[0].Score > 0 {
				_ = det.remember(ctx, r, rd.matches[0], rd.handles[rd.matches[0].ID]) // safe to ignore: see remember
			}
			return rd.matches, false, nil
		}
		if added, err = det.commit(ctx, op, d, rd, rd.seen, replacing, call); err != nil || added {
			return nil, added, err
		}
	}
	return nil, false, fmt.Errorf("redisindex: %s %s: %w (%d attempts)", op, detector.QuoteID(d.ID), ErrContended, maxAttempts)
}

// remember records the first verdict of a page not kept (m, the kept page
// under handle v, or 0 to look it up), so that offered again it gets the
// same answer however the template model has grown. Its error is safe to
// ignore: the verdict the call returns stands, and a page whose verdict
// is not remembered is judged afresh, and remembered, when offered again.
func (det *Detector) remember(ctx context.Context, r *judge.Record, m neardup.Match, v int64) error {
	if v == 0 { // not read with the candidates
		var err error
		if v, err = det.client.HGet(ctx, det.prefix+":ids", m.ID).Int64(); err != nil {
			return err
		}
	}
	b := binary.BigEndian.AppendUint64(nil, uint64(v))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(m.Score))
	return rememberScript.Run(ctx, det.client, det.keys(), det.prefix, det.cfg, u64(r.TextHash()), string(b)).Err()
}

// commit adds the page read in rd unless a page was filed under its keys
// since seen (then it returns false, and the caller reads again).
func (det *Detector) commit(ctx context.Context, op string, d *neardup.Document, rd *read, seen int64, replacing bool, call string) (bool, error) {
	e, err := entry(d.ID, rd.rec, rd.keys)
	if err != nil {
		return false, err
	}
	rep := 0
	if replacing {
		rep = 1
	}
	a := det.writeArgs(ctx, call, seen, e, rep, u32s(rd.query))
	res, err := det.fc.Run(ctx, commitScript, det.keys(), a...).Slice()
	if err != nil {
		return false, fleet.Wrap(op, d.ID, err)
	}
	if len(res) == 0 {
		return false, fmt.Errorf("redisindex: %s %s: %w: empty reply", op, detector.QuoteID(d.ID), ErrRedis)
	}
	switch res[0] {
	case "added":
		return true, nil
	case "dup":
		return false, fmt.Errorf("redisindex: %s %s: %w", op, detector.QuoteID(d.ID), neardup.ErrDuplicateID)
	case "conflict":
		return false, nil
	}
	return false, fmt.Errorf("redisindex: %s %s: %w: reply %v", op, detector.QuoteID(d.ID), ErrRedis, res)
}

// Remove forgets id.
func (det *Detector) Remove(ctx context.Context, id string) error {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	if det.client == nil {
		return det.fc.Ready()
	}
	return det.layout.remove(ctx, id)
}

func (det oneSlot) remove(ctx context.Context, id string) error {
	n, err := det.fc.Run(ctx, removeScript, det.keys(), det.writeArgs(ctx, fleet.NewCall(), id)...).Int()
	if err == nil && n == 0 {
		err = neardup.ErrUnknownID
	}
	return fleet.Wrap("Remove", id, err)
}

// Contains reports whether a page is kept under id.
func (det *Detector) Contains(ctx context.Context, id string) (bool, error) {
	if det.client == nil {
		return false, det.fc.Ready()
	}
	return det.layout.contains(ctx, id)
}

func (det oneSlot) contains(ctx context.Context, id string) (bool, error) {
	ok, err := det.client.HExists(ctx, det.prefix+":ids", id).Result()
	return ok, fleet.Wrap("Contains", id, err)
}

// Len returns the number of kept pages.
func (det *Detector) Len(ctx context.Context) (int, error) {
	if det.client == nil {
		return 0, det.fc.Ready()
	}
	return det.layout.len(ctx)
}

func (det oneSlot) len(ctx context.Context) (int, error) {
	n, err := det.client.HLen(ctx, det.prefix+":ids").Result()
	return int(n), fleet.Wrap("Len", "", err)
}

// Interface checks.
var (
	_ neardup.Detector   = (*Detector)(nil)
	_ neardup.Verifier   = (*Detector)(nil)
	_ neardup.Remover    = (*Detector)(nil)
	_ neardup.MatchAdder = (*Detector)(nil)
	_ neardup.Replacer   = (*Detector)(nil)
)
