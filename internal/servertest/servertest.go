// Package servertest starts the servers the fleet backends' tests run
// against — a Redis server, a Redis Cluster, a replica, a proxy that drops
// and delays replies — and stops a test that needs a server it cannot
// have (Unavailable), as net/http/httptest starts an HTTP server.
package servertest

import (
	"os"
	"strings"
	"testing"
)

// Unavailable stops a test that needs the server named (a program such as
// "redis-server" or "postgresql") and cannot have it here, for the reason
// why. It skips the test, saying why and how to run it, unless the
// environment variable NEARDUP_REQUIRE_SERVERS lists the server (.ci/run sets
// it for every server it has installed), in which case the test fails.
func Unavailable(t testing.TB, server, why string) {
	t.Helper()
	for _, s := range strings.Split(os.Getenv("NEARDUP_REQUIRE_SERVERS"), ",") {
		if strings.TrimSpace(s) == server {
			t.Fatalf("%s is required here (NEARDUP_REQUIRE_SERVERS) but unavailable: %s", server, why)
		}
	}
	t.Skipf("needs %s, unavailable here: %s (install it to run this test; .ci/run does, and then requires it)", server, why)
}
