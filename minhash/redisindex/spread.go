package redisindex

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/minhash/internal/judge"
)

// With Options.Spread, a repository's keys spread over every slot of a
// Redis Cluster: each bucket of postings, exact texts, verdicts, IDs and
// theme counts is a key of its own slot (a hash tag of its own), and a
// host's template counts and its pages' records share the slot of the
// host's bucket (the top 16 bits of a page's handle). A script may touch
// only the keys of one slot, so "add if new" is the Spread protocol of
// internal/fleet (fleet.Core.Spread, shared with simhash/redisindex) over
// the keys a page touches:
//
//  1. Read the page's template counts and derive its query keys
//     (Judge.QueryKeys; its keys, Judge.Keys, are their start).
//  2. Lease each of its query keys, its text hash and its ID (a lease key
//     beside each; fleet.Attempt.Lease).
//  3. Under the leases, read the pages kept with its text, its remembered
//     verdict and its candidates (the pages filed under two of its query
//     keys, or under one rare key of its host, as in the Detector), aborting every
//     pending page found among them, and judge.
//  4. A new page: write its record as pending; file its handle under its
//     keys, text hash and ID, each by a script that checks the lease's
//     token first (fencing: a call whose lease passed to another call can
//     no longer file); then commit the record, one script on the host's
//     slot that makes it visible unless it was aborted and counts its
//     blocks in the host's template model. Then apply the host's template
//     changes to the theme counts, and release.
//
// A page is filed under some of its query keys, so when of two
// near-duplicates either is the other's candidate they share a query key:
// the second call to hold its lease reads the first's page, committed (a
// match) or pending, and then aborts it. No step compares clocks. Readers
// without leases ignore records not committed, so the page of a client
// that died before its commit is never seen; a reader under leases that
// finds it aborts it, and purges what is left of a page aborted or removed
// (its postings, which until then count in telling whether a key is rare,
// and its record). Remove marks the record removed and uncounts its blocks
// in one script on the host's slot, then purges the page. So a host's
// template counts are always its committed pages', whoever died. A commit
// or Remove that changes the host's template set also logs the change, with
// the host's change number, on the host's slot; the call applies it to the
// theme counts (on other slots) and deletes it, and a call that finds its
// host's log not empty (a client died between the two) applies it first.
// Every step re-sent changes nothing: filing, unfiling, moving a record to
// the state it is in (which counts nothing) and applying a theme change
// (the theme counts keep each host's last change number) are idempotent.

// errDied is what a test's beforeCommit or afterCommit returns to end a
// call as if its client had died.
var errDied = errors.New("redisindex: the client died (a test)")

