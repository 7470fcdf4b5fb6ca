package redisindex

import "github.com/redis/go-redis/v9"

// The scripts of a spread repository (Options.Spread). Each touches the
// keys of one hash slot only, so that Redis Cluster runs it on one primary
// in one step; the protocol that strings them together is in spread.go.
//
// Layout (P:2 is Options.Prefix and ":2"; <b> is an ID's bucket, 0..16383,
// from a hash of the ID; the braces are hash tags):
//
//	{P:2:b:<t>:<v>}      the entries whose block t has value v (v in hex), as
//	                     in the other layouts: 16-byte entries, the
//	                     fingerprint and its handle, both big endian
//	{P:2:b:<t>:<v>}:l    the lease of that block key: the token of the call
//	                     attempt holding it, expiring after Options.LeaseTTL
//	{P:2:p:<b>}:ids      hash: ID -> its 16-byte entry (committed pages only)
//	{P:2:p:<b>}:names    hash: handle (decimal) -> ID (pending and committed)
//	{P:2:p:<b>}:pend     hash: handle -> token of the attempt that reserved
//	                     it, while the page is pending
//	{P:2:p:<b>}:next     the bucket's handle counter: handles are
//	                     counter·16384 + b, so the handle of an entry names
//	                     the bucket of its ID and is never reused
//	{P:2:p:<b>}:c:<tok>  the state of a call attempt (reserved handle, then
//	                     its result), deleted when the call ends, expiring
//	                     after the call's record TTL if it cannot be
//	{P:2}:k              the T_B of the repository
//
// A handle h is committed when names has h and pend does not; pending when
// both have it; gone (never committed, aborted or removed) when names does
// not.

// leaseScript takes (or renews) the lease of a block key for the attempt
// whose token is ARGV[1], for ARGV[2] ms, and returns the key's entries
// within ARGV[5] bits of the fingerprint (ARGV[3], ARGV[4]) as {entry,
// distance, ...}; nil when another attempt holds the lease. With ARGV[1]
// empty (Match) it only reads. KEYS: the block key, its lease key.
var leaseScript = redis.NewScript(entryLib + `
if ARGV[1] ~= '' then
  local cur = redis.call('GET', KEYS[2])
  if cur and cur ~= ARGV[1] then return false end
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
end
return scan(redis.call('GET', KEYS[1]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), {}, {})
`)

// resolveScript returns, for each pair of a handle and the entry that
// holds it in ARGV[2..], the ID of the committed page the entry is, or 0
// when it is none: its handle is pending, gone, or names a page kept with
// another entry (a handle given again after a failover lost the counter's
// last increments, while the entry of the lost page survived on another
// shard). With ARGV[1] = "1" (the caller holds the lease of a block key
// holding the entry, so the attempt that wrote it holds it no more) a
// pending handle is aborted: the attempt's commit will find it gone. KEYS:
// names, pend and ids of one bucket.
var resolveScript = redis.NewScript(`
local out = {}
for i = 2, #ARGV, 2 do
  local h = ARGV[i]
  local id = redis.call('HGET', KEYS[1], h)
  if id and redis.call('HEXISTS', KEYS[2], h) == 1 then
    if ARGV[1] == '1' then
      redis.call('HDEL', KEYS[2], h)
      redis.call('HDEL', KEYS[1], h)
    end
    id = false
  elseif id and redis.call('HGET', KEYS[3], id) ~= ARGV[i + 1] then
    id = false
  end
  out[#out + 1] = id or 0
end
return out
`)

// reserveScript gives the attempt ARGV[2] a new pending handle for the ID
// ARGV[1] in bucket ARGV[3] and returns "r<handle>"; sent again, it returns
// the same. Whether the ID is kept is the commit's to decide. The state
// lives ARGV[4] ms. KEYS: names, pend, next and the attempt's state key, of
// the ID's bucket.
var reserveScript = redis.NewScript(`
local r = redis.call('GET', KEYS[4])
if r then return r end
local h = string.format('%d', redis.call('INCR', KEYS[3]) * 16384 + tonumber(ARGV[3]))
redis.call('SET', KEYS[4], 'r' .. h, 'PX', ARGV[4])
redis.call('HSET', KEYS[1], h, ARGV[1])
redis.call('HSET', KEYS[2], h, ARGV[2])
return 'r' .. h
`)

