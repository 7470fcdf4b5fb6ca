package pgindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/simhash"
)

// fpDoc is a document of one random term: a random fingerprint (the
// benchmark wants the cost of a call, not a match).
func fpDoc(r *rand.Rand, id string) *neardup.Document {
	return &neardup.Document{ID: id, Page: &preprocess.Page{Terms: []preprocess.Term{{Text: fmt.Sprint("t", r.Uint64()), Count: 1}}}}
}

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
	for _, op := range []string{"Match", "MatchOrAdd"} {
		b.Run(op, func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				d := fpDoc(r, fmt.Sprint(op, "-", b.N, "-", i))
				i++
				start := time.Now()
				var err error
				if op == "Match" {
					_, err = det.MatchContext(ctx, d)
				} else {
					_, _, err = det.MatchOrAddContext(ctx, d)
				}
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(perPage, "pg-B/page")
		})
	}
	for clients := 1; clients <= 4; clients++ {
		b.Run(fmt.Sprint("clients=", clients), func(b *testing.B) {
			dets := make([]*Detector, clients)
			for i := range dets {
				if dets[i], err = New(ctx, Options{Pool: pool(b, 1), Table: det.table}); err != nil {
					b.Fatal(err)
				}
			}
			per := b.N/clients + 1
			b.ResetTimer()
			var wg sync.WaitGroup
			for w, d := range dets {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rw := rand.New(rand.NewPCG(uint64(w), uint64(b.N)))
					for i := range per {
						if _, _, err := d.MatchOrAddContext(ctx, fpDoc(rw, fmt.Sprint("client-", clients, "-", b.N, "-", w, "-", i))); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(per*clients)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
