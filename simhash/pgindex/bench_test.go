package pgindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
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

// BenchmarkPostgres100k: 100,000 kept fingerprints in a throw-away local
// PostgreSQL (fsync off, client and server on the same cores), k = 3; the
// latency of Match and of MatchOrAdd of new random fingerprints, p50 and
// p99 over the run.
//
//	go test -run='^$' -bench=Postgres100k -benchtime=2000x ./simhash/pgindex/
func BenchmarkPostgres100k(b *testing.B) {
	p := pool(b, 4)
	ctx := context.Background()
	det, err := New(ctx, Options{Pool: p, Table: table(b)})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(100, 1))
	rows := make([][]any, 100_000)
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
		})
	}
}
