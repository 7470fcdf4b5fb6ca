package redisindex

import (
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/minhash/internal/judge"
)

// The Lua scripts run on the Redis primary, each in one step (Redis runs a
// script to its end before any other command). A call reads in one or two
// scripts, judges in the client, and writes in one script that first checks
// that nothing was filed under the page's keys since it read (compare and
// add), which is what makes MatchOrAdd atomic across processes.
//
// Layout m3 (P is Options.Prefix, in braces with SingleSlot; every key
// starts with "P:m3:"):
//
//	P:m3:cfg      the Judge's options the repository was made with, set by
//	              its first write; a script called with others fails
//	              (NDCFG)
//	P:m3:next     the last handle given (decimal; handles are never reused)
//	P:m3:ids      hash: ID -> handle (decimal)
//	P:m3:r:<h>    the page kept under handle h: its entry (below)
//	P:m3:k:<b>    hash of postings, bucket b (hex, at least 4 digits) of
//	              the key's low bits (below):
//	              4-byte key (big endian) -> its kept pages' 8-byte handles
//	              (big endian, ascending), or "S" once more than MaxPostings
//	              pages were filed under it (it is a key no more)
//	P:m3:x:<b>    hash of exact texts, bucket b = the text hash's low 16
//	              bits: 8-byte text hash -> 8-byte handles
//	P:m3:v:<b>    hash of remembered verdicts, same buckets: 8-byte text
//	              hash of a page not kept -> the 8-byte handle of the kept
//	              page it was first matched to and the distance (a double)
//	P:m3:h:<host> hash: 4-byte block -> the host's kept pages holding it
//	P:m3:T:<host> string: the host's template blocks (counted
//	              TemplatePages times or more in P:m3:h:<host>), 4-byte
//	              values ascending (a reader gets it whole, as one value)
//	P:m3:t        hash: 4-byte block -> the hosts it is template on
//	P:m3:tT       set: the theme's blocks (template on THEME hosts or more,
//	              judge.ThemeHosts)
//	P:m3:tv       the theme set's version, counted up at each change (a
//	              client keeps the set it read with its version)
//	P:m3:c:<call> the result of a write call under its 16-byte random ID,
//	              expiring after Options.CallTTL
//
// The postings' buckets grow with the repository, so that a bucket stays a
// small hash however many pages are kept (a Redis hash of up to 128 fields
// is a list searched from its start: a bucket's read and write would grow
// with the repository). Until the last handle given reaches 4 × 65,536
// there are 65,536 buckets (a key's low 16 bits); after, one more for
// every 4 handles, by linear hashing: with 2^l + s buckets, a key's bucket
// is its value mod 2^l, or mod 2^(l+1) when that is below s; the add that
// makes one more bucket splits bucket s, moving its keys whose bit l is set
// to bucket s + 2^l. The count of buckets follows from P:m3:next alone.
//
// An entry is the ID, the host, the index keys and the blocks, each with a
// 2-byte length (a count of 4-byte values for keys and blocks), the 8-byte
// text hash, then the page's judge.Record in binary form.
//
// ARGV[1] of every script is the key prefix P:m3, ARGV[2] the Judge's
// options (checked against P:m3:cfg).
var scriptLib = `
local P = ARGV[1]
local CFG = P .. ':cfg'
local THEME = ` + strconv.Itoa(judge.ThemeHosts) + `
local RARE = ` + strconv.Itoa(judge.RareKey) + `
local function u16(s, p) return struct.unpack('>I2', s, p) end
local function bucket16(s) return string.format('%02x%02x', string.byte(s, #s - 1, #s)) end
-- entry returns the ID, host, keys, blocks (keys and blocks as lists of
-- 4-byte strings) and 8-byte text hash of an entry.
local function entry(e)
  local p = 1
  local n = u16(e, p); local id = string.sub(e, p + 2, p + 1 + n); p = p + 2 + n
  n = u16(e, p); local host = string.sub(e, p + 2, p + 1 + n); p = p + 2 + n
  local keys, blocks = {}, {}
  n = u16(e, p); p = p + 2
  for i = 1, n do keys[i] = string.sub(e, p, p + 3); p = p + 4 end
  n = u16(e, p); p = p + 2
  for i = 1, n do blocks[i] = string.sub(e, p, p + 3); p = p + 4 end
  return id, host, keys, blocks, string.sub(e, p, p + 7)
end
local function split4(s)
  local out = {}
  for p = 1, #s, 4 do out[#out + 1] = string.sub(s, p, p + 3) end
  return out
end
-- sortedAt returns the number of 4-byte values of s (ascending) below the
-- 4-byte value b.
local function sortedAt(s, b)
  local v, lo, hi = struct.unpack('>I4', b), 0, #s / 4
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if struct.unpack('>I4', s, 4 * mid + 1) < v then lo = mid + 1 else hi = mid end
  end
  return lo
end
-- badcfg returns an error reply when the repository was made with other
-- options (nil if not), and the options recorded; a writer records the
-- options in a new repository. c, when given, is what P:m3:cfg held when
-- the script read it (false: nothing).
local function badcfg(write, c)
  if c == nil then c = redis.call('GET', CFG) end
  if c and c ~= ARGV[2] then
    return redis.error_reply('NDCFG the repository was made with options ' .. c .. ', not ' .. ARGV[2]), c
  end
  if not c and write then redis.call('SET', CFG, ARGV[2]); c = ARGV[2] end
  return nil, c
end
-- counts returns the counts of blocks (4-byte strings) in the host's
-- model and in the theme, as two lists of integers. The theme's are read
-- unless flags (a byte per block, '1' for a block of the theme) is given.
local function counts(host, blocks, flags)
  local hc, tc = {}, {}
  if #blocks > 0 then
    local h = redis.call('HMGET', P .. ':h:' .. host, unpack(blocks))
    for i = 1, #blocks do hc[i] = tonumber(h[i]) or 0 end
    if flags then
      for i = 1, #blocks do
        if string.byte(flags, i) == 49 then tc[i] = THEME else tc[i] = 0 end
      end
    else
      local t = redis.call('HMGET', P .. ':t', unpack(blocks))
      for i = 1, #blocks do tc[i] = tonumber(t[i]) or 0 end
    end
  end
  return hc, tc
end
local function handle(h) return string.format('%d', h) end
-- corrupt raises an error the client reports as neardup.ErrCorrupt: what
-- the repository holds is not what the scripts write (a record deleted by
-- hand, an evicted key). Scripts raise it before their first write.
local function corrupt(msg) error('NDCORRUPT ' .. msg) end
-- record returns the entry kept under handle h, what names it (a posting,
-- a text hash, an ID) saying it is kept: a missing record is corrupt.
local function kept(h, what)
  local e = redis.call('GET', P .. ':r:' .. handle(h))
  if not e then corrupt(what .. ' names handle ' .. handle(h) .. ', which has no record') end
  return e
end
-- The postings' buckets (above): 2^LB + SB of them, for the last handle
-- given NEXT (M is 2^LB, made by doubling: Lua's ^ is a call to pow);
-- buckets sets them, lastHandle reads NEXT once per script.
-- MINB is 65,536 but where the options (ARGV[2]) end in "|buckets=<n>"
-- (tests: the buckets grow from n).
local MINB, PER = tonumber(string.match(ARGV[2], '|buckets=(%d+)$')) or 65536, 4
local NEXT, LB, SB, M
local function buckets(n)
  NEXT = n
  local b = math.max(MINB, math.floor(n / PER))
  local l, m = 0, 1
  while m * 2 <= b do l, m = l + 1, m * 2 end
  LB, SB, M = l, b - m, m
end
local function lastHandle()
  if not NEXT then buckets(tonumber(redis.call('GET', P .. ':next')) or 0) end
  return NEXT
end
local function kbucket(i) return P .. ':k:' .. string.format('%04x', i) end
-- KB holds the bucket of each key keyfield was asked for, for the buckets
-- as they are (grow empties it).
local KB = {}
local function keyfield(k)
  local b = KB[k]
  if b then return b, k end
  lastHandle()
  local v = struct.unpack('>I4', k)
  local i = v % M
  if i < SB then i = v % (2 * M) end
  b = kbucket(i)
  KB[k] = b
  return b, k
end
local function xfield(x) return P .. ':x:' .. bucket16(x), x end
local function vfield(x) return P .. ':v:' .. bucket16(x), x end
-- entryHost returns the host of an entry (entry's second field).
local function entryHost(e)
  local p = 3 + u16(e, 1)
  return string.sub(e, p + 2, p + 1 + u16(e, p))
end
-- gather returns the entries of the candidates of a page looked up under
-- keys (4-byte strings, judge.Judge.QueryKeys) but handle skip: the kept
-- pages filed under two of keys, or under one filed under at most RARE
-- pages (judge.RareKey; its postings, not its bucket's): the Detector's
-- candidates and, of pages of other hosts that share one key only, those
-- the client leaves out (read.alone, Judge.SharedKeys); their distinct hosts, each host's template
-- blocks (the string P:m3:T:<host>), the entries' handles, the theme set's
-- version, and the theme set when its version is not tver (else false);
-- and, as a second value, the postings it read by key (false for none).
-- v, when given, is the theme set's version as the script read it; with
-- no entry gathered the version is not read (tver is returned).
--
-- Every page of a rare key's postings is gathered (the key counts as
-- two); the postings of keys filed under more pages (up to MaxPostings
-- each) are counted handle by handle only when two or more such keys are
-- read, for a page is a candidate through them only when filed under two.
local function gather(keys, skip, tver, v)
  local out, handles, cand, order, long, hosts, hostList, got = {}, {}, {}, {}, {}, {}, {}, {}
  for _, k in ipairs(keys) do
    local ps = redis.call('HGET', keyfield(k))
    got[k] = ps
    if ps and ps ~= 'S' then
      if #ps / 8 <= RARE then
        for p = 1, #ps, 8 do
          local h = struct.unpack('>I8', ps, p)
          if h ~= skip and not cand[h] then cand[h] = true; order[#order + 1] = h end
        end
      else
        long[#long + 1] = ps
      end
    end
  end
  if #long > 1 then
    local n = {}
    for _, ps in ipairs(long) do
      for p = 1, #ps, 8 do
        local h = struct.unpack('>I8', ps, p)
        if n[h] and h ~= skip and not cand[h] then cand[h] = true; order[#order + 1] = h end
        n[h] = true
      end
    end
  end
  for _, h in ipairs(order) do
    local e = kept(h, 'a posting')
    out[#out + 1] = e
    handles[#out] = h
    local host = entryHost(e)
    if not hosts[host] then hosts[host] = true; hostList[#hostList + 1] = host end
  end
  local tsets = {}
  for i, host in ipairs(hostList) do tsets[i] = redis.call('GET', P .. ':T:' .. host) or '' end
  local theme = false
  if #out == 0 then
    v = tver
  else
    v = v or redis.call('GET', P .. ':tv') or '0'
    if v ~= tver then theme = redis.call('SMEMBERS', P .. ':tT') end
  end
  return {out, hostList, tsets, handles, v, theme}, got
end
-- derive returns a page's query keys as the client's
-- judge.Judge.QueryKeys does (K of them; their first Options.Keys are
-- those Judge.Keys files it under): of its content hashes (ascending) the
-- index keys (ikeys: 4-byte values, one per hash, Record.IndexKeys) of the
-- first K whose block (tags: a byte per hash, the block's index) is not
-- template (its host count hc >= TP, or its theme count tc >= THEME), or of
-- the first K when every block is template. The template counts are read
-- in the same script, so the keys are made here; the client checks them
-- against the Judge's (Detector.keyMisses).
local function derive(ikeys, tags, hc, tc, K, TP)
  local tmpl = {}
  if TP >= 0 then
    for i = 1, #hc do tmpl[i] = hc[i] >= TP or tc[i] >= THEME end
  end
  local keys = {}
  for i = 1, #ikeys / 4 do
    if not tmpl[string.byte(tags, i) + 1] then
      keys[#keys + 1] = string.sub(ikeys, 4 * i - 3, 4 * i)
      if #keys == K then break end
    end
  end
  if #keys == 0 then
    for i = 1, math.min(K, #ikeys / 4) do keys[i] = string.sub(ikeys, 4 * i - 3, 4 * i) end
  end
  return keys
end
`

