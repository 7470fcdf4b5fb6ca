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
//	               write; a script called with another k fails (NDK)
//	P:2:c:<call>   the result of a write call (Add, MatchOrAdd that added,
//	               Remove, Replace) under its 16-byte random call ID, in
//	               MessagePack, expiring after Options.CallTTL: a call
//	               re-sent by the client's retries finds it and returns it
//	               instead of running again
//
// KEYS of oneSlotScript: P:2:names, P:2:ids, P:2:next, P:2:k and
// P:2:c:<call> (Match passes a call key it never reads), then, but for
// Remove, the nb block keys of the fingerprint (table t's key first for t =
// 0..nb-1). ARGV: nb, the fingerprint's high and low 32 bits, k, the call
// record's time to live in milliseconds, P:2 (to name the block keys of a
// page kept under an ID: see forget), the call's mode and, for the
// writers, the ID.

// entryLib is the Lua both layouts' scripts share: reading entries.
const entryLib = `
local band, rshift = bit.band, bit.rshift
-- pop32 counts the set bits of a 32-bit value (LuaBitOp's results are
-- signed; the shifts are logical).
local function pop32(x)
  x = x - band(rshift(x, 1), 0x55555555)
  x = band(x, 0x33333333) + band(rshift(x, 2), 0x33333333)
  x = band(x + rshift(x, 4), 0x0F0F0F0F)
  return band(x, 255) + band(rshift(x, 8), 255) + band(rshift(x, 16), 255) + rshift(x, 24)
end
-- corrupt raises an error the client reports as neardup.ErrCorrupt: what
-- the repository holds is not what the scripts write (a key changed or
-- deleted by hand, an evicted key). The scripts raise it before their
-- first write.
local function corrupt(msg) error('NDCORRUPT ' .. msg) end
-- scan appends {entry, distance} to out for each entry of blob (a block
-- key's value, or false) within k bits of (qhi, qlo) whose handle seen
-- does not hold yet, and returns out.
local function scan(blob, qhi, qlo, k, seen, out)
  if not blob then return out end
  if #blob % 16 ~= 0 then corrupt('block key of ' .. #blob .. ' bytes') end
  for p = 1, #blob, 16 do
    local hi, lo, h = struct.unpack('>I4I4I8', blob, p)
    if not seen[h] then
      local d = pop32(bit.bxor(hi, qhi)) + pop32(bit.bxor(lo, qlo))
      if d <= k then
        seen[h] = true
        out[#out + 1] = string.sub(blob, p, p + 15)
        out[#out + 1] = d
      end
    end
  end
  return out
end
`

// oneSlotLib is oneSlotScript's own functions (the tests call them).
const oneSlotLib = `
local nb, mode, id = tonumber(ARGV[1]), ARGV[7], ARGV[8]
local qhi, qlo, k = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local NAMES, IDS, NEXT, KK, CALL = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local B = 5 -- KEYS[B+1 .. B+nb] are the block keys of (qhi, qlo)
local function mask(w) if w >= 32 then return -1 end return bit.lshift(1, w) - 1 end
-- blockKeys returns the block keys of the fingerprint (hi, lo) (what the
-- client's blockKeys returns: the blocks of fpblock.Split, values in hex).
local function blockKeys(hi, lo)
  local ks, shift = {}, 0
  for i = 0, nb - 1 do
    local w = math.floor(64 / nb)
    if i < 64 % nb then w = w + 1 end
    local v
    if w == 64 then
      if hi ~= 0 then v = string.format('%x', hi) .. string.format('%08x', lo)
      else v = string.format('%x', lo) end
    else
      local x
      if shift >= 32 then x = band(rshift(hi, shift - 32), mask(w))
      elseif shift + w <= 32 then x = band(rshift(lo, shift), mask(w))
      else x = bit.bor(rshift(lo, shift), bit.lshift(band(hi, mask(shift + w - 32)), 32 - shift)) end
      v = string.format('%x', x % 4294967296)
    end
    ks[#ks + 1] = ARGV[6] .. ':b:' .. i .. ':' .. v
    shift = shift + w
  end
  return ks
end
-- record keeps res under this call's ID for ARGV[5] ms, and returns it.
local function record(res)
  redis.call('SET', CALL, cmsgpack.pack(res), 'PX', ARGV[5])
  return res
end
-- named returns the IDs and distances of found {entry, distance, ...}
-- but the entry skip; a handle with no ID is corrupt.
local function named(found, skip)
  local out = {}
  for i = 1, #found, 2 do
    if found[i] ~= skip then
      local _, _, h = struct.unpack('>I4I4I8', found[i])
      local name = redis.call('HGET', NAMES, string.format('%d', h))
      if not name then corrupt('handle ' .. string.format('%d', h) .. ' has no ID') end
      out[#out + 1] = name
      out[#out + 1] = found[i + 1]
    end
  end
  return out
end
-- add keeps the fingerprint under id: a new handle, an entry in each block
-- key, and the two hashes.
local function add()
  local h = redis.call('INCR', NEXT)
  local entry = struct.pack('>I4I4I8', qhi, qlo, h)
  for t = B + 1, B + nb do redis.call('APPEND', KEYS[t], entry) end
  redis.call('HSET', NAMES, string.format('%d', h), id)
  redis.call('HSET', IDS, id, entry)
end
-- forget removes the entry kept under id. Its block keys are derived from
-- the entry, not passed in KEYS: they are in the slot of the KEYS (one
-- server, or one hash slot with SingleSlot). The shortened strings are
-- written (SET, which a server out of memory refuses) before any key is
-- deleted (which it allows), so that a refusal leaves the page whole.
local function forget()
  local entry = redis.call('HGET', IDS, id)
  if not entry then return false end
  local hi, lo, h = struct.unpack('>I4I4I8', entry)
  local sets, dels = {}, {}
  for _, key in ipairs(blockKeys(hi, lo)) do
    local blob = redis.call('GET', key)
    if blob then
      for p = 1, #blob, 16 do
        if string.sub(blob, p, p + 15) == entry then
          blob = string.sub(blob, 1, p - 1) .. string.sub(blob, p + 16)
          break
        end
      end
      if #blob == 0 then dels[#dels + 1] = key else sets[#sets + 1] = {key, blob} end
    end
  end
  for _, kv in ipairs(sets) do redis.call('SET', kv[1], kv[2]) end
  for _, key in ipairs(dels) do redis.call('DEL', key) end
  redis.call('HDEL', NAMES, string.format('%d', h))
  redis.call('HDEL', IDS, id)
  return true
end
`

