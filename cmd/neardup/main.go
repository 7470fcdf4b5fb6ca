package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/editdist"
	"github.com/neardup/neardup/minhash"
	"github.com/neardup/neardup/preprocess"
	"github.com/neardup/neardup/shingle"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/ssm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// cli runs the command and returns its exit status: 0 when run succeeds, 2
// for a mistake in the command line (a wrong flag or flag value, no PATH),
// 1 for any other failure. Each line of the error is written to stderr
// after one "neardup: " prefix.
func cli(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdin, stdout, stderr)
	if err == nil {
		return 0
	}
	for _, line := range strings.Split(plain(err), "\n") {
		fmt.Fprintln(stderr, "neardup:", line)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "neardup -h lists the flags")
		return 2
	}
	return 1
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef is a usageError.
func usagef(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

// config is what the flags set.
type config struct {
	Method   string
	Format   string
	Groups   bool
	State    string
	Out      string
	Manifest string
	Workers  int
	MaxBytes int64
	Progress string
	Verbose  bool
	Paths    []string
}

const usage = `usage: neardup [flags] PATH... [flags]

PATH is a file, a folder (walked in lexical order, its files that are not
pages by their names skipped), a glob pattern or - for standard input. Each file's format is found from its content: a WARC file, a
JSON Lines file (one page an object), or one HTML or text page, each maybe
gzip-compressed. Near-duplicates go to standard output as they are found.

flags:
`

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fl := flag.NewFlagSet("neardup", flag.ContinueOnError)
	// The flag package's own messages are not written: a mistake is
	// returned as a usageError, which cli writes once, and -h writes the
	// usage.
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	fl.StringVar(&c.Method, "method", "minhash", "detector: minhash (MinHash sketches of content and page with per-host templates; \"recommended\" is another name for it), shingle (normalized multiple k-shingles), simhash (64-bit SimHash, T_B = 8), ssm (top-10 keyword similarity score), editdist (Chinese: the character before each 。) or editdist-latin (the word before each . ! ?)")
	fl.StringVar(&c.Format, "format", "jsonl", "near-duplicates on standard output as jsonl or csv")
	fl.BoolVar(&c.Groups, "groups", false, "write one line per group (a kept page and all its near-duplicates) at the end, instead of one line per near-duplicate as it is found")
	fl.StringVar(&c.State, "state", "", "keep the detector's state in this file: loaded at the start, saved at the end (and on interrupt) unless an input failed; a page kept under the same id by an earlier run and unchanged is \"known\"")
	fl.StringVar(&c.Out, "out", "", "write the deduplicated pages (every page kept or known) to this file: WARC when its name ends in .warc or .warc.gz, JSON Lines otherwise; gzip-compressed when it ends in .gz")
	fl.StringVar(&c.Manifest, "manifest", "", "TSV file with \"file\" and \"url\" columns giving the URL of each file of a folder")
	fl.IntVar(&c.Workers, "workers", runtime.GOMAXPROCS(0), "goroutines reading and preprocessing pages")
	fl.Int64Var(&c.MaxBytes, "maxbytes", preprocess.DefaultMaxBytes, "largest page, in bytes (larger pages are refused)")
	fl.StringVar(&c.Progress, "progress", "auto", "progress on standard error: auto (a bar when standard error is a terminal), bar, lines (one line every 2s, for logs) or none")
	fl.BoolVar(&c.Verbose, "v", false, "print every page's verdict on standard error")
	// Flags may follow the paths (neardup pages.jsonl -format csv): the
	// arguments are parsed again after each run of paths. After "--" every
	// argument is a path, so a file named -x is -- -x (or ./-x).
	rest := args
	for {
		if err := fl.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stderr, usage)
				fl.SetOutput(stderr)
				fl.PrintDefaults()
				return c, err
			}
			return c, &usageError{err}
		}
		next := fl.Args()
		if consumed := len(rest) - len(next); consumed > 0 && rest[consumed-1] == "--" {
			c.Paths = append(c.Paths, next...)
			break
		}
		i := 0
		for i < len(next) && !isFlag(next[i]) {
			i++
		}
		c.Paths = append(c.Paths, next[:i]...)
		if i == len(next) {
			break
		}
		rest = next[i:]
	}
	switch {
	case len(c.Paths) == 0:
		return c, usagef("no input: give files, folders, patterns or - (standard input)")
	case c.Workers < 1:
		return c, usagef("-workers must be at least 1")
	case c.MaxBytes < 1 || c.MaxBytes > 1<<30:
		return c, usagef("-maxbytes must be in [1, 1<<30]")
	case c.Format != "jsonl" && c.Format != "csv":
		return c, usagef("-format %q: want jsonl or csv", c.Format)
	case c.Progress != "auto" && c.Progress != "bar" && c.Progress != "lines" && c.Progress != "none":
		return c, usagef("-progress %q: want auto, bar, lines or none", c.Progress)
	}
	if _, err := newDetector(c.Method); err != nil {
		return c, err
	}
	return c, nil
}

