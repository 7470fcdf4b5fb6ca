// Package pgindex keeps SimHash fingerprints in PostgreSQL, so that the
// fetchers of a crawler fleet that already run on PostgreSQL share one
// repository without another server: a page one process keeps is a
// near-duplicate for all of them, and no two processes keep two
// near-duplicates.
//
// A Detector keeps one row per page in a table of its own: the ID, the
// 64-bit fingerprint, and the fingerprint's k+1 blocks (G. S. Manku, A. Jain
// and A. Das Sarma, "Detecting Near-Duplicates for Web Crawling", WWW 2007),
// each an indexed column: two fingerprints within k bits agree exactly in at
// least one block, so a query is an OR of k+1 index lookups, and the Hamming
// distance is computed by the server (bit_count, PostgreSQL 14 or later).
//
// MatchOrAdd is one READ COMMITTED transaction (whatever the server's
// default isolation) that first takes a transaction-scoped advisory lock for
// each of the page's k+1 (block, value) pairs, in ascending order: two
// near-duplicates share a block value, so they share a lock, and the second
// one's query sees the first one's committed row. A client that dies
// mid-call leaves nothing behind (the transaction rolls back), and a lost
// connection or a timeout is an error, never a silent "new page". Such an
// error may come after the page was committed; retried, MatchOrAdd (or
// Replace) finds the page's own row and answers "added" with no matches
// (neardup.MatchAdder), never "a near-duplicate of itself". New refuses a
// repository that lost its table or its settings (neardup.ErrCorrupt). A page reported
// added survives a crash only on a server with durable commits (fsync and
// synchronous_commit on, the defaults); docs/fleet.md has the settings the
// guarantees rely on and how to size the server.
//
// Cost: a kept page is one row (its ID, 8 bytes of fingerprint and k+1
// blocks) plus an entry in each of k+2 indexes (the k+1 blocks and the
// primary key, so the ID counts twice). Match is one round trip and k+1
// index lookups; MatchOrAdd is one transaction of k+1 advisory locks, the
// same query and an insert. simhash/redisindex answers the same calls
// faster; this package is for a fleet that already runs PostgreSQL.
// docs/BENCHMARKS.md ("Fleet (simhash/pgindex)") has the measurements and
// the command that gives them.
package pgindex

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detector"
	"github.com/neardup/neardup/internal/fpblock"
	"github.com/neardup/neardup/simhash"
)

// MaxDistance is the largest k a Detector serves: k+1 blocks of at least 8
// bits.
const MaxDistance = 7

// DefaultMaxDistance is Options.MaxDistance when it is zero: 3 bits, four
// 16-bit blocks.
const DefaultMaxDistance = 3

// DefaultTimeout is Options.Timeout when it is zero.
const DefaultTimeout = 5 * time.Second

// DefaultTable is Options.Table when it is empty.
const DefaultTable = "neardup"

// ErrPostgres wraps every error of the server or the connection, so that a
// caller can tell "the database failed" from the documents' errors.
var ErrPostgres = errors.New("pgindex: postgres")

// Options configures a Detector.
type Options struct {
	// Pool is the connection pool (required). Its configuration sets the
	// connections, their timeouts and health checks.
	Pool *pgxpool.Pool
	// Table names the table (and, with suffixes, its indexes and its
	// settings table); empty means DefaultTable. Lower-case letters, digits
	// and underscores, starting with a letter, at most 40 bytes. Detectors
	// with one Table share one repository.
	Table string
	// MaxDistance is T_B, 1..MaxDistance; zero means DefaultMaxDistance,
	// simhash.Identical means T_B = 0. A table remembers the k it was made with and
	// refuses another.
	MaxDistance int
	// Timeout bounds each call within its context; zero means
	// DefaultTimeout.
	Timeout time.Duration
}

// Detector is a SimHash near-duplicate detector whose kept fingerprints live
// in a PostgreSQL table. It implements neardup.Detector, Verifier, Remover,
// MatchAdder and Replacer; Scores are Hamming distances in bits
// (simhash.Bits). It is safe for concurrent use, and across processes. Make it with New.
type Detector struct {
	opts    Options // in effect, as Options returns them
	pool    *pgxpool.Pool
	table   string
	k       int
	blocks  []fpblock.Block
	timeout time.Duration

	sqlFind, sqlVerify, sqlInsert string
}

