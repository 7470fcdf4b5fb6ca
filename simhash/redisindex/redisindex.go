// Package redisindex keeps SimHash fingerprints in Redis (or Valkey), so
// that the fetchers of a crawler fleet, in many processes on many machines,
// share one repository: a page one process keeps is a near-duplicate for all
// of them, and no two processes keep two near-duplicates.
//
// A Detector splits the 64-bit fingerprint into k+1 blocks (G. S. Manku, A.
// Jain and A. Das Sarma, "Detecting Near-Duplicates for Web Crawling", WWW
// 2007): two fingerprints within k bits agree exactly in at least one block,
// so every kept fingerprint is appended, as a 16-byte entry (fingerprint and
// an 8-byte handle), to one Redis string per block, keyed by the block's
// value, and a query reads and scans k+1 strings. MatchOrAdd, Add, Remove
// and Replace each run as one Lua script on the primary (with
// Options.Spread, several in turn: see below), which Redis runs to its end
// before any other command: the check and the write are one step across
// every process, and a client that dies mid-call leaves the call done or
// not done, never half done. The key layout is in script.go; its
// keys start with Prefix + ":2:" (layout 2, with 8-byte handles and call
// records). Repositories written by earlier versions (keys Prefix + ":b:...",
// 4-byte handles) are neither read nor migrated.
//
// T_B defaults to simhash.DefaultMaxDistance (8), as in the in-process
// detector. Its cost grows with the repository: at k = 8 each of the nine
// keys a query scans holds about n/128 entries of the n kept pages, so a
// call is linear in n and Redis, which runs one script at a time, serves
// few calls a second for the whole fleet beyond about 10^4 pages; at k = 3
// (four 16-bit blocks) each key holds about n/65,536 entries and a call
// stays short at a million pages. docs/BENCHMARKS.md ("Fleet
// (simhash/redisindex)") has the measurements. Every process sharing a
// repository must use one T_B: the repository records the T_B of its first
// write and refuses calls with another.
//
// Retries: a go-redis client re-sends a command whose reply was lost
// (Options.MaxRetries, 3 by default), after Redis may have run it. Every
// write call therefore carries a random 128-bit call ID, and a script that
// writes records its result under that ID (Prefix:2:c:<id>, expiring after
// Options.CallTTL or the call's deadline and a second, whichever is later);
// a re-sent call finds the record and returns the recorded result without
// running again. So a retried Add or Remove never returns ErrDuplicateID
// or ErrUnknownID for its own success. A MatchOrAdd that found matches
// writes nothing and records nothing: re-run, it answers from the
// repository as it is then. A call that returns an error (its context
// done, the retries spent) may or may not have run; call it again: a
// MatchOrAdd or Replace of a page kept under its own ID (the same
// fingerprint) is answered "added" with no matches and changes nothing
// (neardup.MatchAdder), so no page is ever told it duplicates itself.
//
// Bad stored data (a handle with no ID, a block key cut short, an entry of
// another size) is an error wrapping neardup.ErrCorrupt, never a verdict.
// Options.ReplicaAck makes each write wait for replicas (Redis WAIT).
//
// On Redis Cluster, set Options.SingleSlot and pass a *redis.ClusterClient:
// the prefix becomes a hash tag, so every key of the repository falls in one
// hash slot and the scripts stay atomic. The repository then lives on the
// shard that serves the slot (its replicas give failover); repositories with
// other prefixes spread over the other shards. Remove and Replace derive the
// block keys of the page kept under an ID inside the script, from its entry,
// which Redis allows for keys of the script's own slot.
//
// With Options.Spread instead, one repository spreads over every shard of
// a cluster: each block key is a hash tag of its own, and a page's ID,
// handle and call records sit in one of 16,384 ID buckets. No script can
// then reach all of a page's keys, so a write call runs one-slot scripts in
// turn: it leases the page's block keys in the order of their names (a
// lease expires after Options.LeaseTTL), reads them under the leases,
// reserves a pending handle in its ID's bucket, appends its entry to each
// block key while the lease is still its own, commits the handle, and
// releases the leases. A pending page is no match; a writer that finds one
// in a key it holds the lease of aborts it, so that a writer that stalled
// past its leases is refused at its commit and tries again. The guarantees
// above hold as on one server (two near-duplicates share a block key,
// leased by one call at a time; a call that dies keeps nothing and its
// leases expire; every step re-sent is answered, not run twice), for four
// round trips per new page instead of one (the last the release, before
// the call returns), each reaching k+1 keys at once. Set the ClusterClient's
// ClusterStateReloadInterval to a few seconds: go-redis reloads the slot
// map once a minute by default, and until then sends a failed primary's
// slots to it. What a failover can lose is in docs/fleet.md.
//
// Memory in Redis per kept page: the k+1 entries of 16 bytes (64 bytes at
// k = 3, 144 at k = 8), the entry and the ID in the ID hash, the ID again in
// the handle hash, and Redis's overhead per hash field; longer IDs (URLs)
// add twice their length. Each call record takes a small, fixed number of
// bytes while it lives, so a shard that takes w writes a second holds
// records in proportion to w·CallTTL. docs/BENCHMARKS.md has the bytes per
// page and per record measured (used_memory) and the command.
//
// What the guarantees need from the server (AOF with appendfsync, noeviction,
// what a restart without persistence loses) is in docs/fleet.md.
//
// Every call is bounded by its context and by Options.Timeout, whichever
// ends first; a lost connection or a timeout is an error, never a silent "new page". The go-redis client given
// in Options sets dial, read and write timeouts and retries.
package redisindex

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/internal/fpblock"
	"github.com/neardup/neardup/simhash"
)

