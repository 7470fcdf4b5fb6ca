// Command neardup finds the near-duplicate pages in files, folders, JSON
// Lines and WARC files, and writes each near-duplicate as it finds it.
//
// From a clone of the repository, go run ./cmd/neardup runs it and go
// install ./cmd/neardup installs it (go install
// github.com/neardup/neardup/cmd/neardup@latest works once the module is
// published). Usage, flags before or after the paths (after -- every
// argument is a path):
//
//	neardup [flags] PATH... [flags]
//
// Examples, from a clone of the repository (the sample corpus ships in it):
//
//	neardup examples/evaluate/testdata/en-sample/pages > dups.jsonl
//	neardup -manifest examples/evaluate/testdata/en-sample/manifest.tsv \
//	        -format csv examples/evaluate/testdata/en-sample/pages > dups.csv
//	neardup -groups 'examples/evaluate/testdata/en-sample/pages/p00[0-2]*.html.gz'
//	neardup -state seen.snap -out kept.warc.gz examples/evaluate/testdata/en-sample/pages
//	neardup -state seen.snap kept.warc.gz    # again: every kept page is "known"
//	gzip -dc kept.warc.gz | neardup -        # standard input, any format
//
// # Input
//
// A PATH is a file, a folder, a glob pattern (quoted, so that the command
// expands it: filepath.Match syntax, hidden files only when the pattern
// names them) or - for standard input. Every path is checked before any
// page is judged. A folder gives its files and those below it in lexical
// order, but hidden ones and those not named as pages: a folder's file is
// read when its name ends in .html, .htm, .xhtml, .shtml, .php, .asp,
// .aspx, .jsp, .txt, .text, .json, .jsonl, .ndjson or .warc (each maybe
// followed by .gz) or has no extension; others (README.md, manifest.tsv,
// images) are skipped, and listed with -v. A file named by a PATH or a
// pattern is read whatever its name.
//
// A file's id is its path as given or as found in a folder, cleaned, with
// forward slashes: neardup pages, neardup ./pages/ and neardup
// 'pages/*.html' all give pages/p1.html, and same-named files of two
// folders are two pages. The output and -state name pages by id: to find
// its pages known, run a later run from the same folder on the same paths.
//
// A file's format is read from its content, after gzip decompression:
//
//   - a WARC file ("WARC/" first): the payload of every response record
//     with a 2xx status and an HTML or text media type (transfer and
//     content codings undone), and the block of every resource and
//     conversion record of such a type; other records are skipped. A
//     page's id is its WARC-Target-URI.
//   - JSON Lines (a '{' first): one page per line, an object with "html",
//     "text" or "content" (with "content_type"), and optionally "id" and
//     "url"; the id falls back to the url, then to FILE:LINE. A numeric id
//     is its decimal text (7, 7.0 and 0.7e1 are all 7); an object, array
//     or boolean id refuses its page.
//   - otherwise the file is one page, HTML or text as its bytes say; its URL
//     comes from -manifest (a TSV file with "file" and "url" columns). The
//     URL's host scopes the minhash detector's template model.
//
// # Verdicts
//
// Pages are preprocessed by -workers goroutines and judged in input order,
// so a run's output depends only on its input. The first page of a group
// is kept; a later page that nearly duplicates a kept one is its
// near-duplicate, judged without being offered to the detector; a page
// kept under the same id by an earlier run (-state) and unchanged is known.
// A verdict is final, so each near-duplicate is written to standard output
// as soon as it is judged, flushed:
//
//	{"kept":ID,"duplicate":ID,"distance":D,"measure":M}
//
// or with -format csv one "kept,duplicate,distance,measure" row. With
// -groups, one line per kept page that has near-duplicates is written at
// the end instead ({"kept":ID,"duplicates":[{"id":ID,"distance":D,
// "measure":M},...]}). Distances are rounded to 3 decimals; lower is
// closer.
//
// -out FILE writes the pages kept or known: as WARC when FILE ends in
// .warc or .warc.gz (the records as read, or resource records), as JSON
// Lines otherwise, gzip-compressed when FILE ends in .gz. A new -out or
// -state file gets mode 0666 less the umask, as os.Create gives; one that
// exists keeps its mode.
//
// # Errors and exit status
//
// A page that cannot be judged (no text, not text, above -maxbytes, an
// unsupported content coding, a bad JSON id) is refused: reported on
// standard error, and the run goes on. An input that cannot be read (a
// missing or unreadable path, a pattern that matches nothing, a WARC record
// or JSON line cut short or malformed, a file holding only the first bytes
// of "WARC/" or of gzip's magic number, truncated or corrupt gzip data, an
// id used twice) fails the run: each is reported with its file and the
// byte offset where the data is wrong (none for a missing file); the other
// inputs are still judged, and the command exits with status 1 without
// writing -state or -out. So does a run that judges no page (an empty
// folder, no file named as a page, every page refused), saying "no pages"
// and why. An interrupt (^C) saves what was judged so far and exits with
// status 1. A mistake in the command line (an unknown flag, a bad value,
// no PATH) exits with status 2; -h prints the flags and exits with 0. Each
// message has one prefix: "neardup: ", "refused ID (WHERE): " or "error: ".
//
// Progress goes to standard error on a terminal, or with -progress bar or
// lines; a message clears the bar first. A summary line ends every run.
package main