// readScript reads what a page is judged by, and its candidates, and keeps
// a page that has none. ARGV: the write scripts' first seven (P, cfg, call
// ID, call record TTL, TemplatePages, MaxPostings, MaxHostBlocks), then the
// page's 8-byte text hash, its host, its blocks (4-byte values,
// concatenated), its ID, the index key of each of its content hashes
// (4-byte values, in the hashes' ascending order: Record.IndexKeys), the
// block index of each hash (a byte each), Options.Keys, 1 to leave the page kept
// under the ID out of the candidates (Replace) or 0, 1 to keep the page
// when it has nothing to be judged against (MatchOrAdd) or 0, its record
// in binary form, the version of the theme set the caller holds, a
// byte for each of the page's blocks, '1' if that set holds it (the
// theme's counts are read only when the set is not the caller's), and how
// many query keys to derive (Judge.QueryKeys with no template: 2 ×
// Options.Keys, or every content hash when there are fewer). It
// returns {next, exact, verdict, hc, tc, own,
// keys, gathered}: the last handle given; {id, ...} of the pages kept with
// the same text; {id, distance} of the remembered verdict of this text ({}
// if none, or if its page is kept no more); the host's and the theme's
// counts of the blocks (the theme's from the caller's bytes when its set
// is current: ThemeHosts for a block it holds, else 0); the handle kept under the ID (0 if none); the
// page's query keys as derive makes them (4-byte values, concatenated); and gather's reply for those
// keys. A page to keep with no copy of its text kept, no remembered
// verdict, no page under its ID and no candidate is kept there and then
// (filed under the first Options.Keys of its query keys), as the commit
// script would: it returns {"added", handle, query keys (concatenated), hc, tc}
// ({"added", handle} recorded under the call ID, which a re-sent call
// gets).
var readScript = redis.NewScript(writeLib + `
local addNew = ARGV[16] == '1'
local pre = redis.call('MGET', CALL, CFG, P .. ':tv', P .. ':next')
if addNew then
  local r = recorded(pre[1])
  if r then return r end
end
local bad, cfg = badcfg(false, pre[2])
if bad then return bad end
buckets(tonumber(pre[4]) or 0)
local exact = {}
local xs = redis.call('HGET', xfield(ARGV[8]))
if xs then
  for p = 1, #xs, 8 do
    exact[#exact + 1] = (entry(kept(struct.unpack('>I8', xs, p), 'a text hash')))
  end
end
local verdict = {}
if #exact == 0 then
  local v = redis.call('HGET', vfield(ARGV[8]))
  if v then
    local h, d = struct.unpack('>I8d', v)
    local e = redis.call('GET', P .. ':r:' .. handle(h))
    if e then verdict = {(entry(e)), string.format('%.17g', d)} end
  end
end
local blocks = split4(ARGV[10])
local tv = pre[3] or '0'
local flags = false
if tv == ARGV[18] then flags = ARGV[19] end
local hc, tc = counts(ARGV[9], blocks, flags)
local own = tonumber(redis.call('HGET', P .. ':ids', ARGV[11])) or 0
if own ~= 0 then kept(own, 'the ID') end
local qkeys = derive(ARGV[12], ARGV[13], hc, tc, tonumber(ARGV[20]), TP)
local keys = {unpack(qkeys, 1, math.min(tonumber(ARGV[14]), #qkeys))}
local skip = 0
if ARGV[15] == '1' then skip = own end
local g, got = gather(qkeys, skip, ARGV[18], tv)
if addNew and #exact == 0 and #verdict == 0 and own == 0 and #g[1] == 0 then
  badcfg(true, cfg)
  local id, host = ARGV[11], ARGV[9]
  local e = struct.pack('>I2', #id) .. id .. struct.pack('>I2', #host) .. host ..
    struct.pack('>I2', #keys) .. table.concat(keys) .. struct.pack('>I2', #blocks) .. ARGV[10] ..
    ARGV[8] .. ARGV[17]
  got[ARGV[8]] = xs
  local h = add(e, got, hc, {id, host, keys, blocks, ARGV[8]})
  record({'added', h})
  return {'added', h, table.concat(qkeys), hc, tc}
end
local next = lastHandle()
return {next, exact, verdict, hc, tc, own, table.concat(qkeys), g}
`)

