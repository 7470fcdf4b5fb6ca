package jepsen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/neardup/neardup/internal/servertest"
)

// Faults a scenario injects, in the order its Faults list them, each once a
// round.
const (
	KillClient  = "kill-client"  // SIGKILL a client process just after it began a call; start it again
	StopClient  = "stop-client"  // SIGSTOP a client just after it began a call, past its leases; SIGCONT
	Proxy       = "proxy"        // drop the replies of 12 % of the commands for 2 s (DropProxy)
	Delay       = "delay"        // hold every reply for 2.5 s, past the clients' read timeout (2 s)
	Lag         = "lag"          // hold a primary's replica behind for a while (one server: its link held; cluster: SIGSTOP)
	KillPrimary = "kill-primary" // right after a lag, SIGKILL that primary: its replica takes over
	StopPrimary = "stop-primary" // SIGSTOP another primary until its replica takes over; SIGCONT
)

// Scenario is one run of the harness.
type Scenario struct {
	Backend, Mode string        // Minhash or Simhash; Server, Slot or Spread
	Ack           int           // Options.ReplicaAck of the clients
	Clients       int           // crawler processes
	Duration      time.Duration // how long the clients offer pages
	Step          time.Duration // between two groups
	LeaseTTL      time.Duration // Spread's
	Faults        []string      // in order, spread over the first 3/4 of Duration
	Rounds        int           // times the faults are injected, in turn (zero: once)
	Seed          uint64        // seeds the generated groups and the proxies' drops
}

// Name names s in test names and reports.
func (s Scenario) Name() string {
	return fmt.Sprintf("%s/%s/ack=%d/%s", s.Backend, s.Mode, s.Ack, strings.Join(s.Faults, "+"))
}

// Report is what a run measured.
type Report struct {
	Calls, Errors, GaveUp   int                      // verdicts acknowledged, calls failed, pages given up
	Killed, KilledMidCall   int                      // client processes killed, of them with a call begun and unanswered
	Stopped, StoppedMidCall int                      // client processes stopped past their leases, of them with a call begun and unanswered
	Dropped                 int                      // replies the proxies dropped
	Failovers               int                      // primaries replaced by their replicas
	Kept                    int                      // pages kept at the end
	Recovery                time.Duration            // the longest time from a fault healing to a verdict of a client (none counted past the next fault's start)
	RecoveryBy              map[string]time.Duration // Recovery after each kind of fault
	Slowest                 string                   // the client that took Recovery: its failed calls meanwhile
	Lost                    int                      // pages acknowledged as kept and gone after the faults
	TwoKept, SelfMatch      int                      // groups with two kept pages; verdicts naming the page itself
	Foreign, Unoffered      int                      // verdicts naming a page of another group, or one not offered before
	Unmatched, BadErrors    int                      // kept pages not answered as their own or not matched by a copy; ErrCorrupt, ErrDuplicateID, ErrInvalidID
	NoProgress, LenMismatch int                      // clients with no verdict after the last fault healed; Len differing from the pages kept
	LostWindow              bool                     // replication may have been lost (ReplicaAck 0 and a failover): Lost, TwoKept, Unmatched are counted, not violations
	Violations              []string                 // what broke a guarantee, one line each
}

// String formats r's counts on one line.
func (r *Report) String() string {
	return fmt.Sprintf("calls=%d errors=%d gave-up=%d killed=%d (mid-call %d) stopped=%d (mid-call %d) dropped=%d failovers=%d kept=%d recovery=%v lost=%d two-kept=%d self=%d foreign=%d unoffered=%d unmatched=%d bad-errors=%d no-progress=%d len-mismatch=%d violations=%d recovery-by-fault=%v",
		r.Calls, r.Errors, r.GaveUp, r.Killed, r.KilledMidCall, r.Stopped, r.StoppedMidCall, r.Dropped, r.Failovers, r.Kept, r.Recovery.Round(10*time.Millisecond),
		r.Lost, r.TwoKept, r.SelfMatch, r.Foreign, r.Unoffered, r.Unmatched, r.BadErrors, r.NoProgress, r.LenMismatch, len(r.Violations), r.RecoveryBy)
}

func (r *Report) violate(format string, args ...any) {
	r.Violations = append(r.Violations, fmt.Sprintf(format, args...))
}

