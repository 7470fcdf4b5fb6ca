package pgindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/benchtest"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/simhash"
)

// BenchmarkPostgres1M: 1,000,000 kept fingerprints in a throw-away local
// PostgreSQL (fsync off unless -durable, client and server on the same
// cores), k = 3; the latency of Match and of MatchOrAdd of new random
// fingerprints (p50 and p99 over the run, one client), and the MatchOrAdd
// calls per second of 1 to 4 clients on pools of their own.
//
//	go test -run='^$' -bench=Postgres1M -benchtime=2000x ./simhash/pgindex/
func BenchmarkPostgres1M(b *testing.B) { postgresBench(b, 1_000_000) }

// BenchmarkPostgres10K is BenchmarkPostgres1M at 10,000 kept fingerprints;
// with -durable it measures durable commits (each MatchOrAdd that adds a
// page waits for its WAL to reach the disk).
//
//	go test -run='^$' -bench=Postgres10K -benchtime=2000x ./simhash/pgindex/ -args -durable
func BenchmarkPostgres10K(b *testing.B) { postgresBench(b, 10_000) }

// postgresBench loads n random fingerprints into a new table and runs the
// sub-benchmarks of BenchmarkPostgres1M on it.
func postgresBench(b *testing.B, n int) {
	p := pool(b, 4)
	ctx := context.Background()
	det, err := New(ctx, Options{Pool: p, Table: table(b)})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(100, 1))
	var settings []string // what the server's commits wait for
	for _, name := range []string{"fsync", "synchronous_commit", "full_page_writes"} {
		var v string
		if err := p.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			b.Fatal(err)
		}
		settings = append(settings, name+"="+v)
	}
	b.Logf("%d pages, server %s", n, strings.Join(settings, " "))
	rows := make([][]any, n)
	for i := range rows {
		fp := simhash.Fingerprint(r.Uint64())
		rows[i] = det.insertArgs(fmt.Sprint("kept-", i), fp)
	}
	cols := []string{"id", "fp"}
	for t := range det.blocks {
		cols = append(cols, fmt.Sprintf("b%d", t))
	}
	if _, err := p.CopyFrom(ctx, pgx.Identifier{det.table}, cols, pgx.CopyFromRows(rows)); err != nil {
		b.Fatal(err)
	}
	if _, err := p.Exec(ctx, "ANALYZE "+det.table); err != nil {
		b.Fatal(err)
	}
	var size, indexes int64 // the table, its primary key and block indexes; the indexes alone
	if err := p.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass), pg_indexes_size($1::regclass)", det.table).Scan(&size, &indexes); err != nil {
		b.Fatal(err)
	}
	perPage := float64(size) / float64(len(rows))
	indexPerPage := float64(indexes) / float64(len(rows))
	// runs numbers the sub-benchmarks' runs (-count, and the probe of
	// one iteration before each), so that every run offers new IDs and,
	// through Throughput's seed, new fingerprints.
	runs := 0
	prefix := func(what string) string { runs++; return fmt.Sprint(what, "-", runs) }
	b.Run("Match", func(b *testing.B) {
		benchtest.Latency(b, r, prefix("match"), func(d *neardup.Document) error {
			_, err := det.Match(ctx, d)
			return err
		})
		b.ReportMetric(perPage, "pg-B/page")
		b.ReportMetric(indexPerPage, "pg-index-B/page")
	})
	b.Run("MatchOrAdd", func(b *testing.B) {
		var lsn string // where the WAL was before the calls
		if err := p.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
			b.Fatal(err)
		}
		benchtest.Latency(b, r, prefix("add"), func(d *neardup.Document) error {
			_, _, err := det.MatchOrAdd(ctx, d)
			return err
		})
		var wal float64 // the WAL the calls wrote (the benchmark's other work writes none)
		if err := p.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8", lsn).Scan(&wal); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(wal/float64(b.N), "WAL-B/add")
	})
	for clients := 1; clients <= 4; clients++ {
		b.Run(fmt.Sprint("clients=", clients), func(b *testing.B) {
			dets := make([]detectortest.FleetDetector, clients)
			for i := range dets {
				d, err := New(ctx, Options{Pool: pool(b, 1), Table: det.table})
				if err != nil {
					b.Fatal(err)
				}
				dets[i] = d
			}
			benchtest.Throughput(b, dets, prefix(fmt.Sprint("client-", clients)))
		})
	}
}
