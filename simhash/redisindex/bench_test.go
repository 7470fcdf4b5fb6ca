package redisindex

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/fleet"
	"github.com/neardup/neardup/simhash"
)

// load fills a repository with n random fingerprints through pipelined
// commands (the script's writes, without its check), and returns the
// detector.
func load(b *testing.B, c *redis.Client, prefix string, k, n int) *Detector {
	det, err := New(Options{Client: c, Prefix: prefix, MaxDistance: cmp.Or(k, simhash.Identical)})
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
			entry := binary.BigEndian.AppendUint64(nil, uint64(fp))
			entry = binary.BigEndian.AppendUint64(entry, uint64(i+1))
			for _, key := range (oneSlot{det}).blockKeys(nil, fp) {
				pipe.Append(ctx, key, string(entry))
			}
			id := fmt.Sprint("page-", i)
			pipe.HSet(ctx, det.prefix+":names", fmt.Sprint(i+1), id)
			pipe.HSet(ctx, det.prefix+":ids", id, string(entry))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	c.Set(ctx, det.prefix+":next", n, 0)
	c.Set(ctx, det.prefix+":k", k, 0)
	return det
}

// BenchmarkFleet1M measures a repository of 1,000,000 pages in a loopback
// redis-server at k = 3: the latency of Match and of MatchOrAdd (p50 and p99
// over the benchmark's calls, from one client), and the MatchOrAdd calls per
// second of 1 to 4 clients on connections of their own.
//
//	go test -run='^$' -bench=Fleet1M -benchtime=20000x ./simhash/redisindex/
func BenchmarkFleet1M(b *testing.B) {
	fleetBench(b, 3, 1_000_000, 4)
}

// BenchmarkFleetT8 measures repositories of 10,000 to 1,000,000 pages at
// the default k = 8 (nine blocks of 7 or 8 bits: each key holds about n/128
// entries, which every query reads and scans): the latency of Match and
// MatchOrAdd and the calls per second of one client.
//
//	go test -run='^$' -bench=FleetT8 -benchtime=200x ./simhash/redisindex/
func BenchmarkFleetT8(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint("pages=", n), func(b *testing.B) { fleetBench(b, DefaultMaxDistance, n, 1) })
	}
}

// fleetBench loads n pages at T_B k and runs the sub-benchmarks: Match and
// MatchOrAdd latency, and the throughput of 1 to clients clients.
func fleetBench(b *testing.B, k, n, clients int) {
	c, prefix := client(b)
	before := usedMemory(b, c)
	det := load(b, c, prefix, k, n)
	if got, err := det.Len(context.Background()); err != nil || got != n {
		b.Fatalf("Len = %d, %v", got, err)
	}
	perPage := float64(usedMemory(b, c)-before) / float64(n)
	r := rand.New(rand.NewPCG(3, 4))
	// run numbers the sub-benchmarks' runs (-count repeats them on the same
	// repository), so that every call offers a page under a new ID.
	run := 0
	latency := func(b *testing.B, call func(d *neardup.Document) error) {
		run++
		benchtest.Latency(b, r, fmt.Sprint("new-", run), call)
		b.ReportMetric(perPage, "redis-B/page")
	}
	b.Run("match", func(b *testing.B) {
		latency(b, func(d *neardup.Document) error { _, err := det.Match(b.Context(), d); return err })
	})
	b.Run("matchoradd", func(b *testing.B) {
		latency(b, func(d *neardup.Document) error { _, _, err := det.MatchOrAdd(b.Context(), d); return err })
	})
	for cl := 1; cl <= clients; cl++ {
		b.Run(fmt.Sprint("clients=", cl), func(b *testing.B) {
			run++
			dets := make([]detectortest.FleetDetector, cl)
			for i := range dets {
				ci, _ := client(b)
				dets[i], _ = New(Options{Client: ci, Prefix: prefix, MaxDistance: k})
			}
			benchtest.Throughput(b, dets, fmt.Sprint("client-", run))
		})
	}
}

// BenchmarkCallRecord measures the Redis memory of the call records that
// write calls leave for Options.CallTTL: 100,000 records as the scripts
// write them (a 16-byte call ID under the default prefix, a 1-byte MessagePack
// value, an expiry).
//
//	go test -run='^$' -bench=CallRecord -benchtime=1x ./simhash/redisindex/
func BenchmarkCallRecord(b *testing.B) {
	c, _ := client(b)
	det, err := New(Options{Client: c}) // the default prefix, as in production
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	const n = 100_000
	for b.Loop() {
		before := usedMemory(b, c)
		pipe := c.Pipeline()
		for range n {
			pipe.Set(ctx, det.prefix+":c:"+fleet.NewCall(), "\x90", DefaultCallTTL)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(usedMemory(b, c)-before)/n, "redis-B/record")
	}
}

// usedMemory returns the server's used_memory (INFO memory).
func usedMemory(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal("no used_memory in INFO")
	return 0
}
