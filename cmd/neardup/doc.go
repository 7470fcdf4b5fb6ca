// Command neardup finds the near-duplicate pages in files, folders, JSON
// Lines and WARC files, and writes each near-duplicate as it finds it.
//
// Install it with
//
//	go install github.com/neardup/neardup/cmd/neardup@latest
//
// Usage:
//
//	neardup [flags] PATH...
//
// Examples, from a clone of the repository (the sample corpus ships in it):
//
//	neardup examples/evaluate/testdata/en-sample/pages > dups.jsonl
//	neardup -manifest examples/evaluate/testdata/en-sample/manifest.tsv \
//	        -format csv examples/evaluate/testdata/en-sample/pages > dups.csv
//	neardup -groups 'examples/evaluate/testdata/en-sample/pages/p0000*.html.gz'
//	neardup -state seen.snap -out kept.warc.gz examples/evaluate/testdata/en-sample/pages
//	neardup -state seen.snap kept.warc.gz    # again: every kept page is "known"
//	gzip -dc kept.warc.gz | neardup -        # standard input, any format
//
// # Input
//
// A PATH is a file, a folder (every file in it and below, in lexical order,
// but hidden ones), a glob pattern (quoted, so that the command expands it:
// filepath.Match syntax, hidden files only when the pattern names them) or
// - for standard input (/dev/stdin works too). Every path is checked before
// any page is judged.
//
// A file's format is read from its content, not its name, after gzip
// decompression when it is gzip data (a whole-file stream or one member per
// record):
//
//   - a WARC file ("WARC/" first): the payload of every response record
//     with a 2xx status and an HTML or text media type (chunked transfer
//     coding and gzip or deflate content coding undone), and the block of
//     every resource and conversion record of such a type. Other records
//     (requests, metadata, revisits, images, ...) are skipped. A page's id
//     is its WARC-Target-URI.
//   - JSON Lines (a '{' first): one page per line, an object with "html",
//     "text" or "content" (with "content_type"), and optionally "id" and
//     "url"; the id falls back to the url, then to FILE:LINE.
//   - otherwise the file is one page, HTML or text as its bytes say; its id
//     is its path (in a folder, relative to the folder) and its URL comes
//     from -manifest (a TSV file with "file" and "url" columns).
//
// The host of a page's URL scopes the template model of the minhash
// detector, so pages of a folder are judged best with a -manifest.
//
// # Verdicts
//
// Pages are read and preprocessed by -workers goroutines and judged one at
// a time in input order, so a run's output depends only on its input. The
// first page of a group is kept; a later page that nearly duplicates a kept
// one is its near-duplicate; a page kept under the same id by an earlier
// run (-state) and unchanged is known. A verdict is final when it is made:
// a page is never judged again and a kept page never becomes a
// near-duplicate later, so each near-duplicate is written to standard
// output as soon as it is judged, one line each, flushed:
//
//	{"kept":ID,"duplicate":ID,"distance":D,"measure":M}
//
// or with -format csv one "kept,duplicate,distance,measure" row. With
// -groups, one line per kept page that has near-duplicates is written at
// the end instead ({"kept":ID,"duplicates":[{"id":ID,"distance":D,
// "measure":M},...]}). Distances are rounded to 3 decimals; lower is
// closer, in the unit the measure names.
//
// A page that nearly duplicates a kept one is judged without being offered
// to the detector, so running the command again with -state over the same
// input keeps no new page and gives every page its first verdict.
//
// -out FILE writes the deduplicated pages (every page kept or known) as
// WARC when FILE ends in .warc or .warc.gz (the records as they were read,
// or resource records), as JSON Lines otherwise (the lines as they were
// read, or {"id","url","html"|"text"|"content"}), gzip-compressed when
// FILE ends in .gz.
//
// # Errors and exit status
//
// A page that cannot be judged (no text, not text at all, above -maxbytes,
// an unsupported content coding) is refused: reported on standard error
// with where it is, and the run goes on. An input that cannot be read (a
// missing or unreadable path, a pattern that matches nothing, a WARC record
// or a JSON line cut short or malformed, truncated or corrupt gzip data, an
// id used twice) fails the run: each is reported with its file and byte
// offset, the other inputs are still judged, and the command exits with
// status 1 without writing the -state file or the -out file. Standard
// output may then hold near-duplicates already found. An interrupt (^C)
// stops the run, saves what was judged so far, and exits with status 1.
// -h prints the flags and exits with status 0.
//
// Progress (the percent read and the time left, when the inputs' size is
// known) goes to standard error when it is a terminal, or with -progress
// bar or -progress lines; a summary line ends every run.
package main