// candidatesScript returns the entries of a page's candidates, and their
// hosts' templates. ARGV: P, cfg, the page's query keys (4-byte values,
// concatenated), a handle to leave out (0 for none), the version of the
// theme set the caller holds. It returns gather's reply.
var candidatesScript = redis.NewScript(scriptLib + `
local bad = badcfg(false)
if bad then return bad end
local g = gather(split4(ARGV[3]), tonumber(ARGV[4]), ARGV[5])
return g
`)

// callLib is a write script's call record: recorded returns the result
// recorded under the call's ID (the key CALL; its value, when given: false
// for none, as MGET gives it), record keeps one for TTL ms.
// A script declares CALL and TTL before it.
const callLib = `
local function recorded(r)
  if r == nil then r = redis.call('GET', CALL) end
  if r then return cmsgpack.unpack(r) end
  return nil
end
local function record(res)
  redis.call('SET', CALL, cmsgpack.pack(res), 'PX', TTL)
  return res
end
`

// writeLib is what the writing scripts share: the call record, adding and
// forgetting a page.
var writeLib = scriptLib + `
local CALL = P .. ':c:' .. ARGV[3]
local TTL, TP, MAXP, MAXB = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
` + callLib + `-- tset adds (add true) or removes blocks of the sorted string of blocks
-- under key.
local function tset(key, blocks, add)
  local s = redis.call('GET', key) or ''
  for _, b in ipairs(blocks) do
    local i = sortedAt(s, b)
    local here = string.sub(s, 4 * i + 1, 4 * i + 4) == b
    if add and not here then
      s = string.sub(s, 1, 4 * i) .. b .. string.sub(s, 4 * i + 1)
    elseif not add and here then
      s = string.sub(s, 1, 4 * i) .. string.sub(s, 4 * i + 5)
    end
  end
  if #s == 0 then redis.call('DEL', key) else redis.call('SET', key, s) end
end
-- hdel deletes fields of the hash key, a thousand a call.
local function hdel(key, fields)
  for i = 1, #fields, 1000 do
    redis.call('HDEL', key, unpack(fields, i, math.min(i + 999, #fields)))
  end
end
-- grow makes the buckets those of handle h, the one after NEXT: when that
-- is one more, it splits bucket SB, moving its keys whose bit LB is set to
-- bucket SB + 2^LB.
local function grow(h)
  local l, s, m = LB, SB, M
  buckets(h)
  if LB == l and SB == s then return end
  KB = {}
  local from, to = kbucket(s), kbucket(s + m)
  local all = redis.call('HGETALL', from)
  local move, fields = {}, {}
  for i = 1, #all, 2 do
    if struct.unpack('>I4', all[i]) % (2 * m) ~= s then
      move[#move + 1] = all[i]; move[#move + 1] = all[i + 1]; fields[#fields + 1] = all[i]
    end
  end
  if #fields > 0 then
    for i = 1, #move, 2000 do redis.call('HSET', to, unpack(move, i, math.min(i + 1999, #move))) end
    hdel(from, fields)
  end
end
-- learn counts the blocks (distinct) of a kept page of host (delta 1) or
-- of a page kept no more (delta -1) in the host's model, and a block that
-- becomes or stops being template on the host in the theme. It reads the
-- counts in one call (unless given: known, aligned with blocks) and
-- writes them in one.
local function learn(host, blocks, delta, known)
  if TP < 0 or #blocks == 0 then return end
  local H = P .. ':h:' .. host
  local cs = known or redis.call('HMGET', H, unpack(blocks))
  local set, del, crossed = {}, {}, {}
  for i, b in ipairs(blocks) do
    local c = tonumber(cs[i])
    if delta > 0 then
      c = (c or 0) + 1
      set[#set + 1] = b; set[#set + 1] = c
      if c == TP then crossed[#crossed + 1] = b end
    elseif c then
      c = c - 1
      if c <= 0 then del[#del + 1] = b else set[#set + 1] = b; set[#set + 1] = c end
      if c == TP - 1 then crossed[#crossed + 1] = b end
    end
  end
  if #set > 0 then redis.call('HSET', H, unpack(set)) end
  if #del > 0 then hdel(H, del) end
  if #crossed > 0 then
    tset(P .. ':T:' .. host, crossed, delta > 0)
    for _, b in ipairs(crossed) do
      local t = redis.call('HINCRBY', P .. ':t', b, delta)
      if delta > 0 and t == THEME or delta < 0 and t == THEME - 1 then
        if delta > 0 then redis.call('SADD', P .. ':tT', b) else redis.call('SREM', P .. ':tT', b) end
        redis.call('INCR', P .. ':tv')
      end
      if t <= 0 then redis.call('HDEL', P .. ':t', b) end
    end
  end
  if delta > 0 and TP > 1 and redis.call('HLEN', H) > MAXB then
    local all, once = redis.call('HGETALL', H), {}
    for i = 1, #all, 2 do
      if all[i + 1] == '1' then once[#once + 1] = all[i] end
    end
    hdel(H, once)
  end
end
-- newer reports whether a page was filed under any of keys (a page's query
-- keys: whatever was filed under them may be a candidate), or kept with the
-- text hash x, after handle seen.
local function newer(keys, x, seen)
  for _, k in ipairs(keys) do
    local ps = redis.call('HGET', keyfield(k))
    if ps and ps ~= 'S' and #ps >= 8 and struct.unpack('>I8', ps, #ps - 7) > seen then return true end
  end
  local xs = redis.call('HGET', xfield(x))
  return xs and #xs >= 8 and struct.unpack('>I8', xs, #xs - 7) > seen
end
-- add keeps a page under a new handle: its entry, its postings, its text
-- hash and its blocks' counts. got, if not nil, holds the postings of keys
-- and the kept pages of text hashes the script has read (false for none),
-- by key or text hash; hc, if not nil, the host's counts of the blocks;
-- f, if not nil, what entry(e) returns, as a list.
local function add(e, got, hc, f)
  local id, host, keys, blocks, x
  if f then id, host, keys, blocks, x = unpack(f) else id, host, keys, blocks, x = entry(e) end
  local h = lastHandle() + 1
  redis.call('MSET', P .. ':next', handle(h), P .. ':r:' .. handle(h), e)
  grow(h)
  local hb = struct.pack('>I8', h)
  redis.call('HSET', P .. ':ids', id, h)
  for _, k in ipairs(keys) do
    local b, f = keyfield(k)
    local ps
    if got and got[k] ~= nil then ps = got[k] else ps = redis.call('HGET', b, f) end
    if not ps then
      redis.call('HSET', b, f, hb)
    elseif ps ~= 'S' then
      if #ps / 8 >= MAXP then redis.call('HSET', b, f, 'S') else redis.call('HSET', b, f, ps .. hb) end
    end
  end
  local b, f = xfield(x)
  local xs
  if got and got[x] ~= nil then xs = got[x] else xs = redis.call('HGET', b, f) end
  redis.call('HSET', b, f, (xs or '') .. hb)
  learn(host, blocks, 1, hc)
  return h
end
-- cut returns the string of 8-byte handles ps without hb.
local function cut(ps, hb)
  for p = 1, #ps, 8 do
    if string.sub(ps, p, p + 7) == hb then return string.sub(ps, 1, p - 1) .. string.sub(ps, p + 8) end
  end
  return ps
end
-- forget removes the page kept under id, if any, and reports whether it
-- was kept.
local function forget(id)
  local h = redis.call('HGET', P .. ':ids', id)
  if not h then return false end
  local e = redis.call('GET', P .. ':r:' .. h)
  local hb = struct.pack('>I8', tonumber(h))
  if e then
    local _, host, keys, blocks, x = entry(e)
    for _, k in ipairs(keys) do
      local b, f = keyfield(k)
      local ps = redis.call('HGET', b, f)
      if ps and ps ~= 'S' then
        ps = cut(ps, hb)
        if #ps == 0 then redis.call('HDEL', b, f) else redis.call('HSET', b, f, ps) end
      end
    end
    learn(host, blocks, -1)
    local xb, xf = xfield(x)
    local xs = redis.call('HGET', xb, xf)
    if xs then
      xs = cut(xs, hb)
      if #xs == 0 then redis.call('HDEL', xb, xf) else redis.call('HSET', xb, xf, xs) end
    end
    redis.call('DEL', P .. ':r:' .. h)
  end
  redis.call('HDEL', P .. ':ids', id)
  return true
end
`

