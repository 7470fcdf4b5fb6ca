package pgindex

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/servertest"
	"github.com/neardup/neardup/simhash"
)

// durable starts the test server as a production server runs: fsync,
// synchronous_commit and full_page_writes on, so that a commit returns once
// its WAL is on disk. Off by default (the tests run faster without it).
//
//	go test -run='^$' -bench=Postgres10K ./simhash/pgindex/ -args -durable
var durable = flag.Bool("durable", false, "start PostgreSQL with fsync, synchronous_commit and full_page_writes on")

// dsn is the address of the PostgreSQL server TestMain starts, or "" when
// there is none (the tests then skip, saying noServer).
var dsn, noServer string

func TestMain(m *testing.M) {
	flag.Parse()
	stop := startPostgres()
	code := m.Run()
	stop()
	os.Exit(code)
}

// startPostgres starts a throw-away PostgreSQL server (initdb in a temporary
// directory, trust authentication, fsync off unless -durable) on a free
// loopback port. As
// root it runs the server as the postgres user, which the server requires.
func startPostgres() func() {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		noServer = "no PostgreSQL initdb under /usr/lib/postgresql or on PATH"
		return func() {}
	}
	bin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "pgindex-")
	if err != nil {
		noServer = "a temporary directory: " + err.Error()
		return func() {}
	}
	run := func(name string, args ...string) *exec.Cmd { return exec.Command(filepath.Join(bin, name), args...) }
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			noServer = "running as root without a postgres user: " + err.Error()
			return func() { os.RemoveAll(dir) }
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			noServer = "giving the data directory to the postgres user: " + err.Error()
			return func() { os.RemoveAll(dir) }
		}
		run = func(name string, args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := run("initdb", "-D", data, "-A", "trust", "-U", "neardup", "--no-sync").CombinedOutput(); err != nil {
		noServer = fmt.Sprintf("initdb: %v: %s", err, out)
		return func() { os.RemoveAll(dir) }
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		noServer = "no free loopback port: " + err.Error()
		return func() { os.RemoveAll(dir) }
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	durability := "off"
	if *durable {
		durability = "on"
	}
	srv := run("postgres", "-D", data, "-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
		"-c", "fsync="+durability, "-c", "synchronous_commit="+durability, "-c", "full_page_writes="+durability, "-c", "max_connections=100")
	if err := srv.Start(); err != nil {
		noServer = "starting postgres: " + err.Error()
		return func() { os.RemoveAll(dir) }
	}
	stop := func() {
		srv.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			srv.Process.Kill()
			<-done
		}
		os.RemoveAll(dir)
	}
	a := fmt.Sprintf("postgres://neardup@127.0.0.1:%d/postgres?sslmode=disable", port)
	for range 200 {
		pool, err := pgxpool.New(context.Background(), a)
		if err == nil {
			err = pool.Ping(context.Background())
			pool.Close()
		}
		if err == nil {
			dsn = a
			return stop
		}
		time.Sleep(25 * time.Millisecond)
	}
	stop()
	noServer = "postgres did not answer"
	return func() {}
}

// pool returns a pool of its own (at most size connections).
func pool(t testing.TB, size int) *pgxpool.Pool {
	t.Helper()
	if dsn == "" {
		servertest.Unavailable(t, "postgresql", noServer)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = int32(size)
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

var tables sync.Map

// table returns a table name no other test uses.
func table(t testing.TB) string {
	for i := 0; ; i++ {
		name := fmt.Sprintf("t%d_%d", time.Now().UnixNano()%1e9, i)
		if _, taken := tables.LoadOrStore(name, true); !taken {
			return name
		}
	}
}

func TestConformance(t *testing.T) {
	p := pool(t, 8)
	detectortest.Run(t, detectortest.Suite{
		New: func() (neardup.Detector, error) {
			return New(context.Background(), Options{Pool: p, Table: table(t), MaxDistance: 6})
		},
		Groups:   detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 31}),
		Measure:  "simhash-bits",
		Zero:     new(Detector),
		ZeroErrs: true,
	})
}

