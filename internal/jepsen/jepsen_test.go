package jepsen

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"
)

var (
	long     = flag.Bool("long", false, "run every backend × mode × ReplicaAck with every fault, not the short sample")
	duration = flag.Duration("duration", 0, "how long the clients of each scenario offer pages (default: 16 s short, 60 s long)")
	clients  = flag.Int("clients", 0, "crawler processes per scenario (default: 3 short, 6 long)")
	only     = flag.String("scenario", "", "run only the scenarios whose name matches this regular expression")
)

// TestMain runs a crawler client of the harness instead of the tests when
// ClientEnv is set (the test binary started again by Run, with ClientEnv its
// Config), and the tests otherwise.
func TestMain(m *testing.M) {
	env := os.Getenv(ClientEnv)
	if env == "" {
		os.Exit(m.Run())
	}
	var c Config
	err := json.Unmarshal([]byte(env), &c)
	if err == nil {
		err = RunClient(c, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "jepsen client:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestJepsen runs the fault scenarios and checks each (Run): no group keeps
// two pages, no verdict names the page itself, another group's page or a
// page not offered before, no page acknowledged as kept is lost with
// ReplicaAck (without it a failover's loss is counted and logged: the
// window docs/fleet.md states), every kept page is answered as its own and
// matched by a copy of its group, Len counts what is kept, and every client
// answers again after each fault heals. Each also checks that its faults
// happened (clients killed mid-call, replies dropped, failovers), so that a
// harness that injects nothing fails.
//
// Short (CI): minhash on one server with ReplicaAck through client kills and
// stops, dropped replies, a held replica and a failover; simhash spread over
// a cluster with ReplicaAck through dropped replies, a stopped replica and a
// primary killed. -long runs both backends × one server, SingleSlot and
// Spread × ReplicaAck 1 and 0, each with every fault.
func TestJepsen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the fault scenarios start servers and processes for a minute")
	}
	server := []string{KillClient, StopClient, Proxy, Delay, Lag, KillPrimary}
	cluster := []string{KillClient, StopClient, Proxy, Delay, Lag, KillPrimary, StopPrimary}
	var scenarios []Scenario
	if *long {
		for _, b := range []string{Minhash, Simhash} {
			for _, m := range []string{Server, Slot, Spread} {
				for _, ack := range []int{1, 0} {
					f := server
					if m != Server {
						f = cluster
					}
					scenarios = append(scenarios, Scenario{Backend: b, Mode: m, Ack: ack, Faults: f,
						Clients: 6, Duration: 60 * time.Second, Rounds: -1})
				}
			}
		}
	} else {
		scenarios = []Scenario{
			{Backend: Minhash, Mode: Server, Ack: 1, Faults: server, Clients: 3, Duration: 12 * time.Second},
			{Backend: Simhash, Mode: Spread, Ack: 1, Faults: []string{Proxy, Lag, KillPrimary}, Clients: 3, Duration: 12 * time.Second},
		}
	}
	var re *regexp.Regexp
	if *only != "" {
		re = regexp.MustCompile(*only)
	}
	for i, s := range scenarios {
		s.Step, s.LeaseTTL, s.Seed = 80*time.Millisecond, time.Second, uint64(41+i) // fewer pages to make under -race
		if *long {
			s.Step = 50 * time.Millisecond
		}
		if *duration > 0 {
			s.Duration = *duration
		}
		if *clients > 0 {
			s.Clients = *clients
		}
		if s.Rounds < 0 { // a round of the faults every 20 s (a cluster's takes up to 15)
			s.Rounds = max(1, int(s.Duration/(20*time.Second)))
		}
		if re != nil && !re.MatchString(s.Name()) {
			continue
		}
		t.Run(s.Name(), func(t *testing.T) {
			start := time.Now()
			r := Run(t, s)
			t.Logf("%s in %v: %v", s.Name(), time.Since(start).Round(time.Second), r)
			t.Logf("slowest to answer again: %s", r.Slowest)
			if r.LostWindow {
				t.Logf("without ReplicaAck: %d pages acknowledged as kept were lost in %d failovers, %d groups kept two pages, %d kept pages were not matched",
					r.Lost, r.Failovers, r.TwoKept, r.Unmatched)
			}
			for i, v := range r.Violations {
				if i == 20 {
					t.Errorf("... and %d more", len(r.Violations)-i)
					break
				}
				t.Error(v)
			}
			happened(t, s, r)
		})
	}
}

// happened fails t when a fault of s left no trace in r.
func happened(t *testing.T, s Scenario, r *Report) {
	t.Helper()
	want := func(fault string, n int, what string) {
		if slices.Contains(s.Faults, fault) && n == 0 {
			t.Errorf("%s: no %s", fault, what)
		}
	}
	want(KillClient, r.KilledMidCall, "client killed mid-call")
	want(StopClient, r.Stopped, "client stopped")
	want(Proxy, r.Dropped, "reply dropped")
	want(KillPrimary, r.Failovers, "failover")
	if r.Calls == 0 {
		t.Error("no verdict")
	}
	if s.Ack > 0 && slices.Contains(s.Faults, Lag) && r.Errors == 0 {
		t.Errorf("lag with ReplicaAck %d: no call failed", s.Ack)
	}
}
