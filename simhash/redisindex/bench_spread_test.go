package redisindex

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/simhash"
)

// BenchmarkSpread compares a spread repository (Options.Spread) with a
// SingleSlot one on a loopback Redis Cluster of three primaries (no
// replicas) holding 10,000 to 1,000,000 pages at k = 3: the latency of
// Match and of MatchOrAdd of new pages (p50 and p99, one client), the
// MatchOrAdd calls per second of 4 clients, Redis memory per page (all
// primaries), and how evenly the repository's keys spread (the most loaded
// primary's keys over the mean).
//
//	go test -run='^$' -bench='Spread/pages=(10000|100000)$/' -benchtime=1000x ./simhash/redisindex/
//	go test -run='^$' -bench='Spread/pages=1000000$/' -benchtime=1000x ./simhash/redisindex/
func BenchmarkSpread(b *testing.B) {
	cl := startCluster(b, 0)
	c := cl.client(b, &redis.ClusterOptions{PoolSize: 16})
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		for _, mode := range []string{"singleslot", "spread"} {
			b.Run(fmt.Sprintf("pages=%d/%s", n, mode), func(b *testing.B) {
				prefix := fmt.Sprintf("bench-%s-%d", mode, n)
				o := Options{Client: c, Prefix: prefix, MaxDistance: 3, SingleSlot: mode == "singleslot", Spread: mode == "spread"}
				before := clusterMemory(b, c)
				det := loadCluster(b, c, o, n)
				perPage := float64(clusterMemory(b, c)-before) / float64(n)
				pattern := "{" + prefix + ":2:*" // spread: every key starts so
				if o.SingleSlot {
					pattern = "{" + prefix + "}:2:*"
				}
				per := keysPerPrimary(b, cl, pattern)
				total, most := 0, 0
				for _, k := range per {
					total += k
					most = max(most, k)
				}
				skew := float64(most) / (float64(total) / float64(len(per)))
				r := rand.New(rand.NewPCG(5, 6))
				run := 0
				latency := func(b *testing.B, call func(d *neardup.Document) error) {
					run++
					benchtest.Latency(b, r, fmt.Sprint("new-", run), call)
					b.ReportMetric(perPage, "redis-B/page")
					b.ReportMetric(skew, "max/mean-keys")
				}
				b.Run("match", func(b *testing.B) {
					latency(b, func(d *neardup.Document) error { _, err := det.Match(b.Context(), d); return err })
				})
				b.Run("matchoradd", func(b *testing.B) {
					latency(b, func(d *neardup.Document) error { _, _, err := det.MatchOrAdd(b.Context(), d); return err })
				})
				b.Run("clients=4", func(b *testing.B) {
					run++
					dets := make([]detectortest.FleetDetector, 4)
					for i := range dets {
						o := o
						o.Client = cl.client(b, nil)
						dets[i], _ = New(o)
					}
					benchtest.Throughput(b, dets, fmt.Sprint("client-", run))
				})
			})
		}
	}
}

// loadCluster fills the repository of o with n random fingerprints through
// pipelined commands (the scripts' writes, without their checks), and
// returns its detector.
func loadCluster(b *testing.B, c *redis.ClusterClient, o Options, n int) *Detector {
	det, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	const batch = 5000
	for start := 0; start < n; start += batch {
		pipe := c.Pipeline()
		for i := start; i < min(start+batch, n); i++ {
			fp := simhash.Fingerprint(r.Uint64())
			id := fmt.Sprint("page-", i)
			h := uint64(i + 1)
			if det.opts.Spread {
				h = h*buckets + bucketOf(id)
			}
			entry := binary.BigEndian.AppendUint64(nil, uint64(fp))
			entry = binary.BigEndian.AppendUint64(entry, h)
			if det.opts.Spread {
				for _, key := range det.blockKeys(nil, fp) {
					pipe.Append(ctx, key, string(entry))
				}
				pipe.HSet(ctx, spread{det}.bucketKey(bucketOf(id), "names"), strconv.FormatUint(h, 10), id)
				pipe.HSet(ctx, spread{det}.bucketKey(bucketOf(id), "ids"), id, string(entry))
			} else {
				for _, key := range (oneSlot{det}).blockKeys(nil, fp) {
					pipe.Append(ctx, key, string(entry))
				}
				pipe.HSet(ctx, det.prefix+":names", fmt.Sprint(h), id)
				pipe.HSet(ctx, det.prefix+":ids", id, string(entry))
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	pipe := c.Pipeline()
	if det.opts.Spread {
		for bk := range uint64(buckets) {
			pipe.Set(ctx, spread{det}.bucketKey(bk, "next"), n+1, 0)
		}
		pipe.Set(ctx, "{"+det.prefix+"}:k", det.k, 0)
	} else {
		pipe.Set(ctx, det.prefix+":next", n+1, 0)
		pipe.Set(ctx, det.prefix+":k", det.k, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		b.Fatal(err)
	}
	if got, err := det.Len(ctx); err != nil || got != n {
		b.Fatalf("Len = %d, %v; want %d", got, err, n)
	}
	return det
}

// clusterMemory returns the sum of the primaries' used_memory.
func clusterMemory(b *testing.B, c *redis.ClusterClient) int64 {
	var mu sync.Mutex
	var sum int64
	err := c.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
		info, err := m.Info(ctx, "memory").Result()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				mu.Lock()
				sum += n
				mu.Unlock()
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return sum
}
