package doccheck_test

import (
	"fmt"
	"os"

	"github.com/neardup/neardup/internal/doccheck"
)

func writeExample(dir string) error {
	return os.WriteFile(dir+"/p.go", []byte(`// Package p answers in 3 ms on a Xeon.
package p
`), 0o644)
}

func Example() {
	dir, err := os.MkdirTemp("", "doccheck")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := writeExample(dir); err != nil {
		fmt.Println(err)
		return
	}
	problems, err := doccheck.Check(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// p.go:1: timing: // Package p answers in 3 ms on a Xeon.
	// p.go:1: machine: // Package p answers in 3 ms on a Xeon.
}
