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
// leases expire; every step re-sent is answered, not run twice), for three
// round trips per new page instead of one (the release follows after the
// call returns), each reaching k+1 keys at once. Set the ClusterClient's
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
// Every call takes a context (the Context variants, which neardup.Cascade,
// Window and Partitioned forward) or Options.Timeout; a lost connection or a
// timeout is an error, never a silent "new page". The go-redis client given
// in Options sets dial, read and write timeouts and retries.
package redisindex

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
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

// DefaultTimeout is Options.Timeout when it is zero.
const DefaultTimeout = 5 * time.Second

// DefaultCallTTL is Options.CallTTL when it is zero: a minute, well beyond
// the retries of a call within DefaultTimeout, or of a call without a
// deadline under go-redis's default timeouts and retries (four attempts of
// at most a 5 s dial and a 3 s read, about 32 s).
const DefaultCallTTL = time.Minute

// Options configures a Detector.
type Options struct {
	// Client is the Redis client (required): a *redis.Client, or a
	// *redis.ClusterClient with SingleSlot or Spread; its options set the
	// connection pool, timeouts and retries.
	Client redis.Scripter
	// Prefix starts every key the Detector uses; zero means "neardup".
	// Detectors with one Prefix share one repository. It may not hold
	// braces (SingleSlot adds them).
	Prefix string
	// MaxDistance is T_B, 1..MaxDistance; zero means DefaultMaxDistance,
	// simhash.Identical means T_B = 0. Every process sharing a Prefix must use the same:
	// the repository records the T_B of its first write and refuses calls
	// with another (an error wrapping neardup.ErrInvalidOption).
	MaxDistance int
	// Timeout bounds each call of the methods without a context; zero means
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
	// holds its keys this long); zero means DefaultLeaseTTL. A call that
	// outlives its leases, because it or Redis stalled, is refused and
	// tried again; it never keeps a near-duplicate.
	LeaseTTL time.Duration
}

// Detector is a SimHash near-duplicate detector whose kept fingerprints live
// in Redis. It implements neardup.Detector, Verifier, Remover, MatchAdder
// and Replacer, and their Context variants (neardup.ContextDetector, ...);
// Scores are Hamming distances in bits (simhash.Bits). It is safe for
// concurrent use, and across processes.
type Detector struct {
	opts    Options // in effect, as Options returns them
	client  redis.Scripter
	prefix  string // Options.Prefix (in braces with SingleSlot) and ":2"
	k       int
	blocks  []fpblock.Block
	timeout time.Duration
	callTTL time.Duration

	// Spread only.
	spread   bool
	leaseTTL time.Duration
	kChecked atomic.Bool            // the repository's T_B agrees with k
	hook     func(step string) bool // tests: stop an attempt at step, as if its process died
}

var errNoClient = fmt.Errorf("redisindex: Detector not made by New: %w", neardup.ErrInvalidOption)

// ErrRedis wraps every error of the Redis client (a lost connection, a
// timeout, a script error), so that a caller can tell them from the
// documents' own errors.
var ErrRedis = errors.New("redisindex: redis")