func TestOptions(t *testing.T) {
	p := pool(t, 2)
	ctx := context.Background()
	for _, o := range []Options{{}, {Pool: p, MaxDistance: 8}, {Pool: p, MaxDistance: -2}, {Pool: p, Table: "Bad-Name"},
		{Pool: p, Table: "x; DROP TABLE y"}, {Pool: p, Timeout: -1}} {
		if _, err := New(ctx, o); !errors.Is(err, neardup.ErrInvalidOption) {
			t.Errorf("New(%+v): err = %v, want ErrInvalidOption", o, err)
		}
	}
	name := table(t)
	if _, err := New(ctx, Options{Pool: p, Table: name, MaxDistance: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(ctx, Options{Pool: p, Table: name, MaxDistance: 3}); err != nil {
		t.Errorf("the same table again: %v", err)
	}
	if _, err := New(ctx, Options{Pool: p, Table: name, MaxDistance: 5}); !errors.Is(err, neardup.ErrInvalidOption) {
		t.Errorf("the table with another MaxDistance: err = %v, want ErrInvalidOption", err)
	}
}

// Options returns the options in effect, and New(ctx, det.Options()) makes
// the same detector: T_B = 0 comes back as simhash.Identical, not as zero
// (which would ask for the default).
func TestOptionsRoundTrip(t *testing.T) {
	p := pool(t, 2)
	ctx := context.Background()
	for _, c := range []struct{ in, want Options }{
		{Options{Pool: p, Table: table(t)}, Options{MaxDistance: DefaultMaxDistance, Timeout: DefaultTimeout}},
		{Options{Pool: p, Table: table(t), MaxDistance: simhash.Identical, Timeout: time.Second}, Options{MaxDistance: simhash.Identical, Timeout: time.Second}},
		{Options{Pool: p, Table: table(t), MaxDistance: MaxDistance}, Options{MaxDistance: MaxDistance, Timeout: DefaultTimeout}},
	} {
		if c.want.Pool == nil {
			c.want.Pool, c.want.Table = c.in.Pool, c.in.Table
		}
		det, err := New(ctx, c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := det.Options(); got != c.want {
			t.Errorf("New(%+v).Options() = %+v, want %+v", c.in, got, c.want)
		}
		again, err := New(ctx, det.Options())
		if err != nil {
			t.Fatalf("New(det.Options()) on the same table: %v", err)
		}
		if again.Options() != det.Options() || again.k != det.k || again.table != det.table {
			t.Errorf("New(%+v): round trip gives %+v (k %d), want %+v (k %d)", c.in, again.Options(), again.k, det.Options(), det.k)
		}
	}
}

// A lost connection is an error, never a new page.
func TestUnreachable(t *testing.T) {
	p := pool(t, 2)
	det, err := New(context.Background(), Options{Pool: p, Table: table(t)})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 32, Groups: 2, Members: 2})[0][0]
	ms, added, err := det.MatchOrAdd(t.Context(), d)
	if !errors.Is(err, ErrPostgres) || added || ms != nil {
		t.Errorf("MatchOrAdd on a closed pool = %v, %v, %v; want an ErrPostgres error", ms, added, err)
	}
}

// Four clients on pools of their own race MatchOrAdd over the same
// near-duplicate groups, one of them cut off mid-call again and again: every
// group ends with exactly one page kept, and every page a client was told it
// added is kept (detectortest.Fleet).
func TestFleet(t *testing.T) {
	name := table(t)
	detectortest.Fleet(t, detectortest.FleetSpec{
		New: func() detectortest.FleetDetector {
			det, err := New(context.Background(), Options{Pool: pool(t, 2), Table: name, MaxDistance: 6})
			if err != nil {
				t.Fatal(err)
			}
			return det
		},
		Kept: func(det detectortest.FleetDetector, id string) (bool, error) {
			_, ok, err := det.(*Detector).Lookup(context.Background(), id)
			return ok, err
		},
		Len:  func(det detectortest.FleetDetector) (int, error) { return det.(*Detector).Len(context.Background()) },
		Cuts: []time.Duration{0, 2 * time.Millisecond, 6 * time.Millisecond, 40 * time.Millisecond},
		Seed: 33,
	})
}

// MatchOrAdd keeps one of two near-duplicates offered at once whatever
// isolation level the server or the role sets as its default: under
// REPEATABLE READ a transaction's snapshot is taken by its first statement,
// before it waits for the advisory locks, so it would not see the row its
// rival committed meanwhile. Four clients, on connections that default to
// REPEATABLE READ, offer the same fingerprint under IDs of their own, round
// after round.
func TestIsolationDefault(t *testing.T) {
	if dsn == "" {
		servertest.Unavailable(t, "postgresql", noServer)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "repeatable read"
	cfg.MaxConns = 4
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	det, err := New(ctx, Options{Pool: p, Table: table(t)})
	if err != nil {
		t.Fatal(err)
	}
	rounds := 100
	if testing.Short() {
		rounds = 20
	}
	r := rand.New(rand.NewPCG(34, 1))
	for round := range rounds {
		fp := simhash.Fingerprint(r.Uint64())
		var wg sync.WaitGroup
		added := make([]bool, 4)
		errs := make([]error, 4)
		for w := range added {
			wg.Go(func() {
				_, added[w], errs[w] = det.matchOrAdd(ctx, fmt.Sprintf("r%d-w%d", round, w), fp)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if n := len(slices.DeleteFunc(added, func(a bool) bool { return !a })); n != 1 {
			t.Fatalf("round %d: %d of 4 clients added the same fingerprint, want 1", round, n)
		}
	}
}

// A MatchOrAdd whose reply was lost after its COMMIT, retried with
// MatchOrAdd or with Replace, is answered "added" (its own page, not "a
// near-duplicate of itself"), and the page is kept once.
func TestRetry(t *testing.T) {
	ctx := context.Background()
	det, err := New(ctx, Options{Pool: pool(t, 2), Table: table(t)})
	if err != nil {
		t.Fatal(err)
	}
	d := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 35, Groups: 1, Members: 1})[0][0]
	if _, added, err := det.MatchOrAdd(ctx, d); err != nil || !added {
		t.Fatalf("MatchOrAdd = %v, %v; want added", added, err)
	}
	// The retries of the same call.
	ms, kept, err := det.Replace(ctx, d)
	if err != nil || !kept || len(ms) != 0 {
		t.Fatalf("Replace after the committed MatchOrAdd = %v, %v, %v; want no matches, kept", ms, kept, err)
	}
	if ms, added, err := det.MatchOrAdd(ctx, d); err != nil || !added || len(ms) != 0 {
		t.Errorf("MatchOrAdd again = %v, %v, %v; want its own page: added, no matches", ms, added, err)
	}
	if n, err := det.Len(ctx); err != nil || n != 1 {
		t.Errorf("Len = %d, %v; want 1", n, err)
	}
}

// New refuses a repository that lost part of itself (its table, its
// settings table or its settings row dropped by hand) with an error
// wrapping neardup.ErrCorrupt, instead of making it again empty or with
// another T_B; a repository with neither is made anew.
func TestNewCorrupt(t *testing.T) {
	ctx := context.Background()
	p := pool(t, 2)
	for _, drop := range []string{"DROP TABLE %s", "DROP TABLE %s_settings", "DELETE FROM %s_settings"} {
		name := table(t)
		if _, err := New(ctx, Options{Pool: p, Table: name, MaxDistance: 5}); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Exec(ctx, fmt.Sprintf(drop, name)); err != nil {
			t.Fatal(err)
		}
		if _, err := New(ctx, Options{Pool: p, Table: name}); !errors.Is(err, neardup.ErrCorrupt) {
			t.Errorf("New after %q: err = %v, want ErrCorrupt", fmt.Sprintf(drop, name), err)
		}
	}
	name := table(t)
	if _, err := New(ctx, Options{Pool: p, Table: name}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Exec(ctx, fmt.Sprintf("DROP TABLE %s, %s_settings", name, name)); err != nil {
		t.Fatal(err)
	}
	if _, err := New(ctx, Options{Pool: p, Table: name}); err != nil {
		t.Errorf("New after both tables were dropped: %v, want a new repository", err)
	}
}