// harness is one run: the servers, the proxies, the client processes and
// what they wrote.
type harness struct {
	t  *testing.T
	s  Scenario
	cf Config // the clients' configuration, Client and From aside

	// The clients reach each server through its DropProxy, then its relay
	// in clientRelays (one server: clientRelays[0]). The replica of one
	// server reaches its primary through replRelay.
	primary, replica string
	clientRelays     []*Relay
	replRelay        *Relay
	// A cluster: its nodes, and the directory of their files (to start a
	// killed one again).
	nodes   []string
	nodeDir string

	proxies []*servertest.DropProxy

	mu      sync.Mutex
	lines   []Line
	last    map[int]Line           // each client's last line
	waitB   map[int]chan struct{}  // closed at the client's next "B"
	procs   map[int]*clientProc    // the running process of each client
	stdin   map[int]io.WriteCloser // the standard input of each client's process: closed, it ends
	heals   []time.Time            // when each fault healed
	healOf  []string               // and which
	current string                 // the fault being injected
	began   []time.Time            // when each fault began
	ready   int                    // clients that wrote "R"
	rep     Report
}

type clientProc struct {
	cmd    *exec.Cmd
	done   chan struct{}
	stderr bytes.Buffer
}

// Run runs s: it starts the servers, the proxies and s.Clients client
// processes of the test binary (whose TestMain must run RunClient when ClientEnv
// is set), injects s.Faults, heals them, waits for the clients, and checks
// what they were told and what the repository keeps.
func Run(t *testing.T, s Scenario) *Report {
	h := &harness{t: t, s: s, last: map[int]Line{}, waitB: map[int]chan struct{}{}, procs: map[int]*clientProc{}, stdin: map[int]io.WriteCloser{}}
	begin := time.Now()
	h.start()
	groups := int((s.Duration + 10*time.Second) / s.Step)
	docs := GroupsSpec{Seed: s.Seed, Groups: groups, Members: s.Clients}.Make(t)
	t.Logf("%d groups made in %v", groups, time.Since(begin).Round(100*time.Millisecond))
	h.cf = Config{Backend: s.Backend, Mode: s.Mode, Prefix: fmt.Sprintf("jepsen-%d", time.Now().UnixNano()), Ack: s.Ack,
		Docs: filepath.Join(t.TempDir(), "groups.gob"), Step: s.Step, Patience: 20 * time.Second}
	if err := WriteGroups(h.cf.Docs, docs); err != nil {
		t.Fatal(err)
	}
	if s.Mode == Spread {
		h.cf.LeaseTTL = s.LeaseTTL
	}
	if s.Mode == Server {
		h.cf.Addrs = []string{h.primary}
		h.cf.Dial = map[string]string{h.primary: h.proxies[0].Addr()}
	} else {
		h.cf.Addrs = h.nodes
		h.cf.Dial = map[string]string{}
		for i, a := range h.nodes {
			h.cf.Dial[a] = h.proxies[i].Addr()
		}
	}
	var starts []io.WriteCloser
	t.Logf("servers up in %v", time.Since(begin).Round(100*time.Millisecond))
	for w := range s.Clients {
		starts = append(starts, h.startClient(w, 0))
	}
	// Once every client has its pages (a while under -race), they start
	// together.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		h.mu.Lock()
		ready := h.ready
		h.mu.Unlock()
		if ready == s.Clients {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d clients ready in a minute", ready, s.Clients)
		}
	}
	h.cf.Start = time.Now().Add(200 * time.Millisecond)
	for _, in := range starts {
		if _, err := fmt.Fprintln(in, h.cf.Start.Format(time.RFC3339Nano)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("servers and %d clients ready in %v", s.Clients, time.Since(begin).Round(100*time.Millisecond))
	time.Sleep(time.Until(h.cf.Start))
	faults := slices.Repeat(s.Faults, max(s.Rounds, 1))
	for i := range faults {
		time.Sleep(time.Until(h.cf.Start.Add(s.Duration * time.Duration(i+1) * 3 / time.Duration(4*len(faults)+4))))
		h.fault(faults, i)
	}
	// The clients go on for s.Duration, and at least 3 s after the last
	// fault healed and the servers are whole again (a killed node back as
	// a replica), to show they make progress (their pages last 10 s beyond
	// s.Duration).
	end := h.cf.Start.Add(s.Duration)
	if soon := time.Now().Add(3 * time.Second); soon.After(end) {
		end = soon
	}
	time.Sleep(time.Until(end))
	h.mu.Lock()
	for _, in := range h.stdin {
		in.Close()
	}
	h.mu.Unlock()
	h.waitClients()
	t.Logf("clients done %v after the start", time.Since(h.cf.Start).Round(100*time.Millisecond))
	begin = time.Now()
	h.check(docs)
	t.Logf("checked in %v", time.Since(begin).Round(100*time.Millisecond))
	return &h.rep
}

// start starts the servers and the proxies.
func (h *harness) start() {
	t := h.t
	if h.s.Mode == Server {
		var stop func()
		var why string
		h.primary, stop, why = servertest.StartRedis("--repl-diskless-sync-delay", "0", "--dir", t.TempDir(), "--appendonly", "yes", "--appendfsync", "always")
		if h.primary == "" {
			servertest.Unavailable(t, "redis-server", why)
		}
		t.Cleanup(stop)
		h.replRelay = StartRelay(t, h.primary)
		var stopReplica func()
		h.replica, stopReplica = servertest.StartReplica(t, h.replRelay.Addr(), "--repl-diskless-sync-delay", "0")
		t.Cleanup(stopReplica)
		r := StartRelay(t, h.primary)
		p := servertest.StartDropProxy(t, r.Addr())
		p.DropEvery(0)
		h.clientRelays, h.proxies = []*Relay{r}, []*servertest.DropProxy{p}
		return
	}
	h.nodes = servertest.StartCluster(t, 3, 1)
	servertest.NodeTimeout(t, h.nodes, 2*time.Second)
	c := redis.NewClient(&redis.Options{Addr: h.nodes[0]})
	defer c.Close()
	dir, err := c.ConfigGet(context.Background(), "dir").Result()
	if err != nil {
		t.Fatal(err)
	}
	h.nodeDir = dir["dir"]
	for _, a := range h.nodes {
		r := StartRelay(t, a)
		p := servertest.StartDropProxy(t, r.Addr())
		p.DropEvery(0)
		h.clientRelays, h.proxies = append(h.clientRelays, r), append(h.proxies, p)
	}
}

// startClient starts the process of client w, offering from group from,
// and returns its standard input (where the start time goes when h.cf has
// none).
func (h *harness) startClient(w, from int) io.WriteCloser {
	cf := h.cf
	cf.Client, cf.From = w, from
	b, err := json.Marshal(cf)
	if err != nil {
		h.t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.count=1")
	cmd.Env = append(os.Environ(), ClientEnv+"="+string(b))
	p := &clientProc{cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { cmd.Process.Kill(); <-p.done })
	h.mu.Lock()
	h.procs[w] = p
	h.stdin[w] = in
	h.mu.Unlock()
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			l, ok := ParseLine(sc.Text())
			if !ok {
				continue
			}
			h.mu.Lock()
			if l.Kind == "R" {
				h.ready++
			}
			h.lines = append(h.lines, l)
			h.last[w] = l
			if ch := h.waitB[w]; ch != nil && l.Kind == "B" {
				close(ch)
				delete(h.waitB, w)
			}
			h.mu.Unlock()
		}
		cmd.Wait()
	}()
	return in
}