// MaxDistance is the largest k a Detector serves: a query reads k+1 keys,
// each holding about n/2^(64/(k+1)) entries for n pages (at k = 8, 7-bit
// blocks: n/128 entries a key, 125 KB at a million pages).
const MaxDistance = 8

// DefaultMaxDistance is Options.MaxDistance when it is zero:
// simhash.DefaultMaxDistance (8 bits), so that moving a crawler from the
// in-process detector to a fleet keeps its verdicts. Nine blocks of 7 or 8
// bits; a query reads and scans about n/128 entries in each of nine keys,
// so its time grows linearly with the repository (see the package doc).
const DefaultMaxDistance = simhash.DefaultMaxDistance

// Defaults of Options, the same in minhash/redisindex.
const (
	// DefaultTimeout is Options.Timeout when it is zero.
	DefaultTimeout = fleet.DefaultTimeout
	// DefaultCallTTL is Options.CallTTL when it is zero: a minute, well
	// beyond the retries of a call within DefaultTimeout, or of a call
	// without a deadline under go-redis's default timeouts and retries
	// (four attempts of at most a 5 s dial and a 3 s read, about 32 s).
	DefaultCallTTL = fleet.DefaultCallTTL
	// DefaultLeaseTTL is Options.LeaseTTL of a Spread repository when it
	// is zero: also how long the near-duplicates of a page whose writer
	// died mid-call wait for its block keys.
	DefaultLeaseTTL = fleet.DefaultLeaseTTL
	// DefaultReplicaTimeout is Options.ReplicaTimeout when it is zero.
	DefaultReplicaTimeout = fleet.DefaultReplicaTimeout
)

// ErrRedis wraps every error of the Redis client (a lost connection, a
// timeout, a script error), so that a caller can tell them from the
// documents' own errors. It is minhash/redisindex's ErrRedis too.
var ErrRedis = fleet.ErrRedis

// ErrNotReplicated reports a write call whose changes fewer replicas than
// Options.ReplicaAck acknowledged within Options.ReplicaTimeout. The
// changes are on the primary, and a failover before they reach a replica
// loses them; the error wraps ErrRedis too. Retry the call: a page that
// was kept is answered "added" (neardup.MatchAdder).
var ErrNotReplicated = fleet.ErrNotReplicated

