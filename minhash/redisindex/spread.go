package redisindex

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/minhash"
)

// With Options.Spread, a repository's keys spread over every slot of a
// Redis Cluster: each bucket of postings, exact texts, verdicts and IDs,
// each record, and each host's counts is a key of its own slot (a hash tag
// of its own), so the repository's memory and its calls spread over the
// shards. A script may touch only the keys of one slot, so "add if new"
// cannot be one script; it is the Spread protocol of internal/fleet
// (fleet.Core.Spread, shared with simhash/redisindex: readers under leases
// abort other writers' pending pages) over the keys a page touches:
//
//  1. Read the page's template counts and derive its query keys
//     (Judge.QueryKeys; its keys, Judge.Keys, are their start), and
//     finish its host's intents past their due time (below).
//  2. Lease each of its query keys, its text hash and its ID (a lease key
//     beside each, its expiry the shard's clock plus Options.LeaseTTL;
//     fleet.Attempt.Lease).
//  3. Under the leases, read the pages kept with its text, its remembered
//     verdict and its candidates (the pages filed under two of its query
//     keys, or under one rare key, as in the Detector), aborting every
//     pending page found among them (records), and judge.
//  4. A new page: write its record as pending, and on its host's slot an
//     intent to count its blocks, due at its leases' expiry; file its
//     handle under its keys, text hash and ID, each by a script that checks
//     the lease's token first (fencing: a call whose lease expired and
//     passed to another call can no longer file); then commit the record,
//     a script that makes it visible unless it was aborted. Then count its
//     blocks in its host's template model (one script on the host's slot
//     counts them and ends the intent), and release.
//
// Readers without leases ignore pending records, so a page whose client
// died before its commit is never seen (a ghost): its record and postings
// are garbage its handle points to (until its intent is finished, below).
// Its postings still count in telling whether a key is rare (filed under
// at most minhash.RareKey pages), as do those of a page marked removed
// until it is unfiled: a key they push past it makes candidates only with
// a second key. A page is filed under some of its query keys, so when of
// two near-duplicates either is the other's candidate they share a query
// key: the second call to hold its lease reads the first's page, committed
// (a match) or pending, and then aborts it. No step compares clocks. A
// step the client re-sends changes nothing: filing a handle filed, moving
// a record to its state and unfiling are idempotent, and a count step
// counts only an intent not yet done.
//
// Remove writes an intent to uncount on the host's slot, due LeaseTTL after
// it read the record; marks the record removed by its call (readers ignore
// it) unless a finisher fenced the call out; then unfiles it, uncounts its
// blocks (ending the intent) and deletes the record.
//
// The counts survive a client's death. An intent is due when its call's
// leases expire (LeaseTTL after the call took them at most), or LeaseTTL
// after its Remove read the record. A call that finds it due first makes
// the record's state final for the intent's call (decideScript: a pending
// record is aborted, a call that did not mark it removed is fenced out), so
// the state tells what the call did, and the first call that reads the
// host's counts past that time (every call does, in step 1, with the due
// time of the host's earliest intent and a node's clock: two plain reads,
// and a script on the host's shard only when that intent may be due)
// finishes the intent: a committed
// page is counted, a page its call marked removed is unfiled, uncounted
// and deleted, and any other intent dropped (a page aborted, a ghost,
// unfiled and deleted with it). Counting ends the intent in the script that
// counts, so two calls finishing one intent count it once; a page removed
// before it was counted is counted neither way; the theme counts take each
// host's template changes with the host's change number, so a change
// applied twice, or two out of order, leave the counts they should. The
// host's template model is then the one a repository where nobody died
// holds; until then the page of a client that died is missing from its
// host's counts (or, mid-Remove, still in them). A host holds the intents
// of its calls in flight and of those that died since its last call past
// their due time; a read of the host finishes at most 8, and an intent's
// mark of being done expires at its due time.

// errDied is what a test's beforeCommit or afterCommit returns to end a
// call as if its client had died.
var errDied = errors.New("redisindex: the client died (a test)")

// clockLib reads the shard's clock in ms.
const clockLib = `
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

// leaseScript takes a lease. KEYS: the lease key. ARGV: the token, the TTL
// in ms. It returns the lease's expiry in ms on the shard's clock, or
// {0, pttl} when another call holds it.
var leaseScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return {0, redis.call('PTTL', KEYS[1])} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {now + tonumber(ARGV[2]), 0}
`)

// fileScript files a handle under a field of a bucket, if the lease still
// holds the token. KEYS: the bucket, the lease key. ARGV: the token, the
// field, the 8-byte handle, MaxPostings (0: no bound, for texts and IDs),
// the mode ("append" or "set"). It returns 1, or "LEASE" when the lease is
// lost. Filing a handle again changes nothing (a re-sent call).
var fileScript = redis.NewScript(`
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 'LEASE' end
local f, h, maxp = ARGV[2], ARGV[3], tonumber(ARGV[4])
if ARGV[5] == 'set' then
  redis.call('HSET', KEYS[1], f, h)
  return 1
end
local ps = redis.call('HGET', KEYS[1], f)
if not ps then redis.call('HSET', KEYS[1], f, h); return 1 end
if ps == 'S' then return 1 end
for p = 1, #ps, 8 do
  if string.sub(ps, p, p + 7) == h then return 1 end
end
if maxp > 0 and #ps / 8 >= maxp then redis.call('HSET', KEYS[1], f, 'S') else redis.call('HSET', KEYS[1], f, ps .. h) end
return 1
`)

// unfileScript removes a handle from a field of a bucket (again: nothing).
// KEYS: the bucket. ARGV: the field, the 8-byte handle.
var unfileScript = redis.NewScript(`
local ps = redis.call('HGET', KEYS[1], ARGV[1])
if ps and ps ~= 'S' then
  for p = 1, #ps, 8 do
    if string.sub(ps, p, p + 7) == ARGV[2] then
      ps = string.sub(ps, 1, p - 1) .. string.sub(ps, p + 8)
      break
    end
  end
  if #ps == 0 then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ps) end
end
return 1
`)