// midCall waits (at most 5 s) until client w begins a call and returns its
// process.
func (h *harness) midCall(w int) *clientProc {
	ch := make(chan struct{})
	h.mu.Lock()
	h.waitB[w] = ch
	p := h.procs[w]
	h.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		h.t.Errorf("client %d began no call in 5 s", w)
	}
	return p
}

func (h *harness) healed() {
	h.mu.Lock()
	h.heals = append(h.heals, time.Now())
	h.healOf = append(h.healOf, h.current)
	h.mu.Unlock()
}

// fault injects faults[i] and heals it.
func (h *harness) fault(faults []string, i int) {
	t, f := h.t, faults[i]
	h.mu.Lock()
	h.current = f
	h.began = append(h.began, time.Now())
	h.mu.Unlock()
	w := i % h.s.Clients
	switch f {
	case KillClient:
		// A kill lands mid-call or just after the call answered; kill
		// (and start again) until one lands mid-call, at most 10.
		for range 10 {
			p := h.midCall(w)
			p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.done
			h.mu.Lock()
			last := h.last[w]
			h.rep.Killed++
			mid := last.Kind == "B"
			if mid {
				h.rep.KilledMidCall++
			}
			h.mu.Unlock()
			h.startClient(w, last.Group) // it offers the page it was offering again
			if mid {
				break
			}
		}
		h.healed()
	case StopClient:
		p := h.midCall(w)
		p.cmd.Process.Signal(syscall.SIGSTOP)
		time.Sleep(2*max(h.s.LeaseTTL, time.Second) + 200*time.Millisecond)
		h.mu.Lock()
		if h.last[w].Kind == "B" { // what it wrote before it stopped has been read
			h.rep.StoppedMidCall++
		}
		h.mu.Unlock()
		p.cmd.Process.Signal(syscall.SIGCONT)
		h.mu.Lock()
		h.rep.Stopped++
		h.mu.Unlock()
		h.healed()
	case Proxy:
		for j, p := range h.proxies {
			p.DropRate(0.12, h.s.Seed*100+uint64(j))
		}
		time.Sleep(2 * time.Second)
		for j, p := range h.proxies {
			p.DropRate(0, uint64(j))
		}
		h.healed()
	case Delay:
		for _, r := range h.clientRelays {
			r.Hold()
		}
		time.Sleep(2500 * time.Millisecond)
		for _, r := range h.clientRelays {
			r.Release()
		}
		h.healed()
	case Lag:
		if h.s.Mode == Server {
			h.replRelay.Hold()
			time.Sleep(1500 * time.Millisecond)
			if next(faults, i) == KillPrimary {
				h.failoverServer() // with the replica behind
				return
			}
			h.replRelay.Release()
		} else {
			primary, replica := h.shard(0)
			signal := servertest.Stop(t, replica)
			time.Sleep(1500 * time.Millisecond)
			signal(syscall.SIGCONT)
			if next(faults, i) == KillPrimary {
				h.killPrimary(primary)
				return
			}
		}
		h.healed()
	case KillPrimary:
		switch {
		case prev(faults, i) == Lag: // done right after the lag
		case h.s.Mode == Server:
			h.failoverServer()
		default:
			primary, _ := h.shard(0)
			h.killPrimary(primary)
		}
	case StopPrimary:
		if h.s.Mode == Server {
			t.Fatal("stop-primary needs a cluster")
		}
		primary, _ := h.shard(1)
		signal := servertest.Stop(t, primary)
		h.awaitTakeover(primary)
		signal(syscall.SIGCONT)
		h.healed()
		h.awaitReplica(primary)
		h.rep.Failovers++
	default:
		t.Fatalf("unknown fault %q", f)
	}
}