// Options configures a Detector.
type Options struct {
	// Client is the Redis client (required): a *redis.Client, or a
	// *redis.ClusterClient with SingleSlot or Spread; its options set the
	// connection pool, timeouts and retries.
	Client redis.UniversalClient
	// Prefix starts every key the Detector uses; zero means "neardup".
	// Detectors with one Prefix share one repository. It may not hold
	// braces (SingleSlot adds them).
	Prefix string
	// MaxDistance is T_B, 1..MaxDistance; zero means DefaultMaxDistance,
	// simhash.Identical means T_B = 0. Every process sharing a Prefix must use the same:
	// the repository records the T_B of its first write and refuses calls
	// with another (an error wrapping neardup.ErrInvalidOption).
	MaxDistance int
	// Timeout bounds each call within its context; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// CallTTL is how long Redis keeps the result of a write call (Add,
	// MatchOrAdd that added, Remove, Replace) under the call's ID, so that
	// the client's retries of a call whose reply was lost get that result
	// instead of running it again; zero means DefaultCallTTL. A call whose
	// context has a later deadline keeps its record until that deadline and
	// a second more. Set it above the longest time the client's retries of
	// a call without a deadline can take (its dial and read timeouts times
	// MaxRetries + 1, and the backoffs). Each record holds a small, fixed
	// amount of Redis memory while it lives (see the package doc).
	CallTTL time.Duration
	// SingleSlot makes the prefix a Redis Cluster hash tag ({Prefix}), so
	// that every key of the repository is in one hash slot, as scripts on a
	// cluster need. Every process sharing a Prefix must agree on it: the keys
	// differ.
	SingleSlot bool
	// Spread spreads the repository over the hash slots of a Redis Cluster
	// (pass a *redis.ClusterClient): its block keys and the records of its
	// pages fall in many slots, so that its memory and its calls are shared
	// by every primary. No script can then check and write a page in one
	// step; a write call runs a protocol of small scripts instead (leases
	// on the page's block keys, a pending handle, a commit; see the package
	// doc), with the same guarantees, at the cost of more round trips per
	// call. It excludes SingleSlot; every process sharing a Prefix must
	// agree on it: the keys differ. It also works on one server.
	Spread bool
	// ReplicaAck is how many replicas must have a write call's changes
	// before the call answers: after each write script the client sends
	// Redis WAIT on the connection that ran it. Zero (the default) waits
	// for none, and a failover can then lose what the primary acknowledged
	// and had not yet sent (docs/fleet.md gives the window and the cost).
	// With Spread the appends of a new page and its commit wait, so that
	// no page is committed before its entries are on the replicas. It
	// needs a *redis.Client or a *redis.ClusterClient.
	ReplicaAck int
	// ReplicaTimeout bounds that wait; zero means DefaultReplicaTimeout.
	// A call whose changes fewer replicas acknowledged in time returns an
	// error wrapping ErrNotReplicated: they are on the primary, and may be
	// lost by a failover.
	ReplicaTimeout time.Duration
	// LeaseTTL is how long a write call of a Spread repository may hold a
	// block key before another call may take it over (a call that died
	// holds its keys this long); zero means DefaultLeaseTTL, and it is at
	// least a hundredth of a second. A call that outlives its leases,
	// because it or Redis stalled, is refused and tried again; it never
	// keeps a near-duplicate.
	LeaseTTL time.Duration
}

// Detector is a SimHash near-duplicate detector whose kept fingerprints live
// in Redis. It implements neardup.Detector, Verifier, Remover, MatchAdder
// and Replacer; Scores are Hamming distances in bits (simhash.Bits). It is safe for
// concurrent use, and across processes.
type Detector struct {
	opts   Options     // in effect, as Options returns them
	fc     *fleet.Core // the client and the options every backend shares
	prefix string      // Options.Prefix (in braces with SingleSlot) and ":2"
	k      int
	blocks []fpblock.Block
	layout layout // oneSlot or spread, chosen by New
	keyFmt string // the name of a block key: prefix, table, value (blockKeys)

	// Spread only.
	kChecked atomic.Bool            // the repository's T_B agrees with k
	hook     func(step string) bool // tests: stop an attempt at step, as if its process died
}

// layout is how a repository's keys lie: in one slot, where one script
// checks and writes a page (oneSlot, script.go), or over every slot, where
// a write call is a protocol of scripts (spread, spread.go). Its methods
// return errors for the caller to wrap.
type layout interface {
	match(ctx context.Context, fp simhash.Fingerprint) ([]neardup.Match, error)
	// write runs a write call (modeAdd, modeMatchOrAdd, modeReplace) and
	// returns the matches, and whether d was kept; ErrDuplicateID as an
	// error.
	write(ctx context.Context, d *neardup.Document, fp simhash.Fingerprint, mode string) ([]neardup.Match, bool, error)
	remove(ctx context.Context, id string) error // ErrUnknownID when id is not kept
	idsKey(id string) string                     // the hash that holds id's entry
	len(ctx context.Context) (int, error)
}

// The modes of a call (oneSlotScript's ARGV[7]).
const (
	modeMatch      = "match"
	modeMatchOrAdd = "matchoradd"
	modeAdd        = "add"
	modeRemove     = "remove"
	modeReplace    = "replace"
)