var errNotMade = fmt.Errorf("pgindex: Detector not made by New: %w", neardup.ErrInvalidOption)

var tableName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// New returns a Detector over the table o.Table, creating it (and its
// indexes) when it does not exist. A table made with another MaxDistance is
// refused with an error wrapping neardup.ErrInvalidOption; so are options
// out of range. ctx bounds the schema statements.
func New(ctx context.Context, o Options) (*Detector, error) {
	if o.Pool == nil {
		return nil, fmt.Errorf("pgindex: New: nil Pool: %w", neardup.ErrInvalidOption)
	}
	k := o.MaxDistance
	switch {
	case k == 0:
		k = DefaultMaxDistance
	case k == simhash.Identical:
		k = 0
	case k < 0 || k > MaxDistance:
		return nil, fmt.Errorf("pgindex: New: MaxDistance %d, want simhash.Identical, 0 or 1..%d: %w", o.MaxDistance, MaxDistance, neardup.ErrInvalidOption)
	}
	if o.Table == "" {
		o.Table = DefaultTable
	}
	if !tableName.MatchString(o.Table) {
		return nil, fmt.Errorf("pgindex: New: Table %q: want lower-case letters, digits and _, from a letter, at most 40 bytes: %w", o.Table, neardup.ErrInvalidOption)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Timeout < 0 {
		return nil, fmt.Errorf("pgindex: New: negative Timeout: %w", neardup.ErrInvalidOption)
	}
	if k == 0 {
		o.MaxDistance = simhash.Identical
	} else {
		o.MaxDistance = k
	}
	det := &Detector{opts: o, pool: o.Pool, table: o.Table, k: k, timeout: o.Timeout, blocks: fpblock.Split(k)}
	det.prepare()
	if err := det.schema(ctx); err != nil {
		return nil, err
	}
	return det, nil
}

// prepare builds the statements of the table.
func (det *Detector) prepare() {
	var or, cols, vals []string
	for t := range det.blocks {
		or = append(or, fmt.Sprintf("b%d = $%d", t, t+3))
		cols = append(cols, fmt.Sprintf("b%d", t))
		vals = append(vals, fmt.Sprintf("$%d", t+3))
	}
	dist := "bit_count((fp # $1)::bit(64))"
	det.sqlFind = fmt.Sprintf("SELECT id, %s FROM %s WHERE (%s) AND %s <= $2", dist, det.table, strings.Join(or, " OR "), dist)
	det.sqlVerify = fmt.Sprintf("SELECT id, %s FROM %s WHERE id = ANY($3) AND %s <= $2", dist, det.table, dist)
	det.sqlInsert = fmt.Sprintf("INSERT INTO %s (id, fp, %s) VALUES ($1, $2, %s) ON CONFLICT (id) DO NOTHING",
		det.table, strings.Join(cols, ", "), strings.Join(vals, ", "))
}

// schema creates the table, its block indexes and its settings row when
// they do not exist, and checks that an existing table has this k.
func (det *Detector) schema(ctx context.Context) error {
	cols := []string{"id text PRIMARY KEY", "fp bigint NOT NULL"}
	for t := range det.blocks {
		cols = append(cols, fmt.Sprintf("b%d bigint NOT NULL", t))
	}
	settings := []string{
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s_settings (max_distance int NOT NULL, one bool PRIMARY KEY DEFAULT true CHECK (one))", det.table),
		fmt.Sprintf("INSERT INTO %s_settings (max_distance) VALUES (%d) ON CONFLICT (one) DO NOTHING", det.table, det.k),
	}
	stmts := []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", det.table, strings.Join(cols, ", "))}
	for t := range det.blocks {
		stmts = append(stmts, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s_b%d ON %s (b%d)", det.table, t, det.table, t))
	}
	// One process makes the schema at a time (CREATE ... IF NOT EXISTS
	// races with itself).
	tx, err := det.pool.Begin(ctx)
	if err != nil {
		return det.wrap("New", "", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", det.lockKey(-1, 0)); err != nil {
		return det.wrap("New", "", err)
	}
	// A repository is the table and its settings row, made together: with
	// neither, New makes both; with one of them only (the other dropped by
	// hand), New would make an empty repository, or forget its T_B, in
	// place of the pages kept, so it refuses.
	var hasTable, hasSettings bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL, to_regclass($2) IS NOT NULL", det.table, det.table+"_settings").Scan(&hasTable, &hasSettings); err != nil {
		return det.wrap("New", "", err)
	}
	switch {
	case hasTable && !hasSettings:
		return fmt.Errorf("pgindex: New: table %s has no table %s_settings: %w", det.table, det.table, neardup.ErrCorrupt)
	case hasSettings && !hasTable:
		return fmt.Errorf("pgindex: New: table %s_settings has no table %s: %w", det.table, det.table, neardup.ErrCorrupt)
	case !hasTable:
		for _, s := range settings {
			if _, err := tx.Exec(ctx, s); err != nil {
				return det.wrap("New", "", err)
			}
		}
	}
	var k int
	err = tx.QueryRow(ctx, fmt.Sprintf("SELECT max_distance FROM %s_settings", det.table)).Scan(&k)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("pgindex: New: table %s_settings has no row: %w", det.table, neardup.ErrCorrupt)
	}
	if err != nil {
		return det.wrap("New", "", err)
	}
	if k != det.k {
		return fmt.Errorf("pgindex: New: table %s was made with MaxDistance %d, not %d: %w", det.table, k, det.k, neardup.ErrInvalidOption)
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return det.wrap("New", "", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return det.wrap("New", "", err)
	}
	return nil
}

// Options returns the options in effect, defaults filled in and T_B = 0 as
// simhash.Identical, so that New(ctx, det.Options()) makes a detector of the
// same table with the same T_B. The zero Detector returns the zero Options.
func (det *Detector) Options() Options { return det.opts }

// values returns the k+1 block values of fp.
func (det *Detector) values(fp simhash.Fingerprint) []int64 {
	vs := make([]int64, len(det.blocks))
	for t, b := range det.blocks {
		vs[t] = int64(b.Value(uint64(fp)))
	}
	return vs
}

// lockKey is the advisory lock of block t's value v in this table (t = −1:
// the table's schema). Two keys that collide only serialize more.
func (det *Detector) lockKey(t int, v int64) int64 {
	return int64(xxhash.Sum64String(det.table + "\x00" + strconv.Itoa(t) + "\x00" + strconv.FormatInt(v, 10)))
}

func (det *Detector) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, det.timeout)
}