// stateScript moves a record on. KEYS: the record. ARGV: the new state:
// "C" (commit: only a pending record, not aborted) or "D" (removed: only a
// committed record, by the call ARGV[2], unless a finisher fenced the call
// out; the record keeps the call). It returns "ok", "late" (fenced out:
// not moved) or "gone" (not in a state it can move from: an aborted record
// cannot commit). Moving a record to the state it is in (removed: by the
// same call) answers "ok" (a re-sent call). No clock is read.
var stateScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 'gone' end
local s = string.sub(v, 1, 1)
if ARGV[1] == 'C' then
  if s == 'C' then return 'ok' end
  if s ~= 'P' then return 'gone' end
  redis.call('SET', KEYS[1], 'C' .. string.sub(v, 2))
  return 'ok'
end
if s == 'D' then
  if string.sub(v, 2, 17) == ARGV[2] then return 'ok' end
  return 'gone'
end
if s ~= 'C' then return 'gone' end
if redis.call('EXISTS', KEYS[1] .. ':f:' .. ARGV[2]) == 1 then return 'late' end
redis.call('SET', KEYS[1], 'D' .. ARGV[2] .. string.sub(v, 2))
return 'ok'
`)

// decideScript makes a record's state final for its call, so that the
// caller can act on it: with ARGV[1] = "A" a pending record is aborted
// (its commit will find it gone; "X" and the entry), and a missing one
// becomes an aborted one ("X", for ARGV[3] ms, so that its call's record
// write, SET NX, finds it); with "R" the call ARGV[2] is fenced out of
// marking the record removed (for ARGV[3] ms) unless it did. KEYS: the
// record. It returns the record after ("" when there is none).
var decideScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if ARGV[1] == 'A' then
  if not v then
    redis.call('SET', KEYS[1], 'X', 'PX', ARGV[3])
    return 'X'
  end
  if string.sub(v, 1, 1) == 'P' then
    v = 'X' .. string.sub(v, 2)
    redis.call('SET', KEYS[1], v)
  end
  return v
end
if v and string.sub(v, 1, 17) ~= 'D' .. ARGV[2] then
  redis.call('SET', KEYS[1] .. ':f:' .. ARGV[2], '1', 'PX', ARGV[3])
end
return v or ''
`)

// recordScript reads a record and the shard's clock. KEYS: the record. It
// returns {the record or false, the time in ms}.
var recordScript = redis.NewScript(clockLib + `
return {redis.call('GET', KEYS[1]), now()}
`)

// A host's intents (the hash KEYS[3] of hostKeys, their due times in ms the
// sorted set KEYS[4]) are the pages whose blocks a call is to count in the
// host's model, or uncount. A field is "A" (count) or "R" (uncount) and the
// page's 8-byte handle; its value starts with its phase, "A" or "R" (to
// do) or "T" (done, the theme steps pending), and the 16-byte call ID. An
// "A"/"R" value goes on with the page's blocks (4-byte values), a "T"
// value with the host's 8-byte change number and the changes (4-byte
// block, "+" or "-"). An intent done is deleted, and a key beside it (the
// counts' name, ":d:", the field) marks it done until its due time, so
// that a copy of its write delivered late cannot make it again (after its
// due time a write is refused).
const intentLib = clockLib + `
local function done(f)
  local due = redis.call('ZSCORE', KEYS[4], f)
  redis.call('HDEL', KEYS[3], f)
  redis.call('ZREM', KEYS[4], f)
  local ms = due and math.floor(tonumber(due) - now()) or 0
  if ms > 0 then redis.call('SET', KEYS[1] .. ':d:' .. f, '1', 'PX', ms) end
end
`

// dueScript returns a host's intents past their due time on its shard's
// clock. KEYS: hostKeys. It returns {field, value, ...} (at most 8
// intents; value "" when missing).
var dueScript = redis.NewScript(clockLib + `
local out = {}
local due = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now(), 'LIMIT', 0, 8)
for _, f in ipairs(due) do
  out[#out + 1] = f
  out[#out + 1] = redis.call('HGET', KEYS[3], f) or ''
end
return out
`)

// intentScript writes an intent. KEYS: hostKeys. ARGV: the field, the
// value, the due time in ms. It returns "ok" (written; or written before
// by the same call, or done), "busy" (the field is another call's) or
// "late" (its due time has passed on the shard's clock: not written).
var intentScript = redis.NewScript(clockLib + `
local cur = redis.call('HGET', KEYS[3], ARGV[1])
if cur then
  if string.sub(cur, 2, 17) == string.sub(ARGV[2], 2, 17) then return 'ok' end
  return 'busy'
end
if redis.call('EXISTS', KEYS[1] .. ':d:' .. ARGV[1]) == 1 then return 'ok' end
if now() >= tonumber(ARGV[3]) then return 'late' end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
return 'ok'
`)

// settleScript ends an intent whose value is still ARGV[2] ("": an intent
// whose value is missing). KEYS: hostKeys. ARGV: the field, the value,
// "done" or "drop" (nothing to count: deleted, no mark).
var settleScript = redis.NewScript(intentLib + `
local cur = redis.call('HGET', KEYS[3], ARGV[1]) or ''
if cur == ARGV[2] then
  if ARGV[3] == 'done' then
    done(ARGV[1])
  else
    redis.call('HDEL', KEYS[3], ARGV[1])
    redis.call('ZREM', KEYS[4], ARGV[1])
  end
end
return 1
`)