// New returns a Detector. A nil Client or options out of range return an
// error wrapping neardup.ErrInvalidOption. It does not contact Redis.
func New(o Options) (*Detector, error) {
	o.MaxDistance = cmp.Or(o.MaxDistance, DefaultMaxDistance)
	k := max(o.MaxDistance, 0) // simhash.Identical is T_B = 0
	if o.MaxDistance != simhash.Identical && (k < 1 || k > MaxDistance) {
		return nil, fmt.Errorf("redisindex: New: MaxDistance %d, want simhash.Identical, 0 or 1..%d: %w", o.MaxDistance, MaxDistance, neardup.ErrInvalidOption)
	}
	fc, err := fleet.New(fleet.Config{Client: o.Client, Prefix: o.Prefix, SingleSlot: o.SingleSlot, Spread: o.Spread, Timeout: o.Timeout,
		CallTTL: o.CallTTL, LeaseTTL: o.LeaseTTL, ReplicaAck: o.ReplicaAck, ReplicaTimeout: o.ReplicaTimeout})
	if err != nil {
		return nil, err
	}
	c := fc.Config
	o.Prefix, o.Timeout, o.CallTTL, o.LeaseTTL, o.ReplicaTimeout = c.Prefix, c.Timeout, c.CallTTL, c.LeaseTTL, c.ReplicaTimeout
	det := &Detector{opts: o, fc: fc, prefix: fc.KeyPrefix("2"), k: k, blocks: fpblock.Split(k)}
	det.layout, det.keyFmt = oneSlot{det}, "%s:b:%d:%x"
	if o.Spread {
		det.layout, det.keyFmt = spread{det}, "{%s:b:%d:%x}" // a hash tag each
	}
	return det, nil
}

// Options returns the options in effect, defaults filled in and T_B = 0 as
// simhash.Identical, so that New(det.Options()) makes a detector of the same
// repository with the same T_B. The zero Detector returns the zero Options.
func (det *Detector) Options() Options { return det.opts }

// oneSlot is the layout of a repository in one slot (script.go).
type oneSlot struct{ *Detector }

// blockKeys appends the block keys of fp to ks.
func (det *Detector) blockKeys(ks []string, fp simhash.Fingerprint) []string {
	for t, b := range det.blocks {
		ks = append(ks, fmt.Sprintf(det.keyFmt, det.prefix, t, b.Value(uint64(fp))))
	}
	return ks
}

// keys returns oneSlotScript's KEYS (script.go) for a call in mode under
// the call ID call.
func (det oneSlot) keys(fp simhash.Fingerprint, call, mode string) []string {
	ks := make([]string, 0, len(det.blocks)+5)
	ks = append(ks, det.prefix+":names", det.prefix+":ids", det.prefix+":next", det.prefix+":k", det.prefix+":c:"+call)
	if mode == modeRemove {
		return ks
	}
	return det.blockKeys(ks, fp)
}

// args returns oneSlotScript's ARGV (script.go), the call record's time to
// live being fleet.Core.RecordTTL's.
func (det oneSlot) args(ctx context.Context, fp simhash.Fingerprint, mode, id string) []any {
	return []any{len(det.blocks), uint32(fp >> 32), uint32(fp), det.k, det.fc.RecordTTL(ctx).Milliseconds(), det.prefix, mode, id}
}

// run runs oneSlotScript: Match as it is, a call that may write under a
// new call ID and acknowledged with ReplicaAck (fleet.Core.Run).
func (det oneSlot) run(ctx context.Context, fp simhash.Fingerprint, mode, id string) *redis.Cmd {
	if mode == modeMatch {
		return oneSlotScript.Run(ctx, det.fc.Client, det.keys(fp, "", mode), det.args(ctx, fp, mode, id)...)
	}
	return det.fc.Run(ctx, oneSlotScript, det.keys(fp, fleet.NewCall(), mode), det.args(ctx, fp, mode, id)...)
}

func (det oneSlot) match(ctx context.Context, fp simhash.Fingerprint) ([]neardup.Match, error) {
	res, err := det.run(ctx, fp, modeMatch, "").Slice()
	if err != nil {
		return nil, err
	}
	return matches(res)
}

// write runs the call, which checks and writes in one step.
func (det oneSlot) write(ctx context.Context, d *neardup.Document, fp simhash.Fingerprint, mode string) ([]neardup.Match, bool, error) {
	res, err := det.run(ctx, fp, mode, d.ID).Slice() // {} kept, {"", -1} the ID kept (with another page), or the matches
	if err != nil {
		return nil, false, err
	}
	if len(res) == 2 && res[0] == "" && res[1] == int64(-1) {
		return nil, false, neardup.ErrDuplicateID
	}
	ms, err := matches(res)
	return ms, err == nil && len(ms) == 0, err
}