// isFlag reports whether a command-line argument is a flag: "-" alone is
// standard input.
func isFlag(arg string) bool { return len(arg) > 1 && arg[0] == '-' }

// detector is what the command needs of a detector.
type detector interface {
	neardup.Detector
	neardup.Replacer
	neardup.Verifier
	neardup.Persister
}

// newMinhash makes the default detector.
func newMinhash() (detector, error) {
	return minhash.New(minhash.Options{})
}

func newDetector(method string) (detector, error) {
	switch method {
	case "minhash", "recommended":
		return newMinhash()
	case "shingle":
		return shingle.New(shingle.Options{})
	case "simhash":
		return simhash.New(simhash.Options{})
	case "ssm":
		return ssm.New(ssm.Options{})
	case "editdist":
		return editdist.New(editdist.Options{})
	case "editdist-latin":
		return editdist.New(editdist.Options{Extractor: editdist.Latin()})
	}
	return nil, usagef("-method %q: want minhash, shingle, simhash, ssm, editdist or editdist-latin", method)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// run is the command: it returns nil when every input was read and every
// output written. When an input failed it still judges the others, then
// returns an error without saving the state or the -out file.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	det, err := newDetector(c.Method)
	if err != nil {
		return err
	}
	pipe, err := preprocess.New(preprocess.Options{MaxBytes: int(c.MaxBytes)})
	if err != nil {
		return err
	}
	ro := readOptions{MaxBytes: c.MaxBytes, Stdin: stdin, Read: new(atomic.Int64)}
	// The command's own files are not pages of a folder it reads.
	skip := make(map[string]bool)
	for _, p := range []string{c.Manifest, c.State, c.Out} {
		if abs, err := filepath.Abs(p); p != "" && err == nil {
			skip[abs] = true
		}
	}
	if c.Manifest != "" {
		if ro.URLs, err = readManifest(c.Manifest); err != nil {
			return fmt.Errorf("-manifest %s: %w", c.Manifest, err)
		}
	}
	// Every path is checked before any page is judged: a mistyped one
	// fails the run at once, and no state is written.
	srcs, err := expand(c.Paths, skip)
	if err != nil {
		return err
	}
	// The state records the preprocessing its features came from.
	saved := neardup.WithSettings(det, pipe.Settings())
	if c.State != "" {
		switch err := neardup.LoadFile(c.State, saved); {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(stderr, "no state in %s yet: starting empty\n", c.State)
		case err != nil:
			return fmt.Errorf("-state %s: %w", c.State, err)
		default:
			fmt.Fprintf(stderr, "loaded the state in %s\n", c.State)
		}
	}
	var out *pageWriter
	if c.Out != "" {
		if out, err = createPageWriter(c.Out); err != nil {
			return err
		}
		defer out.abort() // a no-op once committed
	}
	em := newEmitter(stdout, c.Format, c.Groups)
	mode := c.Progress
	if mode == "auto" {
		mode = "none"
		if isTerminal(stderr) {
			mode = "bar"
		}
	}
	prog := newProgress(mode, stderr, srcs, ro.Read)
	// Messages during the run go below the progress bar, never after it.
	d := &deduper{det: det, pipe: pipe, workers: c.Workers, verbose: c.Verbose, log: prog,
		emit: em, out: out, ids: make(map[string]string)}
	runErr := d.run(ctx, inputs(srcs, ro), prog)
	if err := em.close(); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("writing the near-duplicates: %w", err))
	}
	fmt.Fprintln(stderr, d.summary())
	if d.failed > 0 {
		// What was judged after a broken input may be judged again once it
		// is fixed: nothing of this run is kept.
		msg := fmt.Sprintf("%d inputs failed", d.failed)
		if c.State != "" {
			msg += "; the state was not saved"
		}
		if out != nil {
			msg += "; no -out file was written"
		}
		return errors.Join(runErr, errors.New(msg))
	}
	if runErr == nil && d.pages == 0 {
		// Nothing to deduplicate is a mistake (an empty or wrong folder,
		// files that are not pages): nothing is saved or written.
		return fmt.Errorf("%w: %s", errNoPages, d.noPages(len(srcs)))
	}
	if out != nil {
		if err := out.commit(); err != nil {
			return errors.Join(runErr, err)
		}
	}
	if c.State != "" {
		// Saved on interrupt too: what was kept so far stays kept.
		if err := saveState(c.State, saved); err != nil {
			return errors.Join(runErr, fmt.Errorf("-state %s: %w", c.State, err))
		}
		fmt.Fprintf(stderr, "saved the state in %s\n", c.State)
	}
	return runErr
}