func next(faults []string, i int) string {
	if i+1 < len(faults) {
		return faults[i+1]
	}
	return ""
}

func prev(faults []string, i int) string {
	if i > 0 {
		return faults[i-1]
	}
	return ""
}

// failoverServer kills the one server's primary with its replica's link
// held (what it did not send is lost), promotes the replica, sends the
// clients to it and starts a new replica of it (through a relay of its
// own, for the next lag).
func (h *harness) failoverServer() {
	t := h.t
	servertest.Kill(t, h.primary)
	h.replRelay.Cut("")
	c := redis.NewClient(&redis.Options{Addr: h.replica})
	defer c.Close()
	if err := c.Do(context.Background(), "REPLICAOF", "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	h.primary, h.replica = h.replica, ""
	var stop func()
	h.clientRelays[0].Cut(h.primary)
	h.healed()
	h.replRelay = StartRelay(t, h.primary)
	h.replica, stop = servertest.StartReplica(t, h.replRelay.Addr(), "--repl-diskless-sync-delay", "0")
	t.Cleanup(stop)
	h.rep.Failovers++
}

// shard returns the primary and replica of the repository's slot (Slot)
// or of the i-th shard (Spread).
func (h *harness) shard(i int) (primary, replica string) {
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: h.nodes})
	defer c.Close()
	ctx := context.Background()
	//lint:ignore SA1019 CLUSTER SLOTS still answers on Redis 7 and lists each range's primary first, which is all this reads
	slots, err := c.ClusterSlots(ctx).Result()
	if err != nil || len(slots) == 0 {
		h.t.Fatalf("CLUSTER SLOTS: %v %v", slots, err)
	}
	r := slots[i%len(slots)]
	if h.s.Mode == Slot {
		slot, err := c.ClusterKeySlot(ctx, "{"+h.cf.Prefix+"}").Result()
		if err != nil {
			h.t.Fatal(err)
		}
		for _, s := range slots {
			if int64(s.Start) <= slot && slot <= int64(s.End) {
				r = s
			}
		}
		if i > 0 { // another shard than the repository's
			for _, s := range slots {
				if s.Nodes[0].Addr != r.Nodes[0].Addr {
					r = s
					break
				}
			}
		}
	}
	if len(r.Nodes) < 2 {
		h.t.Fatalf("shard %v has no replica", r)
	}
	return r.Nodes[0].Addr, r.Nodes[1].Addr
}