func (det oneSlot) remove(ctx context.Context, id string) error {
	n, err := det.run(ctx, 0, modeRemove, id).Int()
	if err == nil && n == 0 {
		return neardup.ErrUnknownID
	}
	return err
}

func (det oneSlot) idsKey(string) string { return det.prefix + ":ids" }

func (det oneSlot) len(ctx context.Context) (int, error) {
	n, err := det.fc.Client.HLen(ctx, det.prefix+":ids").Result()
	return int(n), err
}

// matches turns a script's {id, distance, ...} into sorted Matches.
func matches(res []any) ([]neardup.Match, error) {
	var ms []neardup.Match
	for i := 0; i+1 < len(res); i += 2 {
		id, ok1 := res[i].(string)
		d, ok2 := res[i+1].(int64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%w: unexpected reply %v", ErrRedis, res)
		}
		ms = append(ms, neardup.Match{ID: id, Score: float64(d), Measure: simhash.Bits})
	}
	neardup.SortMatches(ms)
	return ms, nil
}

// Match returns the kept pages within T_B bits of d, closest first.
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	if err := det.fc.Ready(); err != nil {
		return nil, err
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, err
	}
	ms, err := det.layout.match(ctx, fp)
	return ms, fleet.Wrap("Match", d.ID, err)
}

// Verify returns those of candidates that are kept within T_B bits of d.
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
	_, _, err := det.write(ctx, "Add", d, modeAdd)
	return err
}

// MatchOrAdd returns the kept pages within T_B bits of d; when there are none
// it keeps d, in one step on the Redis primary, so that of two near-duplicate
// pages offered by any processes at once exactly one is kept.
//
// When it returns an error (a lost connection, a deadline) the page may or
// may not have been kept: Redis ran the script to its end or not at all;
// Match tells which.
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	return det.write(ctx, "MatchOrAdd", d, modeMatchOrAdd)
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): in one script on the Redis primary the page kept under
// d.ID (if any) is forgotten and d's fingerprint is kept unless another kept
// page is within T_B bits (then those matches are returned and d.ID is kept
// no more).
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	return det.write(ctx, "Replace", d, modeReplace)
}

// write checks d and its ID and runs the write call of mode op.
func (det *Detector) write(ctx context.Context, op string, d *neardup.Document, mode string) ([]neardup.Match, bool, error) {
	if err := det.fc.Ready(); err != nil {
		return nil, false, err
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, false, err
	}
	if err := fleet.CheckID(op, d.ID); err != nil {
		return nil, false, err
	}
	ms, kept, err := det.layout.write(ctx, d, fp, mode)
	if err != nil {
		return nil, false, fleet.Wrap(op, d.ID, err)
	}
	return ms, kept, nil
}

// Remove forgets id.
func (det *Detector) Remove(ctx context.Context, id string) error {
	ctx, cancel := det.fc.Ctx(ctx)
	defer cancel()
	if err := det.fc.Ready(); err != nil {
		return err
	}
	return fleet.Wrap("Remove", id, det.layout.remove(ctx, id))
}

// Lookup returns the fingerprint kept under id, and whether id is kept.
func (det *Detector) Lookup(ctx context.Context, id string) (simhash.Fingerprint, bool, error) {
	if err := det.fc.Ready(); err != nil {
		return 0, false, err
	}
	fp, ok, err := det.lookup(ctx, id)
	return fp, ok, fleet.Wrap("Lookup", id, err)
}

// lookup is Lookup, its errors for the caller to wrap.
func (det *Detector) lookup(ctx context.Context, id string) (simhash.Fingerprint, bool, error) {
	entry, err := det.fc.Client.HGet(ctx, det.layout.idsKey(id), id).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case len(entry) != entrySize:
		return 0, false, fmt.Errorf("%w: entry of %d bytes", neardup.ErrCorrupt, len(entry))
	}
	return simhash.Fingerprint(binary.BigEndian.Uint64(entry)), true, nil
}

// entrySize is the bytes of an entry: the fingerprint and its handle.
const entrySize = 16

// Len returns the number of kept pages.
func (det *Detector) Len(ctx context.Context) (int, error) {
	if err := det.fc.Ready(); err != nil {
		return 0, err
	}
	n, err := det.layout.len(ctx)
	return n, fleet.Wrap("Len", "", err)
}

// Interface checks.
var (
	_ neardup.Detector   = (*Detector)(nil)
	_ neardup.Verifier   = (*Detector)(nil)
	_ neardup.Remover    = (*Detector)(nil)
	_ neardup.MatchAdder = (*Detector)(nil)
	_ neardup.Replacer   = (*Detector)(nil)
)