// leaseScript takes or renews a lease. KEYS: the lease key. ARGV: the
// token, the TTL in ms. It returns 1, or 0 when another call holds it.
var leaseScript = redis.NewScript(`
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
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

// stateScript moves a record on. KEYS: the record; for "C" and "D" the
// keys of its host's model (hostKeys) after it. ARGV[1] is the move:
//
//   - "X" aborts a pending record (its commit will find it gone) and
//     returns the record after ("" when there is none);
//   - "C" commits a pending record, "D" marks a committed record removed
//     by the call ARGV[2] (the record keeps the call), and each counts
//     (uncounts) the record's blocks, ARGV[5] (4-byte values), in its
//     host's model in the same step (ARGV[3] TemplatePages, ARGV[4]
//     MaxHostBlocks). They return "gone" when the record is in no state it
//     can move from (an aborted record cannot commit), else "ok" followed,
//     when the host's template set changed, by its change number (8 bytes)
//     and the changes (4-byte block, "+" or "-"), also logged under that
//     number for the theme counts.
//
// Moving a record to the state it is in (removed: by the same call)
// answers "ok" and counts nothing (a re-sent call).
var stateScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
local s = v and string.sub(v, 1, 1)
if ARGV[1] == 'X' then
  if s == 'P' then
    v = 'X' .. string.sub(v, 2)
    redis.call('SET', KEYS[1], v)
  end
  return v or ''
end
local delta = 1
if ARGV[1] == 'C' then
  if s == 'C' then return 'ok' end
  if s ~= 'P' then return 'gone' end
  redis.call('SET', KEYS[1], 'C' .. string.sub(v, 2))
else
  if s == 'D' and string.sub(v, 2, 17) == ARGV[2] then return 'ok' end
  if s ~= 'C' then return 'gone' end
  redis.call('SET', KEYS[1], 'D' .. ARGV[2] .. string.sub(v, 2))
  delta = -1
end
local TP, MAXB = tonumber(ARGV[3]), tonumber(ARGV[4])
if TP < 0 then return 'ok' end
local changed = {}
for p = 1, #ARGV[5], 4 do
  local b = string.sub(ARGV[5], p, p + 3)
  if delta > 0 then
    if redis.call('HINCRBY', KEYS[2], b, 1) == TP then
      redis.call('SADD', KEYS[3], b); changed[#changed + 1] = b .. '+'
    end
  elseif redis.call('HEXISTS', KEYS[2], b) == 1 then
    local c = redis.call('HINCRBY', KEYS[2], b, -1)
    if c == TP - 1 then redis.call('SREM', KEYS[3], b); changed[#changed + 1] = b .. '-' end
    if c <= 0 then redis.call('HDEL', KEYS[2], b) end
  end
end
if delta > 0 and TP > 1 and redis.call('HLEN', KEYS[2]) > MAXB then
  local all = redis.call('HGETALL', KEYS[2])
  for i = 1, #all, 2 do
    if all[i + 1] == '1' then redis.call('HDEL', KEYS[2], all[i]) end
  end
end
if #changed == 0 then return 'ok' end
local seq, cs = struct.pack('>I8', redis.call('INCR', KEYS[5])), table.concat(changed)
redis.call('HSET', KEYS[4], seq, cs)
return 'ok' .. seq .. cs
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

// spread names the keys of a spread repository (base is Prefix + ":ms2").
type spread struct{ base string }

func (s spread) bucket(kind string, v uint64) string {
	return fmt.Sprintf("%s:{%s:%04x}", s.base, kind, v&0xffff)
}
func (s spread) keyBucket(k uint32) string   { return s.bucket("k", uint64(k)) }
func (s spread) textBucket(x uint64) string  { return s.bucket("x", x) }
func (s spread) verdBucket(x uint64) string  { return s.bucket("v", x) }
func (s spread) idBucket(id string) string   { return s.bucket("i", xxhash.Sum64String(id)) }
func (s spread) themeBucket(b uint32) string { return s.bucket("t", uint64(b)) }
func (s spread) cfg() string                 { return s.base + ":{cfg}" }
func lease(bucket, field string) string      { return bucket + ":L:" + field }

// handleOf returns a new handle for a page of host: the host's bucket in its
// top 16 bits (its record is on the host's slot), 47 random bits, and its
// lowest bit set (never 0, no handle).
func handleOf(host string) uint64 {
	var b [8]byte
	rand.Read(b[:])
	return xxhash.Sum64String(host)<<48 | binary.BigEndian.Uint64(b[:])>>16 | 1
}

// record returns the key of the record of handle h, on its host's slot.
func (s spread) record(h uint64) string { return fmt.Sprintf("%s:r:%016x", s.bucket("h", h>>48), h) }

// hostKeys are the keys of a host's model (on the slot of its bucket): its
// block counts, its template set, the log of its template changes not yet
// applied to the theme counts (change number -> changes), and the number
// of its last change.
func (s spread) hostKeys(host string) []string {
	t := s.bucket("h", xxhash.Sum64String(host))
	return []string{t + ":n:" + host, t + ":T:" + host, t + ":t:" + host, t + ":s:" + host}
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

// stateOf returns the state of a stored record value ("P" pending, "C"
// committed, "X" aborted, "D" removed: then the removing call's 16-byte ID
// follows) and its entry; any other value, or an entry cut short, is an
// error wrapping neardup.ErrCorrupt.
func stateOf(v string) (byte, string, error) {
	e := ""
	switch {
	case len(v) > 1 && strings.IndexByte("PCX", v[0]) >= 0:
		e = v[1:]
	case len(v) > 17 && v[0] == 'D':
		e = v[17:]
	default:
		return 0, "", fmt.Errorf("%w: record of %d bytes in no state", neardup.ErrCorrupt, len(v))
	}
	if _, ok := splitEntry(e); !ok {
		return 0, "", fmt.Errorf("%w: record of %d bytes cut short", neardup.ErrCorrupt, len(v))
	}
	return v[0], e, nil
}

// readOwn reads, in one pipeline, the page's template counts, the pages
// kept with its text, its remembered verdict and the handle kept under its
// ID (under the call's leases when leased: records), and checks the
// repository's options. When its host's log of
// template changes is not empty (a client died before applying them), it
// applies them to the theme counts and reads again.
func (det *Detector) readOwn(ctx context.Context, r *judge.Record, id string, leased bool) (*ownState, error) {
	o, log, err := det.readOwnOnce(ctx, r, id, leased)
	if err != nil || len(log) == 0 {
		return o, err
	}
	for seq, cs := range log {
		if err := det.applyTheme(ctx, r.Host(), seq+cs); err != nil {
			return nil, err
		}
	}
	o, _, err = det.readOwnOnce(ctx, r, id, leased)
	return o, err
}

// readOwnOnce is readOwn's read; it returns the host's log of template
// changes as well.
func (det *Detector) readOwnOnce(ctx context.Context, r *judge.Record, id string, leased bool) (*ownState, map[string]string, error) {
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
		log             *redis.MapStringStringCmd
		tcs             = make([]*redis.SliceCmd, len(blocks))
		xs, vs, handle_ *redis.StringCmd
	)
	hostKeys := s.hostKeys(r.Host())
	_, err := det.fc.ReadPipelined(ctx, func(p redis.Pipeliner) error {
		cfg = p.Get(ctx, s.cfg())
		if len(fields) > 0 {
			hc = p.HMGet(ctx, hostKeys[0], fields...)
		}
		log = p.HGetAll(ctx, hostKeys[2])
		for i, b := range blocks {
			tcs[i] = p.HMGet(ctx, s.themeBucket(b), fields[i])
		}
		xs = p.HGet(ctx, s.textBucket(x), xf)
		vs = p.HGet(ctx, s.verdBucket(x), xf)
		handle_ = p.HGet(ctx, s.idBucket(id), id)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, err
	}
	if c, err := cfg.Result(); err == nil && c != det.cfg {
		return nil, nil, fmt.Errorf("NDCFG the repository was made with options %s, not %s", c, det.cfg)
	}
	o := &ownState{}
	if hc != nil {
		o.hc = ints(hc.Val())
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
	entries, err := det.records(ctx, handles, leased)
	if err != nil {
		return nil, nil, err
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
	return o, log.Val(), nil
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

// records returns the committed entries of handles ("" for a handle whose
// record is not committed), in one pipeline. Under the call's leases
// (leased) it aborts the pending records it finds: one filed under a
// key, text or ID the call leases is one whose call lost that lease (every
// filing needs it), and aborted it can no longer commit beside the page
// this call may keep (a record committed meanwhile is read as committed);
// and it purges the records it finds aborted or removed.
func (det *Detector) records(ctx context.Context, handles []uint64, leased bool) ([]string, error) {
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
	out := make([]string, len(handles))
	err = fleet.Parallel(len(handles), func(i int) error {
		v := cmds[i].Val()
		st, e, err := stateOf(v)
		if leased && err == nil && st == 'P' { // acknowledged with ReplicaAck
			if v, err = det.fc.Run(ctx, stateScript, []string{det.spread.record(handles[i])}, "X").Text(); err != nil {
				return err
			}
			st, e, err = stateOf(v)
		}
		switch {
		case v == "": // no record
		case err != nil:
			return err
		case st == 'C':
			out[i] = e
		case leased && st != 'P':
			return det.purge(ctx, handles[i], e)
		}
		return nil
	})
	return out, err
}

// purge unfiles handle h from the postings of the keys, text hash and ID
// of its entry e and deletes its record: what is left of a page aborted or
// removed. Each step is idempotent, so two calls may purge one record at
// once.
func (det *Detector) purge(ctx context.Context, h uint64, e string) error {
	f, _ := splitEntry(e) // whole: stateOf or entry made it
	s, hb := det.spread, u64(h)
	x := e[len(e)-len(f.rec)-8 : len(e)-len(f.rec)]
	files := [][2]string{{s.textBucket(binary.BigEndian.Uint64([]byte(x))), x}, {s.idBucket(f.id), f.id}}
	for p := 0; p+4 <= len(f.keys); p += 4 {
		files = append(files, [2]string{s.keyBucket(binary.BigEndian.Uint32([]byte(f.keys[p:]))), f.keys[p : p+4]})
	}
	err := fleet.Parallel(len(files), func(i int) error {
		return unfileScript.Run(ctx, det.client, files[i][:1], files[i][1], hb).Err()
	})
	if err != nil {
		return err
	}
	return det.client.Del(ctx, s.record(h)).Err()
}

// applyTheme applies host's template change t (its 8-byte number, then the
// changes) to the theme counts, then deletes it from the host's log.
func (det *Detector) applyTheme(ctx context.Context, host, t string) error {
	byBucket := map[string]string{}
	for p := 8; p+5 <= len(t); p += 5 {
		tb := det.spread.themeBucket(binary.BigEndian.Uint32([]byte(t[p:])))
		byBucket[tb] += t[p : p+5]
	}
	for tb, cs := range byBucket {
		if err := themeScript.Run(ctx, det.client, []string{tb}, host, t[:8], cs).Err(); err != nil {
			return err
		}
	}
	return det.client.HDel(ctx, det.spread.hostKeys(host)[2], t[:8]).Err()
}

// spreadCandidates returns the committed entries of the candidates of a
// page looked up under keys (Judge.QueryKeys), but skip's (records: under
// the call's leases when leased): the pages filed
// under two of keys, or under one filed under at most judge.RareKey
// pages (as the one-slot scripts' gather; judgeEntries leaves out those
// of the latter that are not candidates: read.alone, Judge.SharedKeys).
func (det *Detector) spreadCandidates(ctx context.Context, keys []uint32, skip uint64, leased bool) ([]string, []int64, error) {
	cmds := make([]*redis.StringCmd, len(keys))
	_, err := det.fc.ReadPipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.HGet(ctx, det.spread.keyBucket(k), u32s([]uint32{k}))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, err
	}
	shared := map[uint64]int{}
	var order, handles []uint64
	for _, c := range cmds {
		ps, err := c.Result()
		if err != nil || ps == "S" {
			continue
		}
		w := 1
		if len(ps)/8 <= judge.RareKey {
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
	entries, err := det.records(ctx, handles, leased)
	var es []string
	var hs []int64
	for i, e := range entries {
		if e != "" {
			es, hs = append(es, e), append(hs, int64(handles[i]))
		}
	}
	return es, hs, err
}

// spreadTemplates is templates for a spread repository.
func (det *Detector) spreadTemplates(ctx context.Context, blocks map[string][]uint32) (map[string]judge.Template, error) {
	hosts := map[string]*redis.StringSliceCmd{}
	theme := map[uint32]*redis.SliceCmd{}
	_, err := det.fc.ReadPipelined(ctx, func(p redis.Pipeliner) error {
		for h, bs := range blocks {
			hosts[h] = p.SMembers(ctx, det.spread.hostKeys(h)[1])
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
		if n := ints(c.Val()); len(n) == 1 && n[0].(int64) >= judge.ThemeHosts {
			themed[b] = true
		}
	}
	out := make(map[string]judge.Template, len(hosts))
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

// spreadLayout is the layout of a repository over every slot.
type spreadLayout struct{ *Detector }

// matchOrAdd runs the protocol at the top of this file, in attempts
// (fleet.Core.Spread).
func (det spreadLayout) matchOrAdd(ctx context.Context, op string, d *neardup.Document, r *judge.Record, replacing, force bool) (matches []neardup.Match, added bool, err error) {
	s := det.spread
	err = det.fc.Spread(ctx, func(a *fleet.Attempt) error {
		own, err := det.readOwn(ctx, r, d.ID, false)
		if err != nil {
			return fleet.Wrap(op, d.ID, err)
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
		slices.Sort(names)
		names = slices.Compact(names)
		err = a.Lease(ctx, names, func(i int) (bool, error) {
			return leaseScript.Run(ctx, det.client, names[i:i+1], a.Token, det.opts.LeaseTTL.Milliseconds()).Bool()
		})
		if err != nil {
			return fleet.Wrap(op, d.ID, err) // ErrAborted: a lease lost while it took the others
		}
		matches, added, err = det.spreadLeased(ctx, op, d, r, replacing, force, a.Token)
		if errors.Is(err, errDied) {
			a.Die()
		}
		return err
	})
	switch {
	case err != nil && err == ctx.Err(): // the context ended between attempts
		return nil, false, fleet.Wrap(op, d.ID, err)
	case err != nil:
		return nil, false, err
	}
	return matches, added, nil
}

// spreadRead reads d's own state and, unless force, its candidates, and
// judges it: step 3 of the protocol when leased (records), and Match.
func (det *Detector) spreadRead(ctx context.Context, d *neardup.Document, r *judge.Record, replacing, force, leased bool) (*read, *ownState, error) {
	own, err := det.readOwn(ctx, r, d.ID, leased)
	if err != nil {
		return nil, nil, err
	}
	rd, found := det.ownRead(own, d, r, replacing)
	if force { // Add: whatever is kept
		rd.matches = nil
		return rd, own, nil
	}
	skip := uint64(0)
	if replacing {
		skip = own.own
	}
	entries, hs, err := det.spreadCandidates(ctx, rd.query, skip, leased)
	if err == nil {
		err = det.judgeEntries(ctx, rd, entries, hs, found, replacing, nil)
	}
	return rd, own, err
}

// spreadLeased is steps 3 and 4 of the protocol, under the leases of the
// attempt whose token is given (fileScript checks it). It returns
// fleet.ErrAborted when the page was not kept because it was aborted (or
// a lease lost) before its commit.
func (det *Detector) spreadLeased(ctx context.Context, op string, d *neardup.Document, r *judge.Record, replacing, force bool, token string) ([]neardup.Match, bool, error) {
	s := det.spread
	rd, own, err := det.spreadRead(ctx, d, r, replacing, force, true)
	if err != nil {
		return nil, false, fleet.Wrap(op, d.ID, err)
	}
	if !replacing && !force && neardup.OwnPage(d.ID, rd.matches) {
		return nil, true, nil // its own page, committed meanwhile
	}
	if own.own != 0 && !replacing && len(rd.matches) == 0 {
		if ok, err := det.Contains(ctx, d.ID); err != nil || ok {
			if err == nil {
				err = fmt.Errorf("redisindex: %s %s: %w", op, detector.QuoteID(d.ID), neardup.ErrDuplicateID)
			}
			return nil, false, err
		}
	}
	if replacing && own.own != 0 {
		if err := det.spreadRemove(ctx, d.ID, own.own); err != nil && !errors.Is(err, neardup.ErrUnknownID) {
			return nil, false, err
		}
	}
	if m := rd.matches; len(m) > 0 {
		if h := rd.handles[m[0].ID]; !replacing && m[0].Score > 0 && h != 0 { // its first verdict
			v := u64(uint64(h)) + u64(math.Float64bits(m[0].Score))
			_ = det.client.HSetNX(ctx, s.verdBucket(r.TextHash()), u64(r.TextHash()), v).Err() // safe to ignore: see remember
		}
		return m, false, nil
	}
	// Step 4: a pending record (SET NX: a handle another page has is drawn
	// again), filed under its keys, text and ID, then committed unless
	// aborted.
	e, err := entry(d.ID, r, rd.keys)
	if err != nil {
		return nil, false, err
	}
	h := handleOf(r.Host())
	rk, pending := s.record(h), "P"+e
	var made *redis.BoolCmd
	cmds, err := det.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.SetNX(ctx, s.cfg(), det.cfg, 0)
		made = p.SetNX(ctx, rk, pending, 0)
		return nil
	})
	if err := fleet.PipeErr(cmds, err); err != nil {
		return nil, false, fleet.Wrap(op, d.ID, err)
	}
	if !made.Val() { // another page's handle, or the SET sent twice
		if v, err := det.client.Get(ctx, rk).Result(); err != nil {
			return nil, false, fleet.Wrap(op, d.ID, err)
		} else if v != pending {
			return nil, false, fleet.ErrAborted
		}
	}
	type filing struct{ bucket, field, mode string }
	files := []filing{{s.textBucket(r.TextHash()), u64(r.TextHash()), "append"}, {s.idBucket(d.ID), d.ID, "set"}}
	for _, k := range rd.keys {
		files = append(files, filing{s.keyBucket(k), u32s([]uint32{k}), "append"})
	}
	err = fleet.ParallelHeld(len(files), func(i int) (bool, error) { // every filing at once: one round trip
		f, mp := files[i], 0
		if f.mode == "append" && i > 0 {
			mp = max(det.opts.Minhash.MaxPostings, 0)
		}
		res, err := det.fc.Run(ctx, fileScript, []string{f.bucket, lease(f.bucket, f.field)}, token, f.field, u64(h), mp, f.mode).Result() // acknowledged with ReplicaAck
		return res != "LEASE", err
	})
	lost := errors.Is(err, fleet.ErrAborted)
	if err != nil && !lost {
		return nil, false, fleet.Wrap(op, d.ID, err)
	}
	if det.beforeCommit != nil {
		if err := det.beforeCommit(); err != nil {
			return nil, false, err
		}
	}
	if !lost {
		if added, err := det.move(ctx, h, r, "C", ""); err != nil || added {
			return nil, added, fleet.Wrap(op, d.ID, err)
		}
	}
	// Aborted (the leases passed to another call, which found the page
	// pending) or a lease lost: what was filed points to a record never
	// committed; purge it and try again. A step that fails ends the call,
	// leaving what a client that died leaves, which a reader under leases
	// purges.
	if err := det.purge(ctx, h, e); err != nil {
		return nil, false, fleet.Wrap(op, d.ID, err)
	}
	return nil, false, fleet.ErrAborted
}

// move moves the record of handle h, r's page, with stateScript to "C"
// (committed) or "D" (removed by call), counting or uncounting its blocks
// (acknowledged with ReplicaAck), then applies its host's template
// changes to the theme counts. It reports false when the record could not
// move.
func (det *Detector) move(ctx context.Context, h uint64, r *judge.Record, to, call string) (bool, error) {
	keys := append([]string{det.spread.record(h)}, det.spread.hostKeys(r.Host())...)
	st, err := det.fc.Run(ctx, stateScript, keys, to, call, det.opts.Minhash.TemplatePages, judge.MaxHostBlocks, u32s(r.Blocks())).Text()
	if err != nil || st == "gone" {
		return false, err
	}
	if det.afterCommit != nil {
		if err := det.afterCommit(); err != nil {
			return true, err
		}
	}
	if len(st) > 2 {
		return true, det.applyTheme(ctx, r.Host(), st[2:])
	}
	return true, nil
}

// ownRead is the read of a page judged under its template: its keys, and
// the matches of the pages kept with its text (but its own when replacing)
// or, when there are none, of its remembered verdict.
func (det *Detector) ownRead(own *ownState, d *neardup.Document, r *judge.Record, replacing bool) (*read, map[string]bool) {
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

// match is Match for a spread repository: the reads of the
// protocol, without leases.
func (det spreadLayout) match(ctx context.Context, d *neardup.Document, r *judge.Record) ([]neardup.Match, error) {
	rd, _, err := det.spreadRead(ctx, d, r, false, false, false)
	if err != nil {
		return nil, fleet.Wrap("Match", d.ID, err)
	}
	return rd.matches, nil
}

// spreadRemove forgets the page kept under id with handle h: its record
// marked removed by the call and its blocks uncounted (move), then the
// page purged. A record found aborted or removed (a call that died before
// its purge) is purged, and the ID is unknown.
func (det *Detector) spreadRemove(ctx context.Context, id string, h uint64) error {
	v, err := det.client.Get(ctx, det.spread.record(h)).Result()
	if errors.Is(err, redis.Nil) { // no record: a page purged
		err = neardup.ErrUnknownID
	}
	if err != nil {
		return fleet.Wrap("Remove", id, err)
	}
	st, e, err := stateOf(v)
	if err == nil && st != 'C' {
		if st != 'P' { // what a call that died left
			err = det.purge(ctx, h, e)
		}
		if err == nil {
			err = neardup.ErrUnknownID
		}
	}
	if err != nil {
		return fleet.Wrap("Remove", id, err)
	}
	_, r, err := det.parseEntry(e)
	if err != nil {
		return err
	}
	call := fleet.NewCall()
	switch ok, err := det.move(ctx, h, r, "D", call); {
	case err != nil:
		return fleet.Wrap("Remove", id, err)
	case !ok: // removed by another call
		return fleet.Wrap("Remove", id, neardup.ErrUnknownID)
	}
	return fleet.Wrap("Remove", id, det.purge(ctx, h, e))
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
		return fleet.Wrap("Remove", id, err)
	case !ok:
		return fleet.Wrap("Remove", id, neardup.ErrUnknownID)
	}
	return det.spreadRemove(ctx, id, h)
}

func (det spreadLayout) contains(ctx context.Context, id string) (bool, error) {
	h, ok, err := det.handle(ctx, id)
	if err != nil || !ok {
		return false, fleet.Wrap("Contains", id, err)
	}
	es, err := det.records(ctx, []uint64{h}, false)
	if err != nil {
		return false, fleet.Wrap("Contains", id, err)
	}
	return es[0] != "", nil
}

// len counts a spread repository's committed pages over every shard: a
// scan of its records, for tests and audits, not for every call.
func (det spreadLayout) len(ctx context.Context) (int, error) {
	var total atomic.Int64
	scan := func(ctx context.Context, cl redis.UniversalClient) error {
		for cursor := uint64(0); ; {
			ks, next, err := cl.Scan(ctx, cursor, det.spread.base+":{h:*}:r:*", 1000).Result()
			if err != nil {
				return err
			}
			cmds, err := cl.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, k := range ks {
					p.GetRange(ctx, k, 0, 0) // its state
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, c := range cmds {
				if c.(*redis.StringCmd).Val() == "C" {
					total.Add(1)
				}
			}
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	}
	var err error
	if c, ok := det.client.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return scan(ctx, m) })
	} else {
		err = scan(ctx, det.client)
	}
	return int(total.Load()), fleet.Wrap("Len", "", err)
}
