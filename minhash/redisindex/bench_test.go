package redisindex

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/synth"
	"github.com/neardup/neardup/minhash"
)

// BenchmarkScale streams the first n pages of a generated crawl
// (internal/synth, as minhash's BenchmarkScale: crawl=words, or
// crawl=bigram, whose 4-token phrases recur across unrelated pages) through
// one Detector on the loopback redis-server TestMain starts, and reports:
//
//   - us-p50/page, us-p99/page, us/page: MatchOrAdd's wall time (median,
//     99th percentile, mean), preprocessing not counted
//   - cmp/page, cmp-p99/page: kept pages judged per MatchOrAdd (mean, 99th
//     percentile)
//   - B/page: the server's used_memory per kept page
//   - redis-us/page: the server's time in the repository's scripts per
//     call (INFO commandstats), which the client's load does not inflate
//   - F1, as minhash's BenchmarkScale counts it
//
// The spread/ sub-benchmarks keep the repository with Options.Spread (its
// keys as a cluster would hold them, on the one server); the sketch=32/
// ones judge with sketches of 32 hashes (minhash.Options SketchSize and
// PageSketchSize), a smaller record for a less exact distance. One iteration is
// the whole crawl; run it once:
//
//	cd minhash/redisindex && go test -run '^$' -bench 'Scale/crawl=.*/n=100k$' -benchtime 1x -timeout 60m
func BenchmarkScale(b *testing.B) {
	small := minhash.Options{SketchSize: 32, PageSketchSize: 32}
	for _, c := range []struct {
		name   string
		n      int
		spread bool
		o      minhash.Options
	}{{"n=10k", 10_000, false, minhash.Options{}}, {"n=100k", 100_000, false, minhash.Options{}}, {"n=1M", 1_000_000, false, minhash.Options{}},
		{"spread/n=10k", 10_000, true, minhash.Options{}}, {"spread/n=100k", 100_000, true, minhash.Options{}},
		{"sketch=32/n=100k", 100_000, false, small}, {"sketch=32/n=1M", 1_000_000, false, small}} {
		for _, cr := range benchtest.Crawls(c.n) {
			b.Run("crawl="+cr.Name+"/"+c.name, func(b *testing.B) {
				if testing.Short() && c.n > 10_000 {
					b.Skip("-short: only n=10k")
				}
				for b.Loop() {
					scale(b, cr.Opts, c.spread, c.o)
				}
			})
		}
	}
}

func usedMemory(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal("no used_memory in INFO")
	return 0
}

func scale(b *testing.B, crawl synth.Options, spread bool, o minhash.Options) {
	n := crawl.Pages
	c, _ := client(b)
	const prefix = "neardup" // the default: the key names' bytes are a production repository's
	ctx := context.Background()
	det, err := New(Options{Client: c, Prefix: prefix, Spread: spread, Minhash: o})
	if err != nil {
		b.Fatal(err)
	}
	mem0 := usedMemory(b, c)
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, n)
	cmps := make([]int64, 0, n)
	var tally detectortest.Tally
	for p, d := range benchtest.CrawlOf(b, crawl) {
		c0, t0 := det.Comparisons(), time.Now()
		ms, added, err := det.MatchOrAdd(ctx, d)
		times = append(times, time.Since(t0))
		cmps = append(cmps, det.Comparisons()-c0)
		if err != nil {
			b.Fatal(err)
		}
		tally.Count(p, ms, added)
	}
	kept, err := det.Len(ctx)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	mem := usedMemory(b, c) - mem0
	var sum time.Duration
	for _, t := range times {
		sum += t
	}
	slices.Sort(times)
	slices.Sort(cmps)
	us := func(t time.Duration) float64 { return float64(t.Nanoseconds()) / 1e3 }
	b.ReportMetric(us(times[len(times)/2]), "us-p50/page")
	b.ReportMetric(us(times[len(times)*99/100]), "us-p99/page")
	b.ReportMetric(us(sum)/float64(len(times)), "us/page")
	b.ReportMetric(float64(det.Comparisons())/float64(len(times)), "cmp/page")
	b.ReportMetric(float64(cmps[len(cmps)*99/100]), "cmp-p99/page")
	b.ReportMetric(float64(mem)/float64(kept), "B/page")
	b.ReportMetric(float64(serverTime(b, c).Microseconds())/float64(len(times)), "redis-us/page")
	tally.Report(b, false)
	b.ReportMetric(0, "ns/op")
	if n := det.keyMisses.Load(); n != 0 {
		b.Errorf("%d reads derived other keys than the Judge's", n)
	}
	if n <= 100_000 {
		memoryByKind(b, c, prefix, kept, spread)
	}
	// Emptying 10⁶ pages' keys takes longer than the client's read timeout.
	if err := c.WithTimeout(time.Minute).FlushDB(ctx).Err(); err != nil {
		b.Fatal(err)
	}
}

