package servertest

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StartCluster starts a Redis Cluster on loopback of primaries primary
// nodes, each with replicas replicas (no persistence, configuration in a
// temporary directory), and returns the primaries' and replicas' addresses
// (redis-cli --cluster create's order: primaries first). Its node timeout
// is five seconds, long enough for a loaded machine not to take a slow node
// for a failed one (a failover test lowers it: NodeTimeout). The nodes stop
// when the test ends. When redis-server or redis-cli is missing or the
// cluster cannot be formed, the server is unavailable (Unavailable).
func StartCluster(t testing.TB, primaries, replicas int) []string {
	t.Helper()
	server, err := exec.LookPath("redis-server")
	if err != nil {
		Unavailable(t, "redis-server", "redis-server is not on PATH")
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		Unavailable(t, "redis-server", "redis-cli (Debian's redis-tools, a dependency of redis-server) is not on PATH")
	}
	dir := t.TempDir()
	n := primaries * (1 + replicas)
	var addrs []string
	for try := 0; len(addrs) < n && try < 200; try++ {
		port, ok := freePortPair() // a node also listens on port + 10000 (the bus)
		if !ok {
			continue
		}
		p := strconv.Itoa(port)
		cmd := exec.Command(server, "--port", p, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+p+".conf", "--cluster-node-timeout", "5000",
			"--repl-diskless-sync-delay", "0", "--dir", dir)
		if err := cmd.Start(); err != nil {
			Unavailable(t, "redis-server", "starting a cluster node: "+err.Error())
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		addrs = append(addrs, "127.0.0.1:"+p)
	}
	if len(addrs) < n {
		Unavailable(t, "redis-server", fmt.Sprintf("no %d free loopback ports p with p+10000 free too", n))
	}
	for _, a := range addrs {
		ok := false
		for range 100 {
			if ok = ping(a); ok {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !ok {
			Unavailable(t, "redis-server", "cluster node "+a+" did not answer")
		}
	}
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		Unavailable(t, "redis-server", fmt.Sprintf("redis-cli --cluster create: %v\n%s", err, out))
	}
	for _, a := range addrs {
		ok := false
		for range 400 {
			if ok = strings.Contains(command(a, "CLUSTER INFO"), "cluster_state:ok"); ok {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if !ok {
			Unavailable(t, "redis-server", "cluster node "+a+" never reported cluster_state:ok")
		}
	}
	// A replica that has not synchronised with its primary cannot take over
	// from it: wait until every replica's link is up.
	for _, a := range addrs {
		ok := false
		for range 400 {
			info := command(a, "INFO replication")
			if ok = strings.Contains(info, "role:master") || strings.Contains(info, "master_link_status:up"); ok {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if !ok {
			Unavailable(t, "redis-server", "cluster replica "+a+" never synchronised with its primary")
		}
	}
	return addrs
}

// NodeTimeout sets the cluster-node-timeout of every node at addrs (a
// failover test lowers it, so that a replica takes over soon).
func NodeTimeout(t testing.TB, addrs []string, d time.Duration) {
	t.Helper()
	for _, a := range addrs {
		if r := command(a, fmt.Sprintf("CONFIG SET cluster-node-timeout %d", d.Milliseconds())); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET cluster-node-timeout on %s: %q", a, r)
		}
	}
}

// Kill kills the redis-server at addr (SIGKILL), found by the process ID it
// reports.
func Kill(t testing.TB, addr string) {
	t.Helper()
	Stop(t, addr)(syscall.SIGKILL)
}

// Stop stops the redis-server at addr (SIGSTOP), found by the process ID it
// reports, and returns what sends it a signal later: SIGCONT to let it go
// on, SIGKILL to kill it.
func Stop(t testing.TB, addr string) (signal func(syscall.Signal)) {
	t.Helper()
	for line := range strings.Lines(command(addr, "INFO server")) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			signal = func(s syscall.Signal) {
				if err := syscall.Kill(pid, s); err != nil {
					t.Errorf("signal %v to redis-server %s: %v", s, addr, err)
				}
			}
			signal(syscall.SIGSTOP)
			return signal
		}
	}
	t.Fatalf("no process_id in INFO of %s", addr)
	return nil
}

// StartReplica starts a redis-server replicating the one at primary (as
// StartRedis does, with args, in a directory of the test's own for the
// copy it loads) and waits until its link to the primary is up and the
// primary counts it online (WAIT counts only online replicas). It fails t
// when it cannot.
func StartReplica(t testing.TB, primary string, args ...string) (addr string, stop func()) {
	t.Helper()
	host, port, _ := strings.Cut(primary, ":")
	addr, stop, why := StartRedis(append([]string{"--replicaof", host, port, "--dir", t.TempDir()}, args...)...)
	if addr == "" {
		t.Fatalf("replica of %s: %s", primary, why)
	}
	for range 250 {
		if strings.Contains(command(addr, "INFO replication"), "master_link_status:up") &&
			strings.Contains(command(primary, "INFO replication"), ",state=online,") {
			return addr, stop
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	t.Fatalf("the replica %s of %s did not link up", addr, primary)
	return "", nil
}

// freePortPair returns a loopback port that is free, as is the port 10000
// above it, which a cluster node uses for its bus.
func freePortPair() (int, bool) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, false
	}
	port := l.Addr().(*net.TCPAddr).Port
	defer l.Close()
	if port+10000 > 65535 {
		return 0, false
	}
	bus, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+10000))
	if err != nil {
		return 0, false
	}
	bus.Close()
	return port, true
}

// command sends an inline command to the server at addr and returns what it
// answers within a second ("" on any error).
func command(addr, cmd string) string {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return ""
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		return ""
	}
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		b.Write(buf[:n])
		if err != nil || complete(b.String()) {
			return b.String()
		}
	}
}

// complete reports whether s is a whole reply: a status or error line, or
// a bulk string read to its end.
func complete(s string) bool {
	line, rest, ok := strings.Cut(s, "\r\n")
	if !ok {
		return false
	}
	if line == "" || line[0] != '$' {
		return true
	}
	n, err := strconv.Atoi(line[1:])
	return err != nil || n < 0 || len(rest) >= n+2
}

// ping reports whether the server at addr answers PING (in the protocol's
// inline form, so that the library needs no Redis client).
func ping(addr string) bool {
	return command(addr, "PING") == "+PONG\r\n"
}

// StartRedis starts a redis-server on a free loopback port, without
// persistence unless args say otherwise (they are appended to its command
// line), and returns its address and what stops it. When no server can be
// started it returns "" and why (for Unavailable).
func StartRedis(args ...string) (addr string, stop func(), why string) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return "", func() {}, "redis-server is not on PATH"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", func() {}, "no free loopback port: " + err.Error()
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(path, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, args...)...)
	if err := cmd.Start(); err != nil {
		return "", func() {}, "starting redis-server: " + err.Error()
	}
	a := fmt.Sprintf("127.0.0.1:%d", port)
	for range 100 {
		if ping(a) {
			return a, func() { cmd.Process.Kill(); cmd.Wait() }, ""
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	return "", func() {}, "redis-server did not answer"
}
