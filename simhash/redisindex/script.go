package redisindex

import "github.com/redis/go-redis/v9"

// The Lua scripts run on the Redis primary, each in one step (Redis runs a
// script to its end before any other command), which is what makes
// MatchOrAdd atomic across processes.
//
// Layout 2 (P is Options.Prefix, in braces with SingleSlot). Every key
// starts with "P:2:"; the keys of layout 1 (P:b:..., P:names, P:ids, P:next,
// written before call records and 8-byte handles) are neither read nor
// migrated.
//
//	P:2:b:<t>:<v>  the entries whose block t has value v (v in hex): a
//	               string of 16-byte entries, the fingerprint (8 bytes, big
//	               endian) and its handle (8 bytes, big endian)
//	P:2:names      hash: handle (decimal) -> ID
//	P:2:ids        hash: ID -> its 16-byte entry
//	P:2:next       the last handle given (INCR; handles are never reused)
//	P:2:k          the T_B the repository was made with, set by its first
//	               write; a script called with another k fails (NEARDUP_K)
//	P:2:c:<call>   the result of a write call (Add, MatchOrAdd that added,
//	               Remove, Replace) under its 16-byte random call ID, in
//	               MessagePack, expiring after Options.CallTTL: a call
//	               re-sent by the client's retries finds it and returns it
//	               instead of running again
//
// KEYS of every script: the nb block keys of the fingerprint (table t's key
// first for t = 0..nb-1), then P:2:names, P:2:ids, P:2:next, P:2:k and
// P:2:c:<call> (Match passes a call key it never reads); replaceScript adds
// the nb block keys of the fingerprint kept under the ID. ARGV: nb, the
// fingerprint's high and low 32 bits, k, the call record's time to live in
// milliseconds, and for the writers the ID (and for Remove and Replace the
// high and low 32 bits of the fingerprint the client read under the ID, -1
// for none).
const scriptLib = `
local band, rshift = bit.band, bit.rshift
-- pop32 counts the set bits of a 32-bit value (LuaBitOp's results are
-- signed; the shifts are logical).
local function pop32(x)
  x = x - band(rshift(x, 1), 0x55555555)
  x = band(x, 0x33333333) + band(rshift(x, 2), 0x33333333)
  x = band(x + rshift(x, 4), 0x0F0F0F0F)
  return band(x, 255) + band(rshift(x, 8), 255) + band(rshift(x, 16), 255) + rshift(x, 24)
end
local nb = tonumber(ARGV[1])
local qhi, qlo, k = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local NAMES, IDS, NEXT, KK, CALL = KEYS[nb + 1], KEYS[nb + 2], KEYS[nb + 3], KEYS[nb + 4], KEYS[nb + 5]
-- badk returns an error reply when the repository was made with another k;
-- a writer records k in a new repository.
local function badk(write)
  local kk = redis.call('GET', KK)
  if kk and kk ~= ARGV[4] then
    return redis.error_reply('NEARDUP_K the repository was made with T_B = ' .. kk .. ', not ' .. ARGV[4])
  end
  if not kk and write then redis.call('SET', KK, ARGV[4]) end
  return nil
end
-- recorded returns the result recorded under this call's ID, if any.
local function recorded()
  local r = redis.call('GET', CALL)
  if r then return cmsgpack.unpack(r) end
  return nil
end
-- record keeps res under this call's ID for ARGV[5] ms, and returns it.
local function record(res)
  redis.call('SET', CALL, cmsgpack.pack(res), 'PX', ARGV[5])
  return res
end
-- find returns {handle, distance, ...} of the entries within k bits, each once.
local function find()
  local out, seen = {}, {}
  for t = 1, nb do
    local blob = redis.call('GET', KEYS[t])
    if blob then
      for p = 1, #blob, 16 do
        local hi, lo, h = struct.unpack('>I4I4I8', blob, p)
        if not seen[h] then
          local d = pop32(bit.bxor(hi, qhi)) + pop32(bit.bxor(lo, qlo))
          if d <= k then
            seen[h] = true
            out[#out + 1] = h
            out[#out + 1] = d
          end
        end
      end
    end
  end
  return out
end
-- named replaces each handle of found by its ID.
local function named(found)
  for i = 1, #found, 2 do
    found[i] = redis.call('HGET', NAMES, string.format('%d', found[i])) or ''
  end
  return found
end
-- add keeps the fingerprint under id: a new handle, an entry in each block
-- key, and the two hashes.
local function add(id)
  local h = redis.call('INCR', NEXT)
  local entry = struct.pack('>I4I4I8', qhi, qlo, h)
  for t = 1, nb do redis.call('APPEND', KEYS[t], entry) end
  redis.call('HSET', NAMES, string.format('%d', h), id)
  redis.call('HSET', IDS, id, entry)
end
-- forget removes the entry kept under id, whose block keys are
-- KEYS[base+1 .. base+nb].
local function forget(id, base)
  local entry = redis.call('HGET', IDS, id)
  if not entry then return false end
  local _, _, h = struct.unpack('>I4I4I8', entry)
  for t = base + 1, base + nb do
    local blob = redis.call('GET', KEYS[t])
    if blob then
      for p = 1, #blob, 16 do
        if string.sub(blob, p, p + 15) == entry then
          blob = string.sub(blob, 1, p - 1) .. string.sub(blob, p + 16)
          break
        end
      end
      if #blob == 0 then redis.call('DEL', KEYS[t]) else redis.call('SET', KEYS[t], blob) end
    end
  end
  redis.call('HDEL', NAMES, string.format('%d', h))
  redis.call('HDEL', IDS, id)
  return true
end
-- keptAs returns 'none' when id is not kept, 'same' when it is kept with the
-- fingerprint ARGV[7], ARGV[8] (high and low 32 bits; -1 for none), and
-- 'other' when it is kept with another.
local function keptAs(id)
  local entry = redis.call('HGET', IDS, id)
  if not entry then return 'none' end
  local hi, lo = struct.unpack('>I4I4', entry)
  if hi == tonumber(ARGV[7]) and lo == tonumber(ARGV[8]) then return 'same' end
  return 'other'
end
`

