package redisindex

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	"github.com/neardup/neardup/internal/servertest"
)

// aofServer is a redis-server of its own with the append-only file on and
// fsynced before every reply (appendfsync always), in a temporary directory,
// that a test can kill (SIGKILL) and start again on the same port.
type aofServer struct {
	t    *testing.T
	path string
	dir  string
	port int
	cmd  *exec.Cmd
}

func startAOF(t *testing.T) *aofServer {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		servertest.Unavailable(t, "redis-server", "redis-server is not on PATH")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		servertest.Unavailable(t, "redis-server", "no free loopback port: "+err.Error())
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &aofServer{t: t, path: path, dir: t.TempDir(), port: port}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *aofServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

func (s *aofServer) start() {
	s.cmd = exec.Command(s.path, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "always")
	if err := s.cmd.Start(); err != nil {
		servertest.Unavailable(s.t, "redis-server", "starting redis-server: "+err.Error())
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr()})
	defer c.Close()
	for range 250 {
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatal("redis-server did not answer after a start")
}

func (s *aofServer) kill() {
	if s.cmd != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Four clients race MatchOrAdd over near-duplicate groups while the server,
// with appendfsync always, is killed and started again three times: every
// page a client was told it added is kept after the restarts, no client is
// told its page is a near-duplicate of itself or a duplicate ID, and every
// group keeps exactly one page. Calls that fail while the server is down
// (300 ms, beyond the clients' retries) are errors whose outcome the client
// does not know, never verdicts.
func TestKillRestartAOF(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: kills redis-server three times and waits for each restart under load; run without -short to check that no page reported added is lost")
	}
	s := startAOF(t)
	groups := detectortest.Groups(t, nil, detectortest.GroupSpec{Seed: 31, Groups: 48, Members: 4})
	prefix := "kill"
	newDet := func() *Detector {
		c := redis.NewClient(&redis.Options{Addr: s.addr(), PoolSize: 4, MaxRetries: 2,
			DialTimeout: 100 * time.Millisecond, ReadTimeout: time.Second, MaxRetryBackoff: 50 * time.Millisecond})
		t.Cleanup(func() { c.Close() })
		det, err := New(Options{Client: c, Prefix: prefix, MaxDistance: 6})
		if err != nil {
			t.Fatal(err)
		}
		return det
	}
	var failed, calls atomic.Int64
	stop := make(chan struct{})
	var clients []detectortest.Offer
	for w := range 4 {
		det := newDet()
		clients = append(clients, func(_ int, doc *neardup.Document) bool {
			calls.Add(1)
			ms, ok, err := det.MatchOrAdd(t.Context(), doc)
			if errors.Is(err, neardup.ErrDuplicateID) {
				t.Errorf("client %d: %s: %v", w, doc.ID, err)
			}
			if err != nil {
				failed.Add(1)
				return false
			}
			detectortest.NotSelf(t, w, doc, ms)
			time.Sleep(2 * time.Millisecond)
			return ok
		})
	}
	race := make(chan map[string]bool)
	go func() { race <- detectortest.Race(groups, 0, stop, clients) }()
	for range 3 {
		time.Sleep(60 * time.Millisecond)
		s.kill()
		time.Sleep(300 * time.Millisecond)
		s.start()
	}
	time.Sleep(150 * time.Millisecond)
	close(stop)
	added := <-race
	t.Logf("%d calls, %d failed while the server was down, %d pages reported added", calls.Load(), failed.Load(), len(added))
	det := newDet()
	for id := range added {
		if _, ok, err := det.Lookup(context.Background(), id); err != nil || !ok {
			t.Errorf("%s was reported added but is not kept after the restarts (%v)", id, err)
		}
	}
	for gi, g := range groups {
		if ms, err := det.Match(t.Context(), g[0]); err != nil || len(ms) != 1 {
			t.Errorf("group %d: %v kept (%v), want exactly one", gi, ms, err)
		}
	}
}