// countScript carries out an intent: it counts (an "A" intent) or uncounts
// ("R") the page's blocks in its host's model, once: the intent moves on in
// the same script, so a step re-sent, or run by two calls, counts once. An
// "R" intent whose page's "A" intent is not done yet ends both, counting
// nothing. KEYS: hostKeys. ARGV: the field, TemplatePages, MaxHostBlocks.
// It returns the intent's value after: "" (done, or none) or "T..." (the
// blocks that became or stopped being template on the host, for the
// theme).
var countScript = redis.NewScript(intentLib + `
local f = ARGV[1]
local v = redis.call('HGET', KEYS[3], f)
if not v then return '' end
local op, call = string.sub(v, 1, 1), string.sub(v, 2, 17)
if op ~= 'A' and op ~= 'R' then return v end
local delta = 1
if op == 'R' then
  delta = -1
  local af = 'A' .. string.sub(f, 2)
  local a = redis.call('HGET', KEYS[3], af)
  if a and string.sub(a, 1, 1) == 'A' then
    done(af)
    done(f)
    return ''
  end
end
local TP, MAXB = tonumber(ARGV[2]), tonumber(ARGV[3])
local changed = {}
if TP >= 0 then
  for p = 18, #v, 4 do
    local b = string.sub(v, p, p + 3)
    if delta > 0 then
      if redis.call('HINCRBY', KEYS[1], b, 1) == TP then
        redis.call('SADD', KEYS[2], b); changed[#changed + 1] = b .. '+'
      end
    elseif redis.call('HEXISTS', KEYS[1], b) == 1 then
      local c = redis.call('HINCRBY', KEYS[1], b, -1)
      if c == TP - 1 then redis.call('SREM', KEYS[2], b); changed[#changed + 1] = b .. '-' end
      if c <= 0 then redis.call('HDEL', KEYS[1], b) end
    end
  end
  if delta > 0 and TP > 1 and redis.call('HLEN', KEYS[1]) > MAXB then
    local all = redis.call('HGETALL', KEYS[1])
    for i = 1, #all, 2 do
      if all[i + 1] == '1' then redis.call('HDEL', KEYS[1], all[i]) end
    end
  end
end
if #changed == 0 then
  done(f)
  return ''
end
local t = 'T' .. call .. struct.pack('>I8', redis.call('INCR', KEYS[5])) .. table.concat(changed)
redis.call('HSET', KEYS[3], f, t)
return t
`)

// themeScript applies a host's template changes to the theme counts of
// blocks of one bucket, idempotently and in any order: beside each count
// (field: the block) it keeps, for each host, whether the block is template
// there and the host's change number that said so (field: the block, "@",
// the host; value: "+" or "-" and the number), and applies a change only
// when its number is higher. KEYS: the bucket. ARGV: the host, its 8-byte
// change number, the changes (4-byte block, "+" or "-").
var themeScript = redis.NewScript(`
local host, s = ARGV[1], ARGV[2]
local seq = struct.unpack('>I8', s)
for p = 1, #ARGV[3], 5 do
  local b = string.sub(ARGV[3], p, p + 3)
  local on = string.sub(ARGV[3], p + 4, p + 4) == '+'
  local m = b .. '@' .. host
  local cur = redis.call('HGET', KEYS[1], m)
  if not cur or struct.unpack('>I8', cur, 2) < seq then
    local was = cur and string.sub(cur, 1, 1) == '+'
    if on then redis.call('HSET', KEYS[1], m, '+' .. s) else redis.call('HSET', KEYS[1], m, '-' .. s) end
    if on and not was then
      redis.call('HINCRBY', KEYS[1], b, 1)
    elseif was and not on and redis.call('HINCRBY', KEYS[1], b, -1) <= 0 then
      redis.call('HDEL', KEYS[1], b)
    end
  end
end
return 1
`)

// spread names the keys of a spread repository (base is Prefix + ":ms").
type spread struct{ base string }

func (s spread) bucket(kind string, v uint64) string {
	return fmt.Sprintf("%s:{%s:%04x}", s.base, kind, v&0xffff)
}
func (s spread) keyBucket(k uint32) string   { return s.bucket("k", uint64(k)) }
func (s spread) textBucket(x uint64) string  { return s.bucket("x", x) }
func (s spread) verdBucket(x uint64) string  { return s.bucket("v", x) }
func (s spread) idBucket(id string) string   { return s.bucket("i", xxhash.Sum64String(id)) }
func (s spread) themeBucket(b uint32) string { return s.bucket("t", uint64(b)) }
func (s spread) record(h uint64) string      { return fmt.Sprintf("%s:{r:%016x}", s.base, h) }
func (s spread) host(h string) string        { return fmt.Sprintf("%s:{h:%s}", s.base, h) }
func (s spread) cfg() string                 { return s.base + ":{cfg}" }
func lease(bucket, field string) string      { return bucket + ":L:" + field }

// hostKeys are the keys of a host's model (one slot): its counts, its
// template set, its intents, their due times, and the number of its last
// template change.
func (s spread) hostKeys(host string) []string {
	hk := s.host(host)
	return []string{hk, hk + ":T", hk + ":I", hk + ":Z", hk + ":s"}
}

// ownState is what a page is judged by before its candidates: the pages
// kept with its text, its remembered verdict, the handle kept under its ID
// and its blocks' template counts (a spread repository reads it before its
// keys are known, and again under its leases).
type ownState struct {
	exact   []string // IDs of the pages kept with its text
	verdict []string // the remembered verdict's ID and distance, or nil
	own     uint64   // the handle kept under its ID, or 0
	hc, tc  []any
}

// committed returns the entry of a stored record value that is committed,
// and false for a pending or removed one; any other value is an error
// wrapping neardup.ErrCorrupt.
func committed(v string) (string, bool, error) {
	switch {
	case len(v) > 0 && v[0] == 'C':
		if _, ok := splitEntry(v[1:]); !ok {
			return "", false, fmt.Errorf("%w: committed record of %d bytes cut short", neardup.ErrCorrupt, len(v))
		}
		return v[1:], true, nil
	case len(v) > 1 && v[0] == 'P', len(v) >= 1 && v[0] == 'X', len(v) >= 17 && v[0] == 'D':
		return "", false, nil
	}
	return "", false, fmt.Errorf("%w: record of %d bytes in no state", neardup.ErrCorrupt, len(v))
}

// readOwn reads, in one pipeline, the page's template counts, the pages
// kept with its text, its remembered verdict and the handle kept under its
// ID, and checks the repository's options. When its host has intents past
// their due time, it finishes them and reads again (an intent it could not
// finish, Redis failing, is left to the host's next call: the call's own
// reads report the failure).
func (det *Detector) readOwn(ctx context.Context, r *minhash.Record, id string) (*ownState, error) {
	o, maybeDue, err := det.readOwnOnce(ctx, r, id)
	if err != nil || !maybeDue {
		return o, err
	}
	if n, _ := det.finishDue(ctx, r.Host()); n == 0 {
		return o, nil
	}
	o, _, err = det.readOwnOnce(ctx, r, id)
	return o, err
}