// New returns a Detector. A nil Client or options out of range return an
// error wrapping neardup.ErrInvalidOption. It does not contact Redis.
func New(o Options) (*Detector, error) {
	if o.Client == nil {
		return nil, fmt.Errorf("redisindex: New: nil Client: %w", neardup.ErrInvalidOption)
	}
	k := o.MaxDistance
	switch {
	case k == 0:
		k = DefaultMaxDistance
	case k == simhash.Identical:
		k = 0
	case k < 0 || k > MaxDistance:
		return nil, fmt.Errorf("redisindex: New: MaxDistance %d, want simhash.Identical, 0 or 1..%d: %w", o.MaxDistance, MaxDistance, neardup.ErrInvalidOption)
	}
	if o.Prefix == "" {
		o.Prefix = "neardup"
	}
	if strings.ContainsAny(o.Prefix, "{}") {
		return nil, fmt.Errorf("redisindex: New: Prefix %q has braces: %w", o.Prefix, neardup.ErrInvalidOption)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Timeout < 0 {
		return nil, fmt.Errorf("redisindex: New: negative Timeout: %w", neardup.ErrInvalidOption)
	}
	if o.CallTTL == 0 {
		o.CallTTL = DefaultCallTTL
	}
	if o.CallTTL < time.Millisecond {
		return nil, fmt.Errorf("redisindex: New: CallTTL %v below a millisecond: %w", o.CallTTL, neardup.ErrInvalidOption)
	}
	if o.Spread {
		if o.SingleSlot {
			return nil, fmt.Errorf("redisindex: New: Spread and SingleSlot: %w", neardup.ErrInvalidOption)
		}
		if _, ok := o.Client.(redis.Cmdable); !ok {
			return nil, fmt.Errorf("redisindex: New: Spread needs a client that runs commands (*redis.ClusterClient or *redis.Client): %w", neardup.ErrInvalidOption)
		}
		if o.LeaseTTL == 0 {
			o.LeaseTTL = DefaultLeaseTTL
		}
	}
	if o.ReplicaAck < 0 || o.ReplicaTimeout < 0 {
		return nil, fmt.Errorf("redisindex: New: negative ReplicaAck or ReplicaTimeout: %w", neardup.ErrInvalidOption)
	}
	if o.ReplicaAck > 0 {
		switch o.Client.(type) {
		case *redis.Client, *redis.ClusterClient:
		default:
			return nil, fmt.Errorf("redisindex: New: ReplicaAck needs a *redis.Client or *redis.ClusterClient, not %T: %w", o.Client, neardup.ErrInvalidOption)
		}
		if o.ReplicaTimeout == 0 {
			o.ReplicaTimeout = DefaultReplicaTimeout
		}
		if o.ReplicaTimeout < time.Millisecond { // WAIT 0 would wait for ever
			return nil, fmt.Errorf("redisindex: New: ReplicaTimeout %v below a millisecond: %w", o.ReplicaTimeout, neardup.ErrInvalidOption)
		}
	}
	if o.LeaseTTL < 0 || o.LeaseTTL > 0 && o.LeaseTTL < time.Millisecond {
		return nil, fmt.Errorf("redisindex: New: LeaseTTL %v below a millisecond: %w", o.LeaseTTL, neardup.ErrInvalidOption)
	}
	if k == 0 {
		o.MaxDistance = simhash.Identical
	} else {
		o.MaxDistance = k
	}
	prefix := o.Prefix
	if o.SingleSlot {
		prefix = "{" + prefix + "}"
	}
	det := &Detector{opts: o, client: o.Client, prefix: prefix + ":2", k: k, timeout: o.Timeout,
		blocks: fpblock.Split(k), callTTL: o.CallTTL, spread: o.Spread, leaseTTL: o.LeaseTTL}
	return det, nil
}

// Options returns the options in effect, defaults filled in and T_B = 0 as
// simhash.Identical, so that New(det.Options()) makes a detector of the same
// repository with the same T_B. The zero Detector returns the zero Options.
func (det *Detector) Options() Options { return det.opts }

// blockKeys appends the block keys of fp to ks.
func (det *Detector) blockKeys(ks []string, fp simhash.Fingerprint) []string {
	for t, b := range det.blocks {
		ks = append(ks, fmt.Sprintf("%s:b:%d:%x", det.prefix, t, b.Value(uint64(fp))))
	}
	return ks
}

// fixedKeys returns the names and ids hashes, the handle counter, the T_B
// key and the key of the record of call, with room for the block keys.
func (det *Detector) fixedKeys(call string) []string {
	ks := make([]string, 0, len(det.blocks)+5)
	return append(ks, det.prefix+":names", det.prefix+":ids", det.prefix+":next", det.prefix+":k", det.prefix+":c:"+call)
}

// keys returns the fixed keys, then the block keys of fp.
func (det *Detector) keys(fp simhash.Fingerprint, call string) []string {
	return det.blockKeys(det.fixedKeys(call), fp)
}

// args returns the scripts' ARGV: the number of blocks, fp's high and low
// 32 bits, k, the call record's time to live in ms (recordTTL), the prefix
// of the keys, and more.
func (det *Detector) args(ctx context.Context, fp simhash.Fingerprint, more ...any) []any {
	a := []any{len(det.blocks), uint32(fp >> 32), uint32(fp), det.k, det.recordTTL(ctx).Milliseconds(), det.prefix}
	return append(a, more...)
}

// recordTTL is how long the record of a call made with ctx lives: CallTTL,
// or ctx's deadline and a second more when that is later, so that the
// record outlives every retry the client can send within the call.
func (det *Detector) recordTTL(ctx context.Context) time.Duration {
	ttl := det.callTTL
	if dl, ok := ctx.Deadline(); ok {
		ttl = max(ttl, time.Until(dl)+time.Second)
	}
	return ttl
}

// newCall returns a new call ID: 16 random bytes.
func newCall() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return string(b[:])
}

func (det *Detector) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), det.timeout)
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