// serverTime returns the time the server spent in commands since its
// statistics were reset (INFO commandstats: the scripts, and the commands
// they called, are counted once).
func serverTime(b *testing.B, c *redis.Client) time.Duration {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var us int64
	for line := range strings.Lines(info) {
		name, stats, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_eval") {
			continue // a script's own calls are in its time
		}
		for kv := range strings.SplitSeq(stats, ",") {
			if v, ok := strings.CutPrefix(kv, "usec="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				us += n
			}
		}
	}
	return time.Duration(us) * time.Microsecond
}

// memoryByKind logs the memory Redis reports (MEMORY USAGE) for each kind
// of key of the repository (script.go's layout; spread: the kind in the
// hash tag, and after a dot the kind of key on that tag's slot), per kept
// page, in key order. The call records (c) expire after CallTTL. For a
// spread repository it reports too how its keys and their memory would
// spread over a cluster of three primaries, each serving a third of the
// slots: the most loaded one's share over the mean (keys-max/mean,
// B-max/mean).
func memoryByKind(b *testing.B, c *redis.Client, prefix string, kept int, spread bool) {
	ctx := context.Background()
	bytesBy := map[string]int64{}
	keysBy := map[string]int{}
	var shardKeys, shardBytes [3]int64
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		rest := strings.TrimPrefix(k, prefix+":m3:")
		if _, tagged, ok := strings.Cut(k, "{"); ok {
			rest = tagged
		}
		kind, _, _ := strings.Cut(rest, ":")
		if _, after, ok := strings.Cut(rest, "}:"); ok {
			sub, _, _ := strings.Cut(after, ":")
			kind += "." + sub
		}
		if strings.Contains(k, ":c:") && !spread {
			kind = "c"
		}
		m, _ := c.MemoryUsage(ctx, k, 0).Result()
		bytesBy[kind] += m
		keysBy[kind]++
		shard := slot(k) * 3 / 16384
		shardKeys[shard]++
		shardBytes[shard] += m
	}
	var line strings.Builder // one line: a benchmark's log keeps its first ten
	for _, kind := range slices.Sorted(maps.Keys(bytesBy)) {
		fmt.Fprintf(&line, "%s: %d keys, %.0f B/page; ", kind, keysBy[kind], float64(bytesBy[kind])/float64(kept))
	}
	b.Log(line.String())
	if spread {
		overMean := func(v [3]int64) float64 { return float64(slices.Max(v[:])) * 3 / float64(v[0]+v[1]+v[2]) }
		b.ReportMetric(overMean(shardKeys), "keys-max/mean")
		b.ReportMetric(overMean(shardBytes), "B-max/mean")
	}
}

// slot returns the Redis Cluster hash slot of key: CRC16 (XMODEM) of its
// hash tag (the bytes between its first "{" and the next "}", when there
// are some) or of the whole key, mod 16384.
func slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

// postingsScript reads and writes again the postings of 8 keys (ARGV[2] is
// the first's number) in buckets of ARGV[1] bits, as a kept page's add
// does.
var postingsScript = redis.NewScript(`
local m, r = 2 ^ tonumber(ARGV[1]), tonumber(ARGV[2])
for j = 0, 7 do
  local v = ((r + j * 7919) % 1000000 * 2654435761) % 4294967296
  local k = struct.pack('>I4', v)
  local b = KEYS[1] .. string.format('%04x', v % m)
  redis.call('HSET', b, k, redis.call('HGET', b, k))
end
return 1
`)