// killPrimary kills a cluster primary, waits for its replica to take over,
// and starts it again (an empty node that becomes the new primary's
// replica).
func (h *harness) killPrimary(primary string) {
	servertest.Kill(h.t, primary)
	h.awaitTakeover(primary)
	h.healed()
	_, port, _ := strings.Cut(primary, ":")
	server, _ := exec.LookPath("redis-server")
	cmd := exec.Command(server, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+port+".conf", "--cluster-node-timeout", "2000",
		"--repl-diskless-sync-delay", "0", "--dir", h.nodeDir)
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	h.awaitReplica(primary)
	h.rep.Failovers++
}

// awaitTakeover waits until another node than old serves the slots old
// served.
func (h *harness) awaitTakeover(old string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		for _, a := range h.nodes {
			if a == old {
				continue
			}
			c := redis.NewClient(&redis.Options{Addr: a, DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond})
			//lint:ignore SA1019 CLUSTER SLOTS still answers on Redis 7 and lists each range's primary first, which is all this reads
			slots, err := c.ClusterSlots(context.Background()).Result()
			info, _ := c.ClusterInfo(context.Background()).Result()
			c.Close()
			if err != nil {
				continue
			}
			served := false
			for _, s := range slots {
				served = served || s.Nodes[0].Addr == old
			}
			if !served && len(slots) > 0 && strings.Contains(info, "cluster_state:ok") {
				return
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	nodes := ""
	for _, a := range h.nodes {
		if a != old {
			c := redis.NewClient(&redis.Options{Addr: a})
			nodes, _ = c.ClusterNodes(context.Background()).Result()
			c.Close()
			break
		}
	}
	h.t.Fatalf("no replica took over from %s within 60 s; the cluster's nodes:\n%s", old, nodes)
}

// awaitReplica waits until addr is a replica whose link to its primary is
// up.
func (h *harness) awaitReplica(addr string) {
	deadline := time.Now().Add(30 * time.Second)
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond})
	defer c.Close()
	for time.Now().Before(deadline) {
		info, err := c.Info(context.Background(), "replication").Result()
		if err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, "master_link_status:up") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	h.t.Fatalf("%s did not become a linked replica within 30 s", addr)
}

// waitClients waits for every client process to end (each ends after its
// last page) and fails the test for one that failed.
func (h *harness) waitClients() {
	h.mu.Lock()
	procs := make(map[int]*clientProc, len(h.procs))
	for w, p := range h.procs {
		procs[w] = p
	}
	h.mu.Unlock()
	for w, p := range procs {
		select {
		case <-p.done:
		case <-time.After(h.s.Duration + h.cf.Patience + 30*time.Second):
			h.t.Errorf("client %d did not end", w)
			p.cmd.Process.Kill()
			<-p.done
		}
		if !p.cmd.ProcessState.Success() {
			h.t.Errorf("client %d: %v\n%s", w, p.cmd.ProcessState, p.stderr.String())
		}
	}
}

// groupOf returns the group of a page ID "g<group>-m<member>".
func groupOf(id string) int {
	g, _, _ := strings.Cut(strings.TrimPrefix(id, "g"), "-")
	n, err := strconv.Atoi(g)
	if err != nil {
		return -1
	}
	return n
}