// wrap wraps an error of the client: a repository made with another T_B
// as neardup.ErrInvalidOption, data the scripts found corrupt as
// neardup.ErrCorrupt, every other one as ErrRedis.
func wrap(op, id string, err error) error {
	for _, c := range []struct {
		code string
		err  error
	}{{"NEARDUP_K", neardup.ErrInvalidOption}, {"NEARDUP_CORRUPT", neardup.ErrCorrupt}} {
		if _, msg, ok := strings.Cut(err.Error(), c.code+" "); ok {
			return fmt.Errorf("redisindex: %s %s: %s: %w", op, detector.QuoteID(id), msg, c.err)
		}
	}
	if errors.Is(err, neardup.ErrCorrupt) {
		return fmt.Errorf("redisindex: %s %s: %w", op, detector.QuoteID(id), err)
	}
	return fmt.Errorf("redisindex: %s %s: %w: %w", op, detector.QuoteID(id), ErrRedis, err)
}

// spreadErr returns the error of a spread call: the document's own errors
// (ErrDuplicateID, ErrUnknownID) with the call named, every other one as
// wrap does.
func spreadErr(op, id string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, neardup.ErrDuplicateID), errors.Is(err, neardup.ErrUnknownID):
		return fmt.Errorf("redisindex: %s %s: %w", op, detector.QuoteID(id), err)
	}
	return wrap(op, id, err)
}

// Match returns the kept pages within T_B bits of d, closest first.
func (det *Detector) Match(d *neardup.Document) ([]neardup.Match, error) {
	ctx, cancel := det.ctx()
	defer cancel()
	return det.MatchContext(ctx, d)
}

// MatchContext is Match with a context.
func (det *Detector) MatchContext(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	if det.client == nil {
		return nil, errNoClient
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, err
	}
	if det.spread {
		ms, err := det.spreadMatch(ctx, fp)
		if err != nil {
			return nil, wrap("Match", d.ID, err)
		}
		return ms, nil
	}
	res, err := matchScript.Run(ctx, det.client, det.keys(fp, ""), det.args(ctx, fp)...).Slice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, wrap("Match", d.ID, err)
	}
	return matches(res)
}

// Verify returns those of candidates that are kept within T_B bits of d.
func (det *Detector) Verify(d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	ctx, cancel := det.ctx()
	defer cancel()
	return det.VerifyContext(ctx, d, candidates)
}

// VerifyContext is Verify with a context.
func (det *Detector) VerifyContext(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	ms, err := det.MatchContext(ctx, d)
	if err != nil {
		return nil, err
	}
	return detector.Among(ms, candidates), nil
}

// Add keeps d whatever is kept; an ID already kept returns an error
// wrapping neardup.ErrDuplicateID.
func (det *Detector) Add(d *neardup.Document) error {
	ctx, cancel := det.ctx()
	defer cancel()
	return det.AddContext(ctx, d)
}

// AddContext is Add with a context.
func (det *Detector) AddContext(ctx context.Context, d *neardup.Document) error {
	if det.client == nil {
		return errNoClient
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return err
	}
	if err := detector.CheckID("redisindex", "Add", d.ID); err != nil {
		return err
	}
	if det.spread {
		_, _, err := det.spreadWrite(ctx, d, fp, modeAdd)
		return spreadErr("Add", d.ID, err)
	}
	n, err := det.run(ctx, addScript, det.keys(fp, newCall()), det.args(ctx, fp, d.ID)...).Int()
	switch {
	case err != nil:
		return wrap("Add", d.ID, err)
	case n == 0:
		return fmt.Errorf("redisindex: Add %s: %w", detector.QuoteID(d.ID), neardup.ErrDuplicateID)
	}
	return nil
}

// MatchOrAdd returns the kept pages within T_B bits of d; when there are none
// it keeps d, in one step on the Redis primary, so that of two near-duplicate
// pages offered by any processes at once exactly one is kept.
func (det *Detector) MatchOrAdd(d *neardup.Document) ([]neardup.Match, bool, error) {
	ctx, cancel := det.ctx()
	defer cancel()
	return det.MatchOrAddContext(ctx, d)
}

// MatchOrAddContext is MatchOrAdd with a context. When it returns an error
// (a lost connection, a deadline) the page may or may not have been kept:
// Redis ran the script to its end or not at all; Match tells which.
func (det *Detector) MatchOrAddContext(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	if det.client == nil {
		return nil, false, errNoClient
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, false, err
	}
	if err := detector.CheckID("redisindex", "MatchOrAdd", d.ID); err != nil {
		return nil, false, err
	}
	if det.spread {
		ms, kept, err := det.spreadWrite(ctx, d, fp, modeMatchOrAdd)
		return ms, kept, spreadErr("MatchOrAdd", d.ID, err)
	}
	res, err := det.run(ctx, matchOrAddScript, det.keys(fp, newCall()), det.args(ctx, fp, d.ID)...).Slice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, false, wrap("MatchOrAdd", d.ID, err)
	}
	if len(res) == 2 && res[0] == "" && res[1] == int64(-1) {
		return nil, false, fmt.Errorf("redisindex: MatchOrAdd %s: %w", detector.QuoteID(d.ID), neardup.ErrDuplicateID)
	}
	ms, err := matches(res)
	return ms, err == nil && len(ms) == 0, err
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): in one script on the Redis primary the page kept under
// d.ID (if any) is forgotten and d's fingerprint is kept unless another kept
// page is within T_B bits (then those matches are returned and d.ID is kept
// no more).
func (det *Detector) Replace(d *neardup.Document) ([]neardup.Match, bool, error) {
	ctx, cancel := det.ctx()
	defer cancel()
	return det.ReplaceContext(ctx, d)
}