// matchScript returns the IDs and distances of the kept fingerprints within
// k bits: {id, distance, id, distance, ...}.
var matchScript = redis.NewScript(scriptLib + `
local bad = badk(false)
if bad then return bad end
return named(find())
`)

// matchOrAddScript is matchScript, and when nothing is found it keeps the
// fingerprint under ARGV[6] and returns {} (recorded); an ID already kept
// returns {"", -1}.
var matchOrAddScript = redis.NewScript(scriptLib + `
local r = recorded()
if r then return r end
local bad = badk(true)
if bad then return bad end
local found = find()
if #found > 0 then return named(found) end
if redis.call('HEXISTS', IDS, ARGV[6]) == 1 then return {'', -1} end
add(ARGV[6])
return record({})
`)

// addScript keeps the fingerprint under ARGV[6] whatever is kept and
// returns 1 (recorded); an ID already kept returns 0.
var addScript = redis.NewScript(scriptLib + `
local r = recorded()
if r then return r end
local bad = badk(true)
if bad then return bad end
if redis.call('HEXISTS', IDS, ARGV[6]) == 1 then return 0 end
add(ARGV[6])
return record(1)
`)

// removeScript forgets ARGV[6], whose fingerprint's block keys are the
// block KEYS (the caller reads the fingerprint first, ARGV[7] and ARGV[8];
// the script checks it is still the one kept). It returns 1 (recorded), 0
// when the ID is not kept, and -1 when it is kept with another fingerprint.
var removeScript = redis.NewScript(scriptLib + `
local r = recorded()
if r then return r end
local bad = badk(true)
if bad then return bad end
local kept = keptAs(ARGV[6])
if kept == 'none' then return 0 end
if kept == 'other' then return -1 end
forget(ARGV[6], 0)
return record(1)
`)

// replaceScript forgets what is kept under ARGV[6] (the fingerprint the
// caller read, ARGV[7] and ARGV[8], -1 for none; its block keys follow the
// five fixed KEYS), then keeps the fingerprint under ARGV[6] unless a kept
// one is within k bits. It returns {} when it kept the page, the matches
// {id, distance, ...} when it did not (recorded when it forgot the old
// page), and {"", -2} when the ID is kept with a fingerprint other than the
// one the caller read.
var replaceScript = redis.NewScript(scriptLib + `
local r = recorded()
if r then return r end
local bad = badk(true)
if bad then return bad end
local kept = keptAs(ARGV[6])
if kept == 'other' then return {'', -2} end
if kept == 'same' then forget(ARGV[6], nb + 5) end
local found = find()
if #found > 0 then
  found = named(found)
  if kept == 'same' then return record(found) end
  return found
end
add(ARGV[6])
return record({})
`)