// commitScript keeps a page unless a page was filed under its query keys or
// kept with its text since the caller read them. ARGV: P, cfg, call ID, call
// record TTL (ms), TemplatePages, MaxPostings, MaxHostBlocks, the handle
// the caller read last (seen), the page's entry, 1 to forget first what is
// kept under its ID (Replace) or 0, the page's query keys (4-byte values,
// concatenated; the entry's keys are their start). It returns
// {"added", handle} (recorded), {"dup"} when the ID was kept when the
// caller read (and is not to be replaced), or {"conflict"} when the caller
// must read again. When no handle was given after seen nothing was filed
// or kept since, and the query keys are not read.
var commitScript = redis.NewScript(writeLib + `
local pre = redis.call('MGET', CALL, CFG, P .. ':next')
local r = recorded(pre[1])
if r then return r end
local bad = badcfg(true, pre[2])
if bad then return bad end
buckets(tonumber(pre[3]) or 0)
local seen, e, replace = tonumber(ARGV[8]), ARGV[9], ARGV[10] == '1'
local id, host, keys, blocks, x = entry(e)
local held = tonumber(redis.call('HGET', P .. ':ids', id))
if not replace and held then
  if held > seen then return {'conflict'} end
  return {'dup'}
end
if lastHandle() > seen and newer(split4(ARGV[11]), x, seen) then return {'conflict'} end
if replace then forget(id) end
return record({'added', add(e, nil, nil, {id, host, keys, blocks, x})})
`)

// removeScript forgets the page kept under an ID. ARGV: P, cfg, call ID,
// TTL, TemplatePages, MaxPostings, MaxHostBlocks, the ID. It returns 1
// (recorded), or 0 when the ID is not kept.
var removeScript = redis.NewScript(writeLib + `
local r = recorded()
if r then return r end
local bad = badcfg(true)
if bad then return bad end
if not forget(ARGV[8]) then return 0 end
return record(1)
`)

// rememberScript remembers the first verdict of a page not kept. ARGV: P,
// cfg, the page's 8-byte text hash, the kept page's handle and the
// distance, packed ('>I8d'). It writes nothing when a verdict is
// remembered already.
var rememberScript = redis.NewScript(scriptLib + `
local bad = badcfg(true)
if bad then return bad end
local b, f = vfield(ARGV[3])
return redis.call('HSETNX', b, f, ARGV[4])
`)
