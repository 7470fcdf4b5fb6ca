package jepsen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/detectortest"
	mredis "github.com/neardup/neardup/minhash/redisindex"
	"github.com/neardup/neardup/simhash"
	sredis "github.com/neardup/neardup/simhash/redisindex"
)

// Backends and modes a scenario runs.
const (
	Minhash = "minhash" // minhash/redisindex
	Simhash = "simhash" // simhash/redisindex

	Server = "server" // one redis-server (and its replica)
	Slot   = "slot"   // a Redis Cluster, Options.SingleSlot
	Spread = "spread" // a Redis Cluster, Options.Spread
)

// Config is what a crawler client process is told (as JSON in the
// environment variable ClientEnv).
type Config struct {
	Client   int               // this client's number, 0..Clients-1: it offers member Client of every group
	Backend  string            // Minhash or Simhash
	Mode     string            // Server, Slot or Spread
	Addrs    []string          // the server, or the cluster's nodes
	Dial     map[string]string // where to dial each address instead (the fault proxies)
	Prefix   string            // the repository
	Ack      int               // Options.ReplicaAck
	LeaseTTL time.Duration     // Options.LeaseTTL (Spread)
	Docs     string            // the file of the near-duplicate groups (WriteGroups)
	Start    time.Time         // when group 0 is offered; zero: read from the standard input once ready
	Step     time.Duration     // group i is offered at Start + i·Step
	From     int               // the first group this process offers (a restarted client's)
	Patience time.Duration     // how long a page is retried before the client gives up on it
}

// GroupsSpec generates the near-duplicate groups every process offers
// (detectortest.Groups; each process makes the same).
type GroupsSpec struct {
	Seed    uint64
	Groups  int
	Members int
}

// ClientEnv is the environment variable that makes the test binary a
// crawler client (TestMain, when ClientEnv is set).
const ClientEnv = "NEARDUP_JEPSEN_CLIENT"

// Make returns the groups of s: of the groups detectortest.Groups
// generates, those whose members' fingerprints are all within
// simhashDistance bits of each other (a few copies of the shorter pages
// are not), so that either backend must keep one page of each.
func (s GroupsSpec) Make(t testing.TB) [][]*neardup.Document {
	all := detectortest.Groups(t, nil, detectortest.GroupSpec{
		Seed: s.Seed, Groups: s.Groups * 3 / 2, Members: s.Members,
		Sentences: func(g int) int { return 20 + g%11 },
	})
	var groups [][]*neardup.Document
	for _, g := range all {
		if len(groups) < s.Groups && tight(t, g) {
			groups = append(groups, g)
		}
	}
	if len(groups) < s.Groups {
		t.Fatalf("jepsen: %d of %d generated groups are within %d bits", len(groups), len(all), simhashDistance)
	}
	return groups
}

// WriteGroups writes groups to the file path for ReadGroups, so that the
// client processes need not generate them again (seconds under -race).
func WriteGroups(path string, groups [][]*neardup.Document) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(groups); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// ReadGroups reads the groups WriteGroups wrote to path.
func ReadGroups(path string) ([][]*neardup.Document, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var groups [][]*neardup.Document
	err = gob.NewDecoder(bytes.NewReader(b)).Decode(&groups)
	return groups, err
}

// tight reports whether the fingerprints of g are within simhashDistance
// bits of each other.
func tight(t testing.TB, g []*neardup.Document) bool {
	fps := make([]simhash.Fingerprint, len(g))
	for i, d := range g {
		fp, err := simhash.Of(d)
		if err != nil {
			t.Fatal(err)
		}
		fps[i] = fp
		for _, o := range fps[:i] {
			if simhash.Distance(fp, o) > simhashDistance {
				return false
			}
		}
	}
	return true
}

// fleet is what the harness uses of a backend.
type fleet interface {
	MatchOrAdd(ctx context.Context, d *neardup.Document) ([]neardup.Match, bool, error)
	Match(ctx context.Context, d *neardup.Document) ([]neardup.Match, error)
	Len(ctx context.Context) (int, error)
	kept(ctx context.Context, id string) (bool, error)
}

type minhashFleet struct{ *mredis.Detector }

func (f minhashFleet) kept(ctx context.Context, id string) (bool, error) {
	return f.Contains(ctx, id)
}

type simhashFleet struct{ *sredis.Detector }

func (f simhashFleet) kept(ctx context.Context, id string) (bool, error) {
	_, ok, err := f.Lookup(ctx, id)
	return ok, err
}

// simhashDistance is the T_B of the simhash repository: the generated
// groups' copies are within it, other groups far beyond.
const simhashDistance = 6