// ReplaceContext is Replace with a context.
func (det *Detector) ReplaceContext(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	if det.client == nil {
		return nil, false, errNoClient
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, false, err
	}
	if err := detector.CheckID("redisindex", "Replace", d.ID); err != nil {
		return nil, false, err
	}
	if det.spread {
		ms, kept, err := det.spreadWrite(ctx, d, fp, modeReplace)
		return ms, kept, spreadErr("Replace", d.ID, err)
	}
	res, err := det.run(ctx, replaceScript, det.keys(fp, newCall()), det.args(ctx, fp, d.ID)...).Slice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, false, wrap("Replace", d.ID, err)
	}
	ms, err := matches(res)
	return ms, err == nil && len(ms) == 0, err
}

// Remove forgets id.
func (det *Detector) Remove(id string) error {
	ctx, cancel := det.ctx()
	defer cancel()
	return det.RemoveContext(ctx, id)
}

// RemoveContext is Remove with a context.
func (det *Detector) RemoveContext(ctx context.Context, id string) error {
	if det.client == nil {
		return errNoClient
	}
	if det.spread {
		return spreadErr("Remove", id, det.spreadRemove(ctx, id))
	}
	n, err := det.run(ctx, removeScript, det.fixedKeys(newCall()), det.args(ctx, 0, id)...).Int()
	switch {
	case err != nil:
		return wrap("Remove", id, err)
	case n == 0:
		return fmt.Errorf("redisindex: Remove %s: %w", detector.QuoteID(id), neardup.ErrUnknownID)
	}
	return nil
}

// Lookup returns the fingerprint kept under id, and whether id is kept.
func (det *Detector) Lookup(ctx context.Context, id string) (simhash.Fingerprint, bool, error) {
	return det.lookup(ctx, id)
}

func (det *Detector) lookup(ctx context.Context, id string) (simhash.Fingerprint, bool, error) {
	c, ok := det.client.(redis.Cmdable)
	if !ok {
		return 0, false, fmt.Errorf("redisindex: the client cannot run HGET: %w", neardup.ErrInvalidOption)
	}
	key := det.prefix + ":ids"
	if det.spread {
		key = det.bucketKey(bucketOf(id), "ids")
	}
	entry, err := c.HGet(ctx, key, id).Bytes()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, wrap("Lookup", id, err)
	}
	if len(entry) != entrySize {
		return 0, false, fmt.Errorf("redisindex: Lookup %s: entry of %d bytes: %w", detector.QuoteID(id), len(entry), neardup.ErrCorrupt)
	}
	return simhash.Fingerprint(binary.BigEndian.Uint64(entry)), true, nil
}

// entrySize is the bytes of an entry: the fingerprint and its handle.
const entrySize = 16

// Len returns the number of kept pages.
func (det *Detector) Len(ctx context.Context) (int, error) {
	c, ok := det.client.(redis.Cmdable)
	if !ok {
		return 0, fmt.Errorf("redisindex: the client cannot run HLEN: %w", neardup.ErrInvalidOption)
	}
	if det.spread {
		n, err := det.spreadLen(ctx, c)
		if err != nil {
			return 0, wrap("Len", "", err)
		}
		return n, nil
	}
	n, err := c.HLen(ctx, det.prefix+":ids").Result()
	if err != nil {
		return 0, wrap("Len", "", err)
	}
	return int(n), nil
}

// Interface checks.
var (
	_ neardup.Detector          = (*Detector)(nil)
	_ neardup.Verifier          = (*Detector)(nil)
	_ neardup.Remover           = (*Detector)(nil)
	_ neardup.MatchAdder        = (*Detector)(nil)
	_ neardup.Replacer          = (*Detector)(nil)
	_ neardup.ContextDetector   = (*Detector)(nil)
	_ neardup.ContextVerifier   = (*Detector)(nil)
	_ neardup.ContextRemover    = (*Detector)(nil)
	_ neardup.ContextMatchAdder = (*Detector)(nil)
	_ neardup.ContextReplacer   = (*Detector)(nil)
)
