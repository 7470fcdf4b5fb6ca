package pgindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/simhash"
)

// BenchmarkPostgres1M: 1,000,000 kept fingerprints in a throw-away local
// PostgreSQL (fsync off, client and server on the same cores), k = 3; the
// latency of Match and of MatchOrAdd of new random fingerprints (p50 and
// p99 over the run, one client), and the MatchOrAdd calls per second of 1
// to 4 clients on pools of their own.
//
//	go test -run='^$' -bench=Postgres1M -benchtime=2000x ./simhash/pgindex/
func BenchmarkPostgres1M(b *testing.B) {
	p := pool(b, 4)
	ctx := context.Background()
	det, err := New(ctx, Options{Pool: p, Table: table(b)})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(100, 1))
	rows := make([][]any, 1_000_000)
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
	var size int64 // the table, its primary key and block indexes
	if err := p.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass)", det.table).Scan(&size); err != nil {
		b.Fatal(err)
	}
	perPage := float64(size) / float64(len(rows))
	b.Run("Match", func(b *testing.B) {
		detectortest.Latency(b, r, fmt.Sprint("match-", b.N), func(d *neardup.Document) error {
			_, err := det.MatchContext(ctx, d)
			return err
		})
		b.ReportMetric(perPage, "pg-B/page")
	})
	b.Run("MatchOrAdd", func(b *testing.B) {
		detectortest.Latency(b, r, fmt.Sprint("add-", b.N), func(d *neardup.Document) error {
			_, _, err := det.MatchOrAddContext(ctx, d)
			return err
		})
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
			detectortest.Throughput(b, dets, fmt.Sprint("client-", clients, "-", b.N))
		})
	}
}
