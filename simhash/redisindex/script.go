package redisindex

import "github.com/redis/go-redis/v9"

// The Lua scripts run on the Redis primary, each in one step (Redis runs a
// script to its end before any other command), which is what makes
// MatchOrAdd atomic across processes.
//
// Layout (P is Options.Prefix):
//
//	P:b:<t>:<v>   the entries whose block t has value v: a string of 12-byte
//	              entries, the fingerprint (8 bytes, big endian) and its
//	              handle (4 bytes, big endian)
//	P:names       hash: handle -> ID
//	P:ids         hash: ID -> 12-byte entry (fingerprint and handle)
//	P:next        the last handle given
//
// KEYS of every script: the B block keys of the fingerprint (table t's key
// first for t = 0..B-1), then P:names, P:ids, P:next. ARGV: the fingerprint's
// high and low 32 bits, k, and for the writers the ID.
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
local nb = #KEYS - 3
local qhi, qlo, k = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
-- find returns {handle, distance, ...} of the entries within k bits, each once.
local function find()
  local out, seen = {}, {}
  for t = 1, nb do
    local blob = redis.call('GET', KEYS[t])
    if blob then
      for p = 1, #blob, 12 do
        local hi, lo, h = struct.unpack('>I4I4I4', blob, p)
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
    found[i] = redis.call('HGET', KEYS[nb + 1], tostring(found[i])) or ''
  end
  return found
end
-- add keeps the fingerprint under id: a new handle, an entry in each block
-- key, and the two hashes.
local function add(id)
  local h = redis.call('INCR', KEYS[nb + 3])
  local entry = struct.pack('>I4I4I4', qhi, qlo, h)
  for t = 1, nb do redis.call('APPEND', KEYS[t], entry) end
  redis.call('HSET', KEYS[nb + 1], tostring(h), id)
  redis.call('HSET', KEYS[nb + 2], id, entry)
end
-- forget removes the entry kept under id (whose block keys are KEYS[1..nb]).
local function forget(id)
  local entry = redis.call('HGET', KEYS[nb + 2], id)
  if not entry then return false end
  local _, _, h = struct.unpack('>I4I4I4', entry)
  for t = 1, nb do
    local blob = redis.call('GET', KEYS[t])
    if blob then
      for p = 1, #blob, 12 do
        if string.sub(blob, p, p + 11) == entry then
          blob = string.sub(blob, 1, p - 1) .. string.sub(blob, p + 12)
          break
        end
      end
      if #blob == 0 then redis.call('DEL', KEYS[t]) else redis.call('SET', KEYS[t], blob) end
    end
  end
  redis.call('HDEL', KEYS[nb + 1], tostring(h))
  redis.call('HDEL', KEYS[nb + 2], id)
  return true
end
`

// matchScript returns the IDs and distances of the kept fingerprints within
// k bits: {id, distance, id, distance, ...}.
var matchScript = redis.NewScript(scriptLib + `
return named(find())
`)

// matchOrAddScript is matchScript, and when nothing is found it keeps the
// fingerprint under ARGV[4] and returns {}; an ID already kept returns
// {"", -1}.
var matchOrAddScript = redis.NewScript(scriptLib + `
local found = find()
if #found > 0 then return named(found) end
if redis.call('HEXISTS', KEYS[nb + 2], ARGV[4]) == 1 then return {'', -1} end
add(ARGV[4])
return {}
`)

// addScript keeps the fingerprint under ARGV[4] whatever is kept; an ID
// already kept returns 0.
var addScript = redis.NewScript(scriptLib + `
if redis.call('HEXISTS', KEYS[nb + 2], ARGV[4]) == 1 then return 0 end
add(ARGV[4])
return 1
`)

// removeScript forgets ARGV[4], whose fingerprint's block keys are the KEYS
// (the caller reads the fingerprint first; the script checks it is still
// the one kept). It returns 0 when the ID is not kept.
var removeScript = redis.NewScript(scriptLib + `
local entry = redis.call('HGET', KEYS[nb + 2], ARGV[4])
if not entry then return 0 end
local hi, lo = struct.unpack('>I4I4', entry)
if hi ~= qhi or lo ~= qlo then return -1 end
forget(ARGV[4])
return 1
`)