// BenchmarkPostings measures, in the server (redis-us/op, INFO
// commandstats), a page's reads and writes of its 8 keys' postings when a
// bucket holds about 120 postings (what 65,536 fixed buckets hold at 10⁶
// pages) and about 30 (the buckets that grow with the repository): a
// million postings, in 2¹³ or 2¹⁵ buckets.
//
//	cd minhash/redisindex && go test -run '^$' -bench Postings -count 3
func BenchmarkPostings(b *testing.B) {
	for _, bits := range []int{13, 15} {
		b.Run(fmt.Sprintf("per-bucket=%d", 1_000_000>>bits), func(b *testing.B) {
			c, prefix := client(b)
			ctx := context.Background()
			pipe := c.Pipeline()
			for i := range 1_000_000 {
				v := uint32(uint64(i) * 2654435761)
				pipe.HSet(ctx, fmt.Sprintf("%s%04x", prefix, v%(1<<bits)), u32s([]uint32{v}), u64(uint64(i)))
				if i%10_000 == 9_999 {
					if _, err := pipe.Exec(ctx); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := c.ConfigResetStat(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			for i := 0; b.Loop(); i++ {
				if err := postingsScript.Run(ctx, c, []string{prefix}, bits, i*104729).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(serverTime(b, c).Nanoseconds())/1e3/float64(b.N), "redis-us/op")
			if err := c.FlushDB(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkQueryKeys measures, in the server (redis-us/op, INFO
// commandstats), the read script's lookup of a new page's query keys (the
// one-slot scripts' gather: each key's bucket named and its postings read,
// none found) in the postings of 10⁶ kept pages: 8,000,000 postings in the
// 250,000 buckets the repository then has (about 32 a bucket), so that, as
// in a repository of that size, a bucket read is rarely in the CPU's
// caches. keys=8 is what a page looked up before the candidates became the
// Detector's (judge.Judge.Keys), keys=16 what it looks up now
// (judge.Judge.QueryKeys); redis-us/key is the cost of one more key.
//
//	cd minhash/redisindex && go test -run '^$' -bench QueryKeys -benchtime 20000x -count 3
func BenchmarkQueryKeys(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: 8,000,000 postings")
	}
	c, prefix := client(b)
	ctx := context.Background()
	p := prefix + ":m3"
	const pages, postings = 1_000_000, 8_000_000
	if err := c.Set(ctx, p+":next", pages, 0).Err(); err != nil {
		b.Fatal(err)
	}
	lb, sb := uint32(17), uint32(pages/4-1<<17) // the buckets of 10⁶ handles (script.go)
	r := rand.New(rand.NewPCG(1, 2))
	pipe := c.Pipeline()
	for i := range postings {
		v := r.Uint32() >> 1 // the top bit clear: a query key (top bit set) finds nothing
		k := v % (1 << lb)
		if k < sb {
			k = v % (1 << (lb + 1))
		}
		pipe.HSet(ctx, fmt.Sprintf("%s:k:%04x", p, k), u32s([]uint32{v}), u64(uint64(i+1)))
		if i%10_000 == 9_999 {
			if _, err := pipe.Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, n := range []int{8, 16} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			if err := c.ConfigResetStat(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			keys := make([]uint32, n)
			for b.Loop() {
				for i := range keys {
					keys[i] = r.Uint32() | 1<<31
				}
				if err := queryKeysScript.Run(ctx, c, []string{p}, p, u32s(keys)).Err(); err != nil {
					b.Fatal(err)
				}
			}
			us := float64(serverTime(b, c).Nanoseconds()) / 1e3 / float64(b.N)
			b.ReportMetric(us, "redis-us/op")
			b.ReportMetric(us/float64(n), "redis-us/key")
		})
	}
	if err := c.WithTimeout(time.Minute).FlushDB(ctx).Err(); err != nil {
		b.Fatal(err)
	}
}

// queryKeysScript is gather (script.go) for the query keys ARGV[2] (4-byte
// values, concatenated) of a repository whose key prefix is ARGV[1]: it
// fails if any was found, for then gather would have read records.
var queryKeysScript = redis.NewScript(scriptLib + `
local g = gather(split4(ARGV[2]), 0, '0')
if #g[1] > 0 then return redis.error_reply('found') end
return 1
`)

// BenchmarkScriptLibrary measures, in the server (redis-us/op, INFO
// commandstats), what a script call costs before its own work: a script
// that returns at once (empty), and one that first defines the write
// scripts' library (writeLib: its functions are made again at every call
// of a script, as Redis runs a script's whole text each time).
//
//	cd minhash/redisindex && go test -run '^$' -bench ScriptLibrary -benchtime 50000x -count 3
func BenchmarkScriptLibrary(b *testing.B) {
	for _, c := range []struct {
		name string
		s    *redis.Script
	}{{"empty", redis.NewScript(`return 1`)}, {"writeLib", redis.NewScript(writeLib + `
return 1`)}} {
		b.Run(c.name, func(b *testing.B) {
			cl, prefix := client(b)
			ctx := context.Background()
			if err := cl.ConfigResetStat(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			args := []any{prefix, "cfg", "0123456789abcdef", 1000, 3, 256, 4096}
			for b.Loop() {
				if err := c.s.Run(ctx, cl, nil, args...).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(serverTime(b, cl).Nanoseconds())/1e3/float64(b.N), "redis-us/op")
		})
	}
}
