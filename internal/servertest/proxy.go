package servertest

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// DropProxy forwards loopback connections to a redis-server and drops the
// reply of every third (or DropEvery) distinct EVAL or EVALSHA command it forwards,
// closing the client's connection instead, so that the go-redis client
// retries the command after the server ran it. A command re-sent with the
// same bytes (a retry) is answered.
type DropProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	every   int     // drop the reply of every every-th command (3 unless set)
	rate    float64 // with DropRate: drop any command's reply with this probability
	rng     *rand.Rand
	evals   int                 // distinct EVAL/EVALSHA commands seen
	dropped map[[32]byte]bool   // the commands whose reply was dropped
	retried int                 // commands seen again after their reply was dropped
	conns   map[net.Conn]func() // open connections, and how to close them
	wg      sync.WaitGroup
}

// StartDropProxy starts a DropProxy to the redis-server at target; it
// stops when the test ends.
func StartDropProxy(t testing.TB, target string) *DropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &DropProxy{ln: ln, target: target, every: 3, dropped: map[[32]byte]bool{}, conns: map[net.Conn]func(){}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// DropEvery makes the proxy drop the reply of every n-th distinct script
// command from now on (every third until it is called); n < 1 drops
// none.
func (p *DropProxy) DropEvery(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.every = n
}

// DropRate makes the proxy drop the reply of every command it forwards (any
// command, a re-sent one too) with probability p, drawn from a generator
// seeded with seed, instead of every n-th script's: a fault rate per
// request.
func (p *DropProxy) DropRate(rate float64, seed uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rate, p.rng = rate, rand.New(rand.NewPCG(seed, 0x64726f70))
}

// Addr returns the proxy's address.
func (p *DropProxy) Addr() string { return p.ln.Addr().String() }

func (p *DropProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, closeConn := range p.conns {
		closeConn()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *DropProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		closeBoth := sync.OnceFunc(func() { c.Close(); s.Close() })
		p.mu.Lock()
		p.conns[c] = closeBoth
		p.mu.Unlock()
		drops := make(chan bool, 1024) // per command in order: drop its reply?
		p.wg.Add(2)
		go func() { // client -> server
			defer p.wg.Done()
			defer closeBoth()
			defer close(drops)
			r := bufio.NewReader(c)
			for {
				raw, err := readRESP(r)
				if err != nil {
					return
				}
				drops <- p.decide(raw)
				if _, err := s.Write(raw); err != nil {
					return
				}
			}
		}()
		go func() { // server -> client
			defer p.wg.Done()
			defer func() {
				closeBoth()
				p.mu.Lock()
				delete(p.conns, c)
				p.mu.Unlock()
			}()
			r := bufio.NewReader(s)
			for {
				raw, err := readRESP(r)
				if err != nil {
					return
				}
				if <-drops {
					return // the server ran the command; its reply is lost
				}
				if _, err := c.Write(raw); err != nil {
					return
				}
			}
		}()
	}
}

// decide reports whether the reply to the command raw is to be dropped.
func (p *DropProxy) decide(raw []byte) bool {
	p.mu.Lock()
	if p.rng != nil {
		defer p.mu.Unlock()
		p.evals++
		if p.rng.Float64() < p.rate {
			p.dropped[sha256.Sum256(append(raw, byte(p.evals), byte(p.evals>>8), byte(p.evals>>16)))] = true
			return true
		}
		return false
	}
	p.mu.Unlock()
	if !isEval(raw) {
		return false
	}
	sum := sha256.Sum256(raw)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dropped[sum] {
		p.retried++
		return false
	}
	p.evals++
	if p.every > 0 && p.evals%p.every == 0 {
		p.dropped[sum] = true
		return true
	}
	return false
}

// Counts returns the distinct EVAL and EVALSHA commands the proxy has
// forwarded, those whose reply it dropped, and those sent again after.
func (p *DropProxy) Counts() (evals, dropped, retried int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.evals, len(p.dropped), p.retried
}

// isEval reports whether the RESP command raw is EVAL or EVALSHA.
func isEval(raw []byte) bool {
	// *<n>\r\n$<len>\r\n<name>\r\n...
	parts := strings.SplitN(string(raw), "\r\n", 4)
	return len(parts) >= 3 && strings.HasPrefix(strings.ToUpper(parts[2]), "EVAL")
}

// readRESP reads one RESP2 or RESP3 value from r and returns its bytes.
func readRESP(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, fmt.Errorf("short RESP line %q", line)
	}
	out := line
	body := string(line[1 : len(line)-2])
	switch line[0] {
	case '+', '-', ':', '_', ',', '#', '(':
		return out, nil
	case '$', '=', '!': // bulk: <len>\r\n<bytes>\r\n
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return out, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return append(out, buf...), nil
	case '*', '~', '>', '%', '|': // aggregates of n values (maps and attributes: 2n)
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for range max(n, 0) {
			v, err := readRESP(r)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
		}
		if line[0] == '|' { // an attribute precedes the value it describes
			v, err := readRESP(r)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown RESP type %q", line[0])
}