// readOwnOnce is readOwn's read. It reports as well whether the host's
// earliest intent may be due: its due time is within a quarter of LeaseTTL
// of the clock of a node (then dueScript, on the host's shard, tells).
func (det *Detector) readOwnOnce(ctx context.Context, r *minhash.Record, id string) (*ownState, bool, error) {
	s := det.spread
	x, xf := r.TextHash(), u64(r.TextHash())
	blocks := r.Blocks()
	fields := make([]string, len(blocks))
	for i, b := range blocks {
		fields[i] = u32s([]uint32{b})
	}
	var (
		cfg             *redis.StringCmd
		hc              *redis.SliceCmd
		first           *redis.ZSliceCmd
		clock           *redis.TimeCmd
		tcs             = make([]*redis.SliceCmd, len(blocks))
		xs, vs, handle_ *redis.StringCmd
	)
	hostKeys := s.hostKeys(r.Host())
	_, err := det.fc.ReadPipelined(ctx, func(p redis.Pipeliner) error {
		cfg = p.Get(ctx, s.cfg())
		if len(fields) > 0 {
			hc = p.HMGet(ctx, hostKeys[0], fields...)
		}
		first = p.ZRangeWithScores(ctx, hostKeys[3], 0, 0)
		clock = p.Time(ctx)
		for i, b := range blocks {
			tcs[i] = p.HMGet(ctx, s.themeBucket(b), fields[i])
		}
		xs = p.HGet(ctx, s.textBucket(x), xf)
		vs = p.HGet(ctx, s.verdBucket(x), xf)
		handle_ = p.HGet(ctx, s.idBucket(id), id)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, false, err
	}
	if c, err := cfg.Result(); err == nil && c != det.cfg {
		return nil, false, fmt.Errorf("NEARDUP_CFG the repository was made with options %s, not %s", c, det.cfg)
	}
	o := &ownState{}
	if hc != nil {
		o.hc = ints(hc.Val())
	}
	maybeDue := false
	if f := first.Val(); len(f) == 1 {
		maybeDue = f[0].Score <= float64(clock.Val().UnixMilli()+det.opts.LeaseTTL.Milliseconds()/4)
	}
	for _, c := range tcs {
		o.tc = append(o.tc, ints(c.Val())...)
	}
	if h, err := handle_.Result(); err == nil && len(h) == 8 {
		o.own = binary.BigEndian.Uint64([]byte(h))
	}
	var handles []uint64
	if v, err := xs.Result(); err == nil {
		for p := 0; p+8 <= len(v); p += 8 {
			handles = append(handles, binary.BigEndian.Uint64([]byte(v[p:])))
		}
	}
	verdictAt := -1
	if v, err := vs.Result(); err == nil && len(v) == 16 {
		verdictAt = len(handles)
		handles = append(handles, binary.BigEndian.Uint64([]byte(v)))
		o.verdict = []string{"", strconv.FormatFloat(math.Float64frombits(binary.BigEndian.Uint64([]byte(v[8:]))), 'g', -1, 64)}
	}
	entries, err := det.records(ctx, handles)
	if err != nil {
		return nil, false, err
	}
	for i, e := range entries {
		f, ok := splitEntry(e)
		switch {
		case e == "" || !ok:
		case i == verdictAt:
			o.verdict[0] = f.id
		default:
			o.exact = append(o.exact, f.id)
		}
	}
	if o.verdict != nil && o.verdict[0] == "" {
		o.verdict = nil
	}
	return o, maybeDue, nil
}

// ints returns the integers of a reply (nil as 0).
func ints(vs []any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		n := int64(0)
		if s, ok := v.(string); ok {
			n, _ = strconv.ParseInt(s, 10, 64)
		}
		out[i] = n
	}
	return out
}

// leasedRead marks the context of the reads a call makes under its leases
// (underLeases).
type leasedRead struct{}

// underLeases returns ctx marked as the context of reads under the call's
// leases: there, records aborts the pending records it finds.
func underLeases(ctx context.Context) context.Context {
	return context.WithValue(ctx, leasedRead{}, true)
}