// fileScript files the entry ARGV[2] in a block key if the attempt ARGV[1]
// holds its lease, and drops the entries ARGV[3..] (found to be no page's
// by the caller: dropped by entry, not by handle, since a handle can be
// given again); it returns 1, or 0 when the lease is not the attempt's
// (the fencing check). Sent again, it does not append twice. With ARGV[1]
// and ARGV[2] empty it only drops entries, with no lease (their pages are
// gone, so readers already ignore them), and deletes a key left empty.
// KEYS: the block key, its lease key.
var fileScript = redis.NewScript(`
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
local blob = redis.call('GET', KEYS[1]) or ''
local e = ARGV[2]
local dead = {}
for i = 3, #ARGV do dead[ARGV[i]] = true end
local keep, have = {}, e == ''
for p = 1, #blob, 16 do
  local x = string.sub(blob, p, p + 15)
  if x == e then have = true end
  if not dead[x] then keep[#keep + 1] = x end
end
if #keep * 16 < #blob then
  if not have then keep[#keep + 1] = e end
  if #keep == 0 then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], table.concat(keep)) end
elseif not have then
  redis.call('APPEND', KEYS[1], e)
end
return 1
`)

// commitScript commits the pending handle ARGV[2] of the attempt ARGV[4]
// as the page ARGV[1] with entry ARGV[3]: the commit point of a write. It
// returns "added" (followed by the entry of the page it replaced, when
// ARGV[6], the call's mode, is "replace"), "dup" when the ID is kept (not
// Replace; the handle is aborted), or "aborted" when the handle is no
// longer the attempt's pending one (a reader holding one of its block
// keys' leases aborted it). The result is recorded for ARGV[5] ms. KEYS:
// ids, names, pend and the attempt's state key, of the ID's bucket.
var commitScript = redis.NewScript(`
local r = redis.call('GET', KEYS[4])
if r and string.sub(r, 1, 1) ~= 'r' then return r end
if redis.call('HGET', KEYS[3], ARGV[2]) ~= ARGV[4] then return 'aborted' end
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old and ARGV[6] ~= 'replace' then
  redis.call('SET', KEYS[4], 'dup', 'PX', ARGV[5])
  redis.call('HDEL', KEYS[3], ARGV[2])
  redis.call('HDEL', KEYS[2], ARGV[2])
  return 'dup'
end
local res = 'added'
if old then res = res .. old end
redis.call('SET', KEYS[4], res, 'PX', ARGV[5])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HDEL', KEYS[3], ARGV[2])
if old then
  local _, _, oh = struct.unpack('>I4I4I8', old)
  redis.call('HDEL', KEYS[2], string.format('%d', oh))
end
return res
`)

// finishScript ends a call attempt in its ID's bucket: it aborts the
// attempt's handle ARGV[1] if it is still pending under the attempt's
// token ARGV[2] (a reservation not committed), and deletes the attempt's
// state key, which only the attempt's own re-sent scripts read. KEYS:
// names, pend and the attempt's state key.
var finishScript = redis.NewScript(`
if ARGV[1] ~= '0' and redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return redis.call('DEL', KEYS[3])
`)

// spreadRemoveScript forgets the ID ARGV[1] and returns its entry (nil when
// it is not kept), recorded for ARGV[2] ms under the call's key, so that a
// Remove sent again returns the same. KEYS: ids, names and the call's state
// key, of the ID's bucket.
var spreadRemoveScript = redis.NewScript(`
local r = redis.call('GET', KEYS[3])
if r then return r end
local e = redis.call('HGET', KEYS[1], ARGV[1])
if not e then return false end
redis.call('SET', KEYS[3], e, 'PX', ARGV[2])
local _, _, h = struct.unpack('>I4I4I8', e)
redis.call('HDEL', KEYS[2], string.format('%d', h))
redis.call('HDEL', KEYS[1], ARGV[1])
return e
`)