// oneSlotScript runs a call (ARGV[7]) of a one-slot repository:
//
//   - match returns the IDs and distances of the kept fingerprints within
//     k bits, {id, distance, id, distance, ...}, and writes nothing;
//   - matchoradd does the same, and when nothing is found it keeps the
//     fingerprint under the ID ARGV[8] and returns {}; an ID already kept
//     with this fingerprint (its own page) returns {} and changes nothing;
//     an ID kept with another that matches nothing returns {"", -1};
//   - add keeps the fingerprint under ARGV[8] whatever is kept and returns
//     {}; an ID already kept returns {"", -1};
//   - remove forgets ARGV[8] (KEYS are the five fixed keys, no block keys;
//     the fingerprint's ARGV are unused) and returns 1, or 0 when the ID is
//     not kept;
//   - replace forgets what is kept under ARGV[8], then keeps the
//     fingerprint under ARGV[8] unless a kept one is within k bits. It
//     returns {} when it kept the page, and the matches when it did not
//     (the ID kept no more). An ID kept with this fingerprint (its own
//     page) returns {} and changes nothing. The matches are found and named
//     before the old page is forgotten, so that corrupt data is reported
//     before any write.
//
// The result of a call that writes is recorded under its call key.
var oneSlotScript = redis.NewScript(entryLib + oneSlotLib + `
if mode ~= 'match' then
  local r = redis.call('GET', CALL)
  if r then return cmsgpack.unpack(r) end
end
local kk = redis.call('GET', KK)
if kk and kk ~= ARGV[4] then
  return redis.error_reply('NDK the repository was made with T_B = ' .. kk .. ', not ' .. ARGV[4])
end
if not kk and mode ~= 'match' then redis.call('SET', KK, ARGV[4]) end
local found, seen = {}, {}
if mode ~= 'add' and mode ~= 'remove' then
  for t = B + 1, B + nb do scan(redis.call('GET', KEYS[t]), qhi, qlo, k, seen, found) end
end
if mode == 'match' then return named(found) end
if mode == 'add' then
  if redis.call('HEXISTS', IDS, id) == 1 then return {'', -1} end
  add()
  return record({})
end
if mode == 'remove' then
  if not forget() then return 0 end
  return record(1)
end
local own = redis.call('HGET', IDS, id)
if own and #own ~= 16 then corrupt('entry of ' .. #own .. ' bytes') end
if own and string.sub(own, 1, 8) == struct.pack('>I4I4', qhi, qlo) then return {} end
if mode == 'matchoradd' then
  if #found > 0 then return named(found) end
  if own then return {'', -1} end
  add()
  return record({})
end
found = named(found, own) -- replace
local forgot = forget()
if #found > 0 then
  if forgot then return record(found) end
  return found
end
add()
return record({})
`)