// newFleet returns a detector of the repository c describes through
// client, with ReplicaAck ack.
func newFleet(c Config, client redis.UniversalClient, ack int) (fleet, error) {
	const replicaTimeout = 500 * time.Millisecond
	switch c.Backend {
	case Minhash:
		det, err := mredis.New(mredis.Options{Client: client, Prefix: c.Prefix, SingleSlot: c.Mode == Slot, Spread: c.Mode == Spread,
			LeaseTTL: c.LeaseTTL, ReplicaAck: ack, ReplicaTimeout: replicaTimeout})
		return minhashFleet{det}, err
	case Simhash:
		det, err := sredis.New(sredis.Options{Client: client, Prefix: c.Prefix, SingleSlot: c.Mode == Slot, Spread: c.Mode == Spread,
			MaxDistance: simhashDistance, LeaseTTL: c.LeaseTTL, ReplicaAck: ack, ReplicaTimeout: replicaTimeout})
		return simhashFleet{det}, err
	}
	return nil, fmt.Errorf("jepsen: unknown backend %q", c.Backend)
}

// newClient returns a Redis client of c's server or cluster, dialling
// through c.Dial when set.
func newClient(c Config, dial map[string]string) redis.UniversalClient {
	dialer := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if a, ok := dial[addr]; ok {
			addr = a
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	if c.Mode == Server {
		return redis.NewClient(&redis.Options{Addr: c.Addrs[0], Dialer: dialer, ReadTimeout: 2 * time.Second, PoolSize: 4})
	}
	return redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs, Dialer: dialer, ReadTimeout: 2 * time.Second, PoolSize: 4,
		ClusterStateReloadInterval: time.Second})
}

// Line is one line a client writes: ready to start ("R"), a call begun
// ("B"), its acknowledged verdict ("V"), its error ("E"), or a page given
// up ("G").
type Line struct {
	Kind    string    `json:"k"`
	Client  int       `json:"c"`
	Group   int       `json:"g"`
	ID      string    `json:"id"`
	Added   bool      `json:"a,omitempty"`
	Matches []string  `json:"m,omitempty"`
	Err     string    `json:"e,omitempty"`
	Bad     bool      `json:"bad,omitempty"` // Err wraps neardup.ErrCorrupt, ErrDuplicateID or ErrInvalidID: never right here
	Time    time.Time `json:"t"`
}

// linePrefix starts every line a client writes, so that the test binary's
// own output is told apart.
const linePrefix = "JEPSEN "

// RunClient is a crawler client: it offers member c.Client of every group
// from c.From on, group i at c.Start + i·c.Step (at once when late), each
// until a call answers or c.Patience passes (retrying a failed call with
// the same page, as a crawler does), and writes a Line to out for every
// call it begins and every answer or error it gets, as it gets it. When
// c.Start is zero it writes "R" once it has its pages and reads the start
// time from in (RFC 3339), so that the clients start together. It stops at
// the end of in, or after the last group.
func RunClient(c Config, in io.Reader, out io.Writer) error {
	groups, err := ReadGroups(c.Docs)
	if err != nil {
		return err
	}
	client := newClient(c, c.Dial)
	defer client.Close()
	det, err := newFleet(c, client, c.Ack)
	if err != nil {
		return err
	}
	var werr error // the first write's error: the harness reads out, so the client stops
	write := func(l Line) {
		l.Client, l.Time = c.Client, time.Now()
		b, _ := json.Marshal(l)
		if _, err := out.Write(append(append([]byte(linePrefix), b...), '\n')); err != nil && werr == nil {
			werr = err
		}
	}
	r := bufio.NewReader(in)
	if c.Start.IsZero() {
		write(Line{Kind: "R"})
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading the start time: %v", err)
		}
		if c.Start, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(line)); err != nil {
			return err
		}
	}
	stop := make(chan struct{}) // closed at the end of in
	go func() {
		io.Copy(io.Discard, r)
		close(stop)
	}()
	for gi := c.From; gi < len(groups); gi++ {
		select {
		case <-stop:
			return werr
		case <-time.After(time.Until(c.Start.Add(time.Duration(gi) * c.Step))):
		}
		if werr != nil {
			return werr
		}
		d := groups[gi][c.Client%len(groups[gi])]
		giveUp := time.Now().Add(c.Patience)
		for {
			write(Line{Kind: "B", Group: gi, ID: d.ID})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			ms, added, err := det.MatchOrAdd(ctx, d)
			cancel()
			if err == nil {
				ids := make([]string, len(ms))
				for i, m := range ms {
					ids[i] = m.ID
				}
				write(Line{Kind: "V", Group: gi, ID: d.ID, Added: added, Matches: ids})
				break
			}
			bad := errors.Is(err, neardup.ErrCorrupt) || errors.Is(err, neardup.ErrDuplicateID) || errors.Is(err, neardup.ErrInvalidID)
			write(Line{Kind: "E", Group: gi, ID: d.ID, Err: err.Error(), Bad: bad})
			if bad {
				break // the checker reports it; retrying gives the same
			}
			if time.Now().After(giveUp) {
				write(Line{Kind: "G", Group: gi, ID: d.ID})
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return werr
}

// ParseLine parses a line a client wrote; ok is false for any other line
// (the test binary's own output, a line cut short by a kill).
func ParseLine(s string) (l Line, ok bool) {
	s, ok = strings.CutPrefix(strings.TrimSpace(s), linePrefix)
	if !ok {
		return Line{}, false
	}
	return l, json.Unmarshal([]byte(s), &l) == nil
}