// records returns the committed entries of handles ("" for a handle whose
// record is not committed), in one pipeline. Under the call's leases
// (underLeases) it aborts the pending records it finds: one filed under a
// key, text or ID the call leases is one whose call lost that lease (every
// filing needs it), and aborted it can no longer commit beside the page
// this call may keep (decideScript; a record committed meanwhile is read
// as committed).
func (det *Detector) records(ctx context.Context, handles []uint64) ([]string, error) {
	if len(handles) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.StringCmd, len(handles))
	_, err := det.fc.ReadPipelined(ctx, func(p redis.Pipeliner) error {
		for i, h := range handles {
			cmds[i] = p.Get(ctx, det.spread.record(h))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	vals := make([]string, len(handles))
	var pending []int
	for i, c := range cmds {
		vals[i] = c.Val()
		if len(vals[i]) > 1 && vals[i][0] == 'P' && ctx.Value(leasedRead{}) != nil {
			pending = append(pending, i)
		}
	}
	err = fleet.Parallel(len(pending), func(j int) error {
		i := pending[j]
		v, err := det.fc.Run(ctx, decideScript, []string{det.spread.record(handles[i])}, "A", "", det.opts.CallTTL.Milliseconds()).Text() // acknowledged with ReplicaAck
		vals[i] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(handles))
	for i, v := range vals {
		if v != "" {
			if out[i], _, err = committed(v); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// spreadCandidates returns the committed entries of the candidates of a
// page looked up under keys (Judge.QueryKeys), but skip's: the pages filed
// under two of keys, or under one filed under at most minhash.RareKey
// pages (as the one-slot scripts' gather).
func (det *Detector) spreadCandidates(ctx context.Context, keys []uint32, skip uint64) ([]string, error) {
	cmds := make([]*redis.StringCmd, len(keys))
	_, err := det.fc.ReadPipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.HGet(ctx, det.spread.keyBucket(k), u32s([]uint32{k}))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	shared := map[uint64]int{}
	var order, handles []uint64
	for _, c := range cmds {
		ps, err := c.Result()
		if err != nil || ps == "S" {
			continue
		}
		w := 1
		if len(ps)/8 <= minhash.RareKey {
			w = 2 // a rare key counts as two
		}
		for p := 0; p+8 <= len(ps); p += 8 {
			if h := binary.BigEndian.Uint64([]byte(ps[p:])); h != skip {
				if shared[h] == 0 {
					order = append(order, h)
				}
				shared[h] += w
			}
		}
	}
	for _, h := range order {
		if shared[h] >= 2 {
			handles = append(handles, h)
		}
	}
	entries, err := det.records(ctx, handles)
	return slices.DeleteFunc(entries, func(e string) bool { return e == "" }), err
}

// spreadTemplates is templates for a spread repository.
func (det *Detector) spreadTemplates(ctx context.Context, blocks map[string][]uint32) (map[string]minhash.Template, error) {
	hosts := map[string]*redis.StringSliceCmd{}
	theme := map[uint32]*redis.SliceCmd{}
	_, err := det.fc.ReadPipelined(ctx, func(p redis.Pipeliner) error {
		for h, bs := range blocks {
			hosts[h] = p.SMembers(ctx, det.spread.host(h)+":T")
			for _, b := range bs {
				if theme[b] == nil {
					theme[b] = p.HMGet(ctx, det.spread.themeBucket(b), u32s([]uint32{b}))
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	themed := map[uint32]bool{}
	for b, c := range theme {
		if n := ints(c.Val()); len(n) == 1 && n[0].(int64) >= minhash.ThemeHosts {
			themed[b] = true
		}
	}
	out := make(map[string]minhash.Template, len(hosts))
	for h, c := range hosts {
		set := map[uint32]bool{}
		for _, s := range c.Val() {
			if len(s) == 4 {
				set[binary.BigEndian.Uint32([]byte(s))] = true
			}
		}
		out[h] = func(b uint32) bool { return set[b] || themed[b] }
	}
	return out, nil
}

// acquire takes the leases of names (each once) for the attempt a
// (fleet.Attempt.Lease), waiting for those other calls hold, until ctx is
// done, and returns their earliest expiry in ms; the attempt's end gives
// them back.
func (det *Detector) acquire(ctx context.Context, a *fleet.Attempt, names []string) (int64, error) {
	slices.Sort(names)
	names = slices.Compact(names)
	ttl := det.opts.LeaseTTL.Milliseconds()
	expiry := make([]int64, len(names))
	err := a.Lease(ctx, names, func(i int) (bool, error) {
		res, err := leaseScript.Run(ctx, det.client, names[i:i+1], a.Token, ttl).Int64Slice()
		if err != nil || len(res) != 2 || res[0] <= 0 {
			return false, err
		}
		expiry[i] = res[0]
		return true, nil
	})
	if err != nil {
		return 0, err
	}
	return slices.Min(expiry), nil
}

// spreadLayout is the layout of a repository over every slot.
type spreadLayout struct{ *Detector }

// matchOrAdd runs the protocol at the top of this file, in attempts
// (fleet.Core.Spread).
func (det spreadLayout) matchOrAdd(ctx context.Context, op string, d *neardup.Document, r *minhash.Record, replacing, force bool) (matches []neardup.Match, added bool, err error) {
	s := det.spread
	err = det.fc.Spread(ctx, func(a *fleet.Attempt) error {
		own, err := det.readOwn(ctx, r, d.ID)
		if err != nil {
			return wrap(op, d.ID, err)
		}
		if !replacing && !force && slices.Contains(own.exact, d.ID) {
			matches, added = nil, true
			return nil // its own page, committed: nothing changes (neardup.MatchAdder)
		}
		tmpl := det.template(r.Blocks(), own.hc, own.tc)
		keys := det.judge.QueryKeys(r, tmpl) // whatever is filed under them may be a candidate
		x := r.TextHash()
		names := []string{lease(s.textBucket(x), u64(x)), lease(s.idBucket(d.ID), d.ID)}
		for _, k := range keys {
			names = append(names, lease(s.keyBucket(k), u32s([]uint32{k})))
		}
		expiry, err := det.acquire(ctx, a, names)
		if err != nil {
			return wrap(op, d.ID, err) // ErrAborted: a lease lost while it took the others
		}
		var retry bool
		matches, added, retry, err = det.spreadLeased(ctx, op, d, r, replacing, force, a, expiry)
		switch {
		case errors.Is(err, errDied):
			a.Die()
		case err == nil && retry:
			return fleet.ErrAborted
		}
		return err
	})
	switch {
	case err != nil && err == ctx.Err(): // the context ended between attempts
		return nil, false, wrap(op, d.ID, err)
	case err != nil:
		return nil, false, err
	case !added && len(matches) > 0 && !replacing && matches[0].Score > 0:
		_ = det.spreadRemember(ctx, r, matches[0]) // safe to ignore: see remember
	}
	return matches, added, nil
}

// spreadLeased is steps 3 and 4 of the protocol, under the leases of the
// attempt a, which expire at expiry (ms, on the shards' clocks). retry
// reports that the page was not kept because it was aborted (or a lease
// lost) before its commit.
func (det *Detector) spreadLeased(ctx context.Context, op string, d *neardup.Document, r *minhash.Record, replacing, force bool, a *fleet.Attempt, expiry int64) (ms []neardup.Match, added, retry bool, err error) {
	s := det.spread
	ctx = underLeases(ctx) // its reads abort the pending pages of calls that lost their leases
	own, err := det.readOwn(ctx, r, d.ID)
	if err != nil {
		return nil, false, false, wrap(op, d.ID, err)
	}
	rd, found := det.ownRead(own, d, r, replacing)
	skip := uint64(0)
	if replacing {
		skip = own.own
	}
	if force { // Add: whatever is kept
		rd.matches = nil
	} else {
		entries, err := det.spreadCandidates(ctx, rd.query, skip)
		if err != nil {
			return nil, false, false, wrap(op, d.ID, err)
		}
		if err := det.judgeEntries(ctx, rd, entries, nil, found, replacing, nil); err != nil {
			return nil, false, false, wrap(op, d.ID, err)
		}
	}
	if !replacing && !force && neardup.OwnPage(d.ID, rd.matches) {
		return nil, true, false, nil // its own page, committed meanwhile
	}
	if len(rd.matches) > 0 {
		if replacing && own.own != 0 {
			if err := det.spreadRemove(ctx, d.ID, own.own); err != nil && !errors.Is(err, neardup.ErrUnknownID) {
				return nil, false, false, err
			}
		}
		return rd.matches, false, false, nil
	}
	if own.own != 0 && !replacing {
		if ok, err := det.Contains(ctx, d.ID); err != nil || ok {
			if err == nil {
				err = fmt.Errorf("redisindex: %s %s: %w", op, detector.QuoteID(d.ID), neardup.ErrDuplicateID)
			}
			return nil, false, false, err
		}
	}
	if replacing && own.own != 0 {
		if err := det.spreadRemove(ctx, d.ID, own.own); err != nil && !errors.Is(err, neardup.ErrUnknownID) {
			return nil, false, false, err
		}
	}
	// Step 4: a pending record, filed under its keys, text and ID, then
	// committed unless aborted.
	var hb [8]byte
	rand.Read(hb[:])
	h := binary.BigEndian.Uint64(hb[:]) | 1 // never 0 (no handle)
	binary.BigEndian.PutUint64(hb[:], h)
	e, err := entry(d.ID, r, rd.keys)
	if err != nil {
		return nil, false, false, err
	}
	run := func(sc *redis.Script, keys []string, args ...any) (any, error) {
		return det.fc.Run(ctx, sc, keys, args...).Result() // a filing or the commit: acknowledged with ReplicaAck
	}
	// The record (SET NX: a finisher may have aborted it before it was
	// written), and the intent to count its blocks, due when the leases
	// expire: a call that finds it due aborts the record if it is still
	// pending (decideScript), so its state tells whether to count it.
	rk := s.record(h)
	hostKeys := s.hostKeys(r.Host())
	field, intentValue := "A"+string(hb[:]), "A"+a.Call+u32s(r.Blocks())
	intentArgs := []any{field, intentValue, expiry}
	var ic *redis.Cmd
	cmds, err := det.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.SetNX(ctx, s.cfg(), det.cfg, 0)
		p.SetNX(ctx, rk, "P"+e, 0)
		ic = p.EvalSha(ctx, intentScript.Hash(), hostKeys, intentArgs...)
		return nil
	})
	if err := fleet.PipeErr(cmds, err); err != nil {
		return nil, false, false, wrap(op, d.ID, err)
	}
	written, err := ic.Text()
	if fleet.NoScript(err) {
		written, err = intentScript.Run(ctx, det.client, hostKeys, intentArgs...).Text()
	}
	if err != nil {
		return nil, false, false, wrap(op, d.ID, err)
	}
	type filing struct{ bucket, field, mode string }
	files := []filing{{s.textBucket(r.TextHash()), u64(r.TextHash()), "append"}, {s.idBucket(d.ID), d.ID, "set"}}
	for _, k := range rd.keys {
		files = append(files, filing{s.keyBucket(k), u32s([]uint32{k}), "append"})
	}
	maxp := det.opts.Minhash.MaxPostings
	lost := written != "ok"
	if !lost { // every filing at once: one round trip
		err := fleet.ParallelHeld(len(files), func(i int) (bool, error) {
			f, mp := files[i], 0
			if f.mode == "append" && f.bucket != files[0].bucket {
				mp = max(maxp, 0)
			}
			res, err := run(fileScript, []string{f.bucket, lease(f.bucket, f.field)}, a.Token, f.field, string(hb[:]), mp, f.mode)
			return res != "LEASE", err
		})
		if lost = errors.Is(err, fleet.ErrAborted); err != nil && !lost {
			return nil, false, false, wrap(op, d.ID, err)
		}
	}
	if det.beforeCommit != nil {
		if err := det.beforeCommit(); err != nil {
			return nil, false, false, err
		}
	}
	state := "late"
	if !lost {
		res, err := run(stateScript, []string{rk}, "C")
		if err != nil {
			return nil, false, false, wrap(op, d.ID, err)
		}
		state, _ = res.(string)
	}
	if state != "ok" {
		// Aborted (the leases passed to another call, which found the page
		// pending) or a lease lost: what was filed points to a record never
		// committed; drop it and try again.
		// A step that fails ends the call: the record stays pending with
		// its intent, which the host's next read past its due time
		// finishes as a ghost's (finish).
		err := det.unfile(ctx, rd.keys, r.TextHash(), d.ID, string(hb[:]))
		if err == nil {
			err = det.client.Del(ctx, rk).Err()
		}
		if err == nil {
			err = det.settle(ctx, r.Host(), field, intentValue, "drop")
		}
		if err != nil {
			return nil, false, false, wrap(op, d.ID, err)
		}
		return nil, false, true, nil
	}
	if det.afterCommit != nil {
		if err := det.afterCommit(); err != nil {
			return nil, false, false, err
		}
	}
	if err := det.count(ctx, r.Host(), field); err != nil {
		return nil, false, false, wrap(op, d.ID, err)
	}
	return nil, true, false, nil
}

// unfile removes handle hb from the postings of keys, the text hash x and
// the ID id.
func (det *Detector) unfile(ctx context.Context, keys []uint32, x uint64, id, hb string) error {
	s := det.spread
	type filing struct{ bucket, field string }
	files := []filing{{s.textBucket(x), u64(x)}, {s.idBucket(id), id}}
	for _, k := range keys {
		files = append(files, filing{s.keyBucket(k), u32s([]uint32{k})})
	}
	return fleet.Parallel(len(files), func(i int) error {
		return unfileScript.Run(ctx, det.client, []string{files[i].bucket}, files[i].field, hb).Err()
	})
}

// intent is one of a host's intents: its field and value (the layout is
// above dueScript).
type intent struct{ field, value string }

// count carries out the intent field of host's model (countScript), then
// its theme steps.
func (det *Detector) count(ctx context.Context, host, field string) error {
	o := det.opts.Minhash
	v, err := countScript.Run(ctx, det.client, det.spread.hostKeys(host), field, o.TemplatePages, minhash.MaxHostBlocks).Text()
	if err != nil {
		return err
	}
	if strings.HasPrefix(v, "T") {
		return det.applyTheme(ctx, host, field, v)
	}
	return nil
}

// applyTheme applies the template changes of host's intent field (its
// value t) to the theme counts, then marks the intent done.
func (det *Detector) applyTheme(ctx context.Context, host, field, t string) error {
	if len(t) < 25 {
		return det.settle(ctx, host, field, t, "drop")
	}
	seq, changes := t[17:25], t[25:]
	byBucket := map[string]string{}
	for p := 0; p+5 <= len(changes); p += 5 {
		tb := det.spread.themeBucket(binary.BigEndian.Uint32([]byte(changes[p:])))
		byBucket[tb] += changes[p : p+5]
	}
	for tb, cs := range byBucket {
		if err := themeScript.Run(ctx, det.client, []string{tb}, host, seq, cs).Err(); err != nil {
			return err
		}
	}
	return det.settle(ctx, host, field, t, "done")
}

// settle ends host's intent field if its value is still value: how is
// "done" or "drop".
func (det *Detector) settle(ctx context.Context, host, field, value, how string) error {
	return settleScript.Run(ctx, det.client, det.spread.hostKeys(host), field, value, how).Err()
}

// finishDue finishes host's intents past their due time (at most 8), and
// returns how many there were.
func (det *Detector) finishDue(ctx context.Context, host string) (int, error) {
	fvs, err := dueScript.Run(ctx, det.client, det.spread.hostKeys(host)).Slice()
	if err != nil {
		return 0, err
	}
	var due []intent
	for i := 0; i+1 < len(fvs); i += 2 {
		f, _ := fvs[i].(string)
		v, _ := fvs[i+1].(string)
		due = append(due, intent{f, v})
	}
	return len(due), det.finish(ctx, host, due)
}

// finish finishes intents of host past their due time, which their calls
// did not: once due, the page's record can no longer change state for the
// intent's call, so it tells what to do. An "A" intent whose page was
// committed is counted; an "R" intent whose call marked the page removed
// finishes the removal (unfiled, uncounted, its record deleted); any other
// is dropped, and a page whose record stayed pending (a ghost) is unfiled
// and deleted. An intent done but for its theme steps gets them. Each step
// is idempotent: two calls finishing one intent count it once.
func (det *Detector) finish(ctx context.Context, host string, due []intent) error {
	s := det.spread
	for _, in := range due {
		if strings.HasPrefix(in.value, "T") {
			if err := det.applyTheme(ctx, host, in.field, in.value); err != nil {
				return err
			}
			continue
		}
		if len(in.field) != 9 || len(in.value) < 17 {
			if err := det.settle(ctx, host, in.field, in.value, "drop"); err != nil {
				return err
			}
			continue
		}
		hb := in.field[1:]
		rk := s.record(binary.BigEndian.Uint64([]byte(hb)))
		op := in.field[0]
		v, err := decideScript.Run(ctx, det.client, []string{rk}, string(op), in.value[1:17], det.opts.CallTTL.Milliseconds()).Text()
		if err != nil {
			return err
		}
		switch {
		case op == 'A' && (strings.HasPrefix(v, "C") || strings.HasPrefix(v, "D")):
			err = det.count(ctx, host, in.field)
		case op == 'R' && len(v) >= 17 && v[0] == 'D' && v[1:17] == in.value[1:17]:
			if err = det.unfileEntry(ctx, v[17:], hb); err == nil {
				if err = det.count(ctx, host, in.field); err == nil {
					err = det.client.Del(ctx, rk).Err()
				}
			}
		default:
			if op == 'A' && len(v) > 1 && v[0] == 'X' { // aborted: a ghost
				if err = det.unfileEntry(ctx, v[1:], hb); err == nil {
					err = det.client.Del(ctx, rk).Err()
				}
			}
			if err == nil {
				err = det.settle(ctx, host, in.field, in.value, "drop")
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// unfileEntry removes handle hb from the postings of the keys, text hash
// and ID of entry e.
func (det *Detector) unfileEntry(ctx context.Context, e, hb string) error {
	f, ok := splitEntry(e)
	if !ok {
		return nil
	}
	x := e[len(e)-len(f.rec)-8 : len(e)-len(f.rec)]
	return det.unfile(ctx, fromU32s(f.keys), binary.BigEndian.Uint64([]byte(x)), f.id, hb)
}

// ownRead is the read of a page judged under its template: its keys, and
// the matches of the pages kept with its text (but its own when replacing)
// or, when there are none, of its remembered verdict.
func (det *Detector) ownRead(own *ownState, d *neardup.Document, r *minhash.Record, replacing bool) (*read, map[string]bool) {
	rd := &read{rec: r}
	rd.tmpl = det.template(r.Blocks(), own.hc, own.tc)
	rd.keys = det.judge.Keys(r, rd.tmpl)
	rd.query = det.judge.QueryKeys(r, rd.tmpl)
	found := map[string]bool{}
	for _, id := range own.exact {
		if id != "" && !(replacing && id == d.ID) {
			rd.matches = append(rd.matches, neardup.Match{ID: id, Score: 0, Measure: minhash.JaccardDistance})
			found[id] = true
		}
	}
	if len(own.verdict) == 2 && !replacing && len(rd.matches) == 0 {
		id := own.verdict[0]
		if dist, err := strconv.ParseFloat(own.verdict[1], 64); err == nil && id != "" && id != d.ID {
			rd.matches = append(rd.matches, neardup.Match{ID: id, Score: dist, Measure: minhash.JaccardDistance})
			found[id] = true
			rd.verdict = true
		}
	}
	return rd, found
}

// match is MatchContext for a spread repository: the reads of the
// protocol, without leases.
func (det spreadLayout) match(ctx context.Context, d *neardup.Document, r *minhash.Record) ([]neardup.Match, error) {
	own, err := det.readOwn(ctx, r, d.ID)
	if err != nil {
		return nil, wrap("Match", d.ID, err)
	}
	rd, found := det.ownRead(own, d, r, false)
	entries, err := det.spreadCandidates(ctx, rd.query, 0)
	if err != nil {
		return nil, wrap("Match", d.ID, err)
	}
	if err := det.judgeEntries(ctx, rd, entries, nil, found, false, nil); err != nil {
		return nil, wrap("Match", d.ID, err)
	}
	return rd.matches, nil
}

// spreadRemember is remember for a spread repository.
func (det *Detector) spreadRemember(ctx context.Context, r *minhash.Record, m neardup.Match) error {
	s := det.spread
	h, err := det.client.HGet(ctx, s.idBucket(m.ID), m.ID).Result()
	if err != nil || len(h) != 8 {
		return err // a handle of another size: the page's next read reports it
	}
	v := h + u64(math.Float64bits(m.Score))
	return det.client.HSetNX(ctx, s.verdBucket(r.TextHash()), u64(r.TextHash()), v).Err()
}

// spreadRemove forgets the page kept under id with handle h: an intent to
// uncount its blocks on its host, its record marked removed (by the call,
// before the intent is due), then unfiled and uncounted, its record
// deleted.
func (det *Detector) spreadRemove(ctx context.Context, id string, h uint64) error {
	s := det.spread
	rk, hb := s.record(h), u64(h)
	field := "R" + hb
	ttl := det.opts.LeaseTTL.Milliseconds()
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		res, err := recordScript.Run(ctx, det.client, []string{rk}).Slice()
		if err != nil {
			return wrap("Remove", id, err)
		}
		var v string
		var now int64
		if len(res) == 2 {
			v, _ = res[0].(string)
			now, _ = res[1].(int64)
		}
		if v == "" { // no record: a page whose filing was undone
			return fmt.Errorf("redisindex: Remove %s: %w", detector.QuoteID(id), neardup.ErrUnknownID)
		}
		e, ok, err := committed(v)
		if err != nil {
			return wrap("Remove", id, err)
		}
		if !ok {
			return fmt.Errorf("redisindex: Remove %s: %w", detector.QuoteID(id), neardup.ErrUnknownID)
		}
		_, r, err := det.parseEntry(e)
		if err != nil {
			return err
		}
		host := r.Host()
		due := now + ttl
		call := fleet.NewCall() // each round its own: a finisher may have fenced out the last
		value := "R" + call + u32s(r.Blocks())
		st, err := intentScript.Run(ctx, det.client, s.hostKeys(host), field, value, due).Text()
		if err != nil {
			return wrap("Remove", id, err)
		}
		if st == "ok" {
			st, err = stateScript.Run(ctx, det.client, []string{rk}, "D", call).Text()
			if err != nil {
				return wrap("Remove", id, err)
			}
			if st == "ok" {
				return det.removeMarked(ctx, id, r, host, field, e, hb)
			}
			if err := det.settle(ctx, host, field, value, "drop"); err != nil {
				return wrap("Remove", id, err)
			}
			if st == "gone" { // removed by another call
				return fmt.Errorf("redisindex: Remove %s: %w", detector.QuoteID(id), neardup.ErrUnknownID)
			}
		} else if _, err := det.finishDue(ctx, host); err != nil { // another call's Remove
			return wrap("Remove", id, err)
		}
		if err := fleet.Sleep(ctx, wait+time.Duration(mrand.Int64N(int64(wait)))); err != nil {
			return wrap("Remove", id, err)
		}
	}
}

// removeMarked is the rest of a Remove once the page's record is marked
// removed: its handle unfiled, its blocks uncounted, its record deleted.
func (det *Detector) removeMarked(ctx context.Context, id string, r *minhash.Record, host, field, e, hb string) error {
	if det.afterCommit != nil {
		if err := det.afterCommit(); err != nil {
			return err
		}
	}
	ef, _ := splitEntry(e) // whole: parseEntry read it
	if err := det.unfile(ctx, fromU32s(ef.keys), r.TextHash(), id, hb); err != nil {
		return wrap("Remove", id, err)
	}
	if err := det.count(ctx, host, field); err != nil {
		return wrap("Remove", id, err)
	}
	if err := det.client.Del(ctx, det.spread.record(binary.BigEndian.Uint64([]byte(hb)))).Err(); err != nil {
		return wrap("Remove", id, err)
	}
	return nil
}

// handle returns the handle kept under id, and false when there is none.
func (det spreadLayout) handle(ctx context.Context, id string) (uint64, bool, error) {
	h, err := det.client.HGet(ctx, det.spread.idBucket(id), id).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case len(h) != 8:
		return 0, false, fmt.Errorf("%w: the ID names a handle of %d bytes", neardup.ErrCorrupt, len(h))
	}
	return binary.BigEndian.Uint64([]byte(h)), true, nil
}

func (det spreadLayout) remove(ctx context.Context, id string) error {
	h, ok, err := det.handle(ctx, id)
	switch {
	case err != nil:
		return wrap("Remove", id, err)
	case !ok:
		return wrap("Remove", id, neardup.ErrUnknownID)
	}
	return det.spreadRemove(ctx, id, h)
}

func (det spreadLayout) contains(ctx context.Context, id string) (bool, error) {
	h, ok, err := det.handle(ctx, id)
	if err != nil || !ok {
		return false, wrap("Contains", id, err)
	}
	es, err := det.records(ctx, []uint64{h})
	if err != nil {
		return false, wrap("Contains", id, err)
	}
	return es[0] != "", nil
}

// len counts the IDs of a spread repository's committed pages, over
// every shard (a scan: for tests and audits, not for every call).
func (det spreadLayout) len(ctx context.Context) (int, error) {
	var total atomic.Int64
	scan := func(ctx context.Context, cl redis.UniversalClient) error {
		iter := cl.Scan(ctx, 0, det.spread.base+":{i:*}", 1000).Iterator()
		for iter.Next(ctx) {
			if strings.Contains(iter.Val(), ":L:") || strings.Contains(iter.Val(), ":c:") {
				continue
			}
			ids, err := cl.HGetAll(ctx, iter.Val()).Result()
			if err != nil {
				return err
			}
			hs := make([]uint64, 0, len(ids))
			for _, h := range ids {
				if len(h) == 8 {
					hs = append(hs, binary.BigEndian.Uint64([]byte(h)))
				}
			}
			entries, err := det.records(ctx, hs)
			if err != nil {
				return err
			}
			for _, e := range entries {
				if e != "" {
					total.Add(1)
				}
			}
		}
		return iter.Err()
	}
	var err error
	if c, ok := det.client.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return scan(ctx, m) })
	} else {
		err = scan(ctx, det.client)
	}
	return int(total.Load()), wrap("Len", "", err)
}