func (det *Detector) wrap(op, id string, err error) error {
	if id != "" {
		return fmt.Errorf("pgindex: %s %s: %w: %w", op, detector.QuoteID(id), ErrPostgres, err)
	}
	return fmt.Errorf("pgindex: %s: %w: %w", op, ErrPostgres, err)
}

// findArgs are the arguments of sqlFind for fp.
func (det *Detector) findArgs(fp simhash.Fingerprint) []any {
	args := []any{int64(fp), det.k}
	for _, v := range det.values(fp) {
		args = append(args, v)
	}
	return args
}

// collect reads (id, distance) rows into sorted Matches.
func (det *Detector) collect(rows pgx.Rows, err error) ([]neardup.Match, error) {
	if err != nil {
		return nil, err
	}
	var ms []neardup.Match
	for rows.Next() {
		var id string
		var d int
		if err := rows.Scan(&id, &d); err != nil {
			rows.Close()
			return nil, err
		}
		ms = append(ms, neardup.Match{ID: id, Score: float64(d), Measure: simhash.Bits})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	neardup.SortMatches(ms)
	return ms, nil
}

// Match returns the kept pages within T_B bits of d's fingerprint, closest
// first (ties by ID).
func (det *Detector) Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error) {
	ctx, cancel := det.ctx(ctx)
	defer cancel()
	if det.pool == nil {
		return nil, errNotMade
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, err
	}
	ms, err := det.collect(det.pool.Query(ctx, det.sqlFind, det.findArgs(fp)...))
	if err != nil {
		return nil, det.wrap("Match", d.ID, err)
	}
	return ms, nil
}

