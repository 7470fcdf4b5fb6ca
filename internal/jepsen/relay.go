package jepsen

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Relay forwards loopback TCP connections to a target address, and can hold
// back what the target sends (a replica's replication link kept behind its
// primary), cut every connection losing what it held, and send new
// connections to another target (a failover on one server, where the
// clients' address stays the same).
type Relay struct {
	ln net.Listener

	mu     sync.Mutex
	cond   *sync.Cond
	target string
	held   bool
	cut    int // bumped by Cut: forwarders of an older generation drop what they hold
	conns  map[net.Conn]int
	wg     sync.WaitGroup
}

// StartRelay starts a Relay to target; it stops when the test ends.
func StartRelay(t testing.TB, target string) *Relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{ln: ln, target: target, conns: map[net.Conn]int{}}
	r.cond = sync.NewCond(&r.mu)
	r.wg.Add(1)
	go r.accept()
	t.Cleanup(r.close)
	return r
}

// Addr returns the relay's address.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// Hold stops forwarding what the target sends until Release or Cut: it
// stays in the relay's buffer and, once that is full, in the target's.
func (r *Relay) Hold() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = true
}

// Release forwards what was held and goes on forwarding.
func (r *Relay) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = false
	r.cond.Broadcast()
}

// Cut closes every connection, dropping what was held, and sends the
// connections made from now on to target ("" keeps the target).
func (r *Relay) Cut(target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if target != "" {
		r.target = target
	}
	r.cut++
	r.held = false
	for c := range r.conns {
		c.Close()
	}
	clear(r.conns)
	r.cond.Broadcast()
}

func (r *Relay) close() {
	r.ln.Close()
	r.Cut("")
	r.wg.Wait()
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		target, gen := r.target, r.cut
		r.mu.Unlock()
		s, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			continue
		}
		r.mu.Lock()
		if gen != r.cut {
			r.mu.Unlock()
			c.Close()
			s.Close()
			continue
		}
		r.conns[c], r.conns[s] = gen, gen
		r.mu.Unlock()
		r.wg.Add(2)
		go func() { // to the target: never held
			defer r.wg.Done()
			io.Copy(s, c)
			c.Close()
			s.Close()
		}()
		go func() { // from the target: held while Hold is on
			defer r.wg.Done()
			defer c.Close()
			defer s.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := s.Read(buf)
				if n > 0 {
					r.mu.Lock()
					for r.held && r.cut == gen {
						r.cond.Wait()
					}
					stale := r.cut != gen
					r.mu.Unlock()
					if stale {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}
