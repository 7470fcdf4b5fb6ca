package main

import (
	"os/exec"
	"strings"
	"testing"
)

// listDeps returns the packages evaluate builds with the given tags, as
// go list -deps names them (-e: a package not downloaded yet is named
// too).
func listDeps(t *testing.T, tags string) []string {
	t.Helper()
	// go test puts its own GOROOT's bin first on the test's PATH.
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	args := []string{"list", "-e", "-deps"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	out, err := exec.Command(gobin, append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s .: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.Fields(string(out))
}

// TestDeps: the default build (go run ./examples/evaluate) depends on no
// plotting or Redis package, and the plot and redis build tags bring
// them in (so that the check is not vacuous: the patterns name real
// packages of this module's requirements). Catches an import of either
// from a file without its build tag.
func TestDeps(t *testing.T) {
	// The modules only the plots and the Redis methods need.
	heavyDeps := []string{"gonum.org/v1/plot", "github.com/redis/go-redis"}
	for _, p := range listDeps(t, "") {
		for _, h := range heavyDeps {
			if strings.HasPrefix(p, h) {
				t.Errorf("the default build depends on %s", p)
			}
		}
	}
	tagged := strings.Join(listDeps(t, "plot,redis"), "\n")
	for _, h := range heavyDeps {
		if !strings.Contains(tagged, h) {
			t.Errorf("with -tags plot,redis, no package of %s: the build tags no longer bring it in", h)
		}
	}
}

// TestRedisMethodsNamed: the Redis methods are listed in every build;
// without the redis build tag choosing one fails saying how to build it,
// with it (and no -redis) saying that it needs a server.
func TestRedisMethodsNamed(t *testing.T) {
	dir := writeCorpus(t)
	for _, m := range []string{"minhash-redis", "minhash-redis-spread", "simhash-redis", "simhash-redis-spread"} {
		var out, errs strings.Builder
		err := run([]string{"-corpus", dir, "-methods", m}, &out, &errs)
		if err == nil || !strings.Contains(err.Error(), "go run -tags redis ./examples/evaluate") && !strings.Contains(err.Error(), "needs -redis ADDR") {
			t.Errorf("-methods %s: %v", m, err)
		}
	}
}