// Verify returns the candidates that are kept within T_B bits of d's
// fingerprint, closest first (ties by ID), each once, scored in bits.
func (det *Detector) Verify(ctx context.Context, d *neardup.Document, candidates []neardup.Match) ([]neardup.Match, error) {
	ctx, cancel := det.ctx(ctx)
	defer cancel()
	if det.pool == nil {
		return nil, errNotMade
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, err
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	ids := make([]string, len(candidates))
	for i, c := range candidates {
		ids[i] = c.ID
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	ms, err := det.collect(det.pool.Query(ctx, det.sqlVerify, int64(fp), det.k, ids))
	if err != nil {
		return nil, det.wrap("Verify", d.ID, err)
	}
	return ms, nil
}

// Add keeps d's fingerprint whatever is kept. An ID already kept returns an
// error wrapping neardup.ErrDuplicateID.
func (det *Detector) Add(ctx context.Context, d *neardup.Document) error {
	ctx, cancel := det.ctx(ctx)
	defer cancel()
	if det.pool == nil {
		return errNotMade
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return err
	}
	if err := detector.CheckID("pgindex", "Add", d.ID); err != nil {
		return err
	}
	tag, err := det.pool.Exec(ctx, det.sqlInsert, det.insertArgs(d.ID, fp)...)
	if err != nil {
		return det.wrap("Add", d.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgindex: Add %s: %w", detector.QuoteID(d.ID), neardup.ErrDuplicateID)
	}
	return nil
}

func (det *Detector) insertArgs(id string, fp simhash.Fingerprint) []any {
	args := []any{id, int64(fp)}
	for _, v := range det.values(fp) {
		args = append(args, v)
	}
	return args
}

// MatchOrAdd is Match, and when nothing is kept within T_B bits, Add, as
// one step across every process sharing the table: of two near-duplicates
// offered at once, anywhere, one is kept.
func (det *Detector) MatchOrAdd(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	ctx, cancel := det.ctx(ctx)
	defer cancel()
	if det.pool == nil {
		return nil, false, errNotMade
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, false, err
	}
	if err := detector.CheckID("pgindex", "MatchOrAdd", d.ID); err != nil {
		return nil, false, err
	}
	ms, added, err := det.matchOrAdd(ctx, d.ID, fp)
	if err != nil && !errors.Is(err, neardup.ErrDuplicateID) {
		return nil, false, det.wrap("MatchOrAdd", d.ID, err)
	}
	return ms, added, err
}

func (det *Detector) matchOrAdd(ctx context.Context, id string, fp simhash.Fingerprint) ([]neardup.Match, bool, error) {
	tx, err := det.begin(ctx)
	if err != nil {
		return nil, false, err
	}
	defer tx.Rollback(ctx) // after Commit, a no-op
	ms, err := det.lockFind(ctx, tx, fp)
	if err == nil && neardup.OwnPage(id, ms) {
		return nil, true, nil // its own page: nothing changes (neardup.MatchAdder)
	}
	if err != nil || len(ms) > 0 {
		return ms, false, err
	}
	tag, err := tx.Exec(ctx, det.sqlInsert, det.insertArgs(id, fp)...)
	if err != nil {
		return nil, false, err
	}
	if tag.RowsAffected() == 0 {
		return nil, false, fmt.Errorf("pgindex: MatchOrAdd %s: %w", detector.QuoteID(id), neardup.ErrDuplicateID)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Replace is MatchOrAdd for a page fetched again under a kept ID
// (neardup.Replacer): in one transaction the row kept under d.ID is deleted
// and d's fingerprint is kept unless another kept page is within T_B bits
// (then those matches are returned and d.ID is kept no more).
func (det *Detector) Replace(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error) {
	ctx, cancel := det.ctx(ctx)
	defer cancel()
	if det.pool == nil {
		return nil, false, errNotMade
	}
	fp, err := simhash.Of(d)
	if err != nil {
		return nil, false, err
	}
	if err := detector.CheckID("pgindex", "Replace", d.ID); err != nil {
		return nil, false, err
	}
	for range 3 {
		ms, kept, err := det.replace(ctx, d.ID, fp)
		if errors.Is(err, errRetry) {
			continue
		}
		if err != nil {
			return nil, false, det.wrap("Replace", d.ID, err)
		}
		return ms, kept, nil
	}
	return nil, false, det.wrap("Replace", d.ID, errRetry)
}

// errRetry reports a Replace that lost a race with another Replace of the
// same ID (its insert found the other's row, which its delete did not see).
var errRetry = errors.New("pgindex: concurrent Replace of the same ID")

func (det *Detector) replace(ctx context.Context, id string, fp simhash.Fingerprint) ([]neardup.Match, bool, error) {
	tx, err := det.begin(ctx)
	if err != nil {
		return nil, false, err
	}
	defer tx.Rollback(ctx)
	ms, err := det.lockFind(ctx, tx, fp)
	if err != nil {
		return nil, false, err
	}
	if neardup.OwnPage(id, ms) {
		return nil, true, nil // its own page: nothing changes (neardup.Replacer)
	}
	ms = slices.DeleteFunc(ms, func(m neardup.Match) bool { return m.ID == id }) // the version being replaced
	if _, err := tx.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE id = $1", det.table), id); err != nil {
		return nil, false, err
	}
	if len(ms) == 0 {
		tag, err := tx.Exec(ctx, det.sqlInsert, det.insertArgs(id, fp)...)
		if err != nil {
			return nil, false, err
		}
		if tag.RowsAffected() == 0 {
			return nil, false, errRetry
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, false, err
	}
	return ms, len(ms) == 0, nil
}

// begin starts a transaction of MatchOrAdd or Replace at READ COMMITTED,
// whatever the server's or the role's default: each statement sees the rows
// committed before it starts, so the query that follows the advisory locks
// sees the row of the rival that held them. Under REPEATABLE READ or
// SERIALIZABLE the snapshot would be taken by the first lock statement,
// before it waits, and two near-duplicates offered at once would both be
// kept (TestIsolationDefault).
func (det *Detector) begin(ctx context.Context) (pgx.Tx, error) {
	return det.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
}

// lockFind takes the advisory locks of fp's block values in tx, in
// ascending order (one order for every process: no deadlock), then finds
// the kept pages within k bits: one round trip (a pipelined batch).
func (det *Detector) lockFind(ctx context.Context, tx pgx.Tx, fp simhash.Fingerprint) ([]neardup.Match, error) {
	var locks []int64
	for t, v := range det.values(fp) {
		locks = append(locks, det.lockKey(t, v))
	}
	slices.Sort(locks)
	locks = slices.Compact(locks)
	batch := &pgx.Batch{}
	for _, l := range locks {
		batch.Queue("SELECT pg_advisory_xact_lock($1)", l)
	}
	batch.Queue(det.sqlFind, det.findArgs(fp)...)
	br := tx.SendBatch(ctx, batch)
	defer br.Close()
	for range locks {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	return det.collect(br.Query())
}

// Remove forgets id; an ID that is not kept returns an error wrapping
// neardup.ErrUnknownID.
func (det *Detector) Remove(ctx context.Context, id string) error {
	ctx, cancel := det.ctx(ctx)
	defer cancel()
	if det.pool == nil {
		return errNotMade
	}
	tag, err := det.pool.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE id = $1", det.table), id)
	if err != nil {
		return det.wrap("Remove", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgindex: Remove %s: %w", detector.QuoteID(id), neardup.ErrUnknownID)
	}
	return nil
}

// Lookup returns the fingerprint kept under id, and whether id is kept.
func (det *Detector) Lookup(ctx context.Context, id string) (simhash.Fingerprint, bool, error) {
	if det.pool == nil {
		return 0, false, errNotMade
	}
	var fp int64
	err := det.pool.QueryRow(ctx, fmt.Sprintf("SELECT fp FROM %s WHERE id = $1", det.table), id).Scan(&fp)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, det.wrap("Lookup", id, err)
	}
	return simhash.Fingerprint(fp), true, nil
}

// Len returns the number of kept pages.
func (det *Detector) Len(ctx context.Context) (int, error) {
	if det.pool == nil {
		return 0, errNotMade
	}
	var n int
	if err := det.pool.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM %s", det.table)).Scan(&n); err != nil {
		return 0, det.wrap("Len", "", err)
	}
	return n, nil
}

var (
	_ neardup.Detector   = (*Detector)(nil)
	_ neardup.Verifier   = (*Detector)(nil)
	_ neardup.Remover    = (*Detector)(nil)
	_ neardup.MatchAdder = (*Detector)(nil)
	_ neardup.Replacer   = (*Detector)(nil)
)
