package detectortest

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"time"
)

// ping reports whether the server at addr answers PING (in the protocol's
// inline form, so that the library needs no Redis client).
func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	b := make([]byte, 7)
	n, _ := io.ReadFull(c, b)
	return string(b[:n]) == "+PONG\r\n"
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
