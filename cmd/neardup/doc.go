// Command neardup finds the near-duplicate pages in files, folders, JSON
// Lines and WARC files, and writes each near-duplicate as it finds it.
//
// From a clone of the repository, run it with go run ./cmd/neardup or
// install it with
//
//	go install ./cmd/neardup
//
// (go install github.com/neardup/neardup/cmd/neardup@latest works only once
// the module is published.)
//
// Usage:
//
//	neardup [flags] PATH... [flags]
//
// Flags may come before or after the paths; after -- every argument is a
// path (a file named -x is -- -x or ./-x).
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
// A PATH is a file, a folder (every file in it and below, in lexical order,
// but hidden ones and those whose names say they are not pages), a glob
// pattern (quoted, so that the command expands it: filepath.Match syntax,
// hidden files only when the pattern names them) or - for standard input
// (/dev/stdin works too). Every path is checked before any page is judged.
//
// A folder's file is read when its name ends in .html, .htm, .xhtml,
// .shtml, .php, .asp, .aspx, .jsp, .txt, .text, .json, .jsonl, .ndjson or
// .warc, each maybe followed by .gz, or has no extension (a page saved
// under its URL's last segment). Other files of a folder (README.md,
// manifest.tsv, images, PDFs) are skipped, counted as skipped, and listed
// with -v. A file named as a PATH, or matched by a pattern, is read
// whatever its name.
//
// A file's page id is its path as given or found in a folder, cleaned
// (filepath.Clean) and with forward slashes: neardup pages gives ids
// pages/p1.html, neardup ./pages/ the same, and the pattern 'pages/*.html'
// the same again, so that files of the same name in two folders are two
// pages. The id is what the output and -state name a page by: run the
// command from the same folder with the same paths for a later run to find
// the pages it kept known.
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
//     "url"; the id falls back to the url, then to FILE:LINE. A numeric id
//     is the number's decimal text (7, 7.0 and 0.7e1 are all the id 7); an
//     object, array or boolean id refuses the line's page.
//   - otherwise the file is one page, HTML or text as its bytes say; its id
//     is its path and its URL comes from -manifest (a TSV file with "file"
//     and "url" columns).
//
// A file that holds only the first bytes of "WARC/" or of gzip's magic
// number is a WARC or gzip file cut short (an input that fails), not a
// page.
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
// FILE ends in .gz. As os.Create makes a file, a new -out or -state file
// gets mode 0666 less the umask, and one that exists keeps its mode.
//
// # Errors and exit status
//
// A page that cannot be judged (no text, not text at all, above -maxbytes,
// an unsupported content coding, a JSON id that is not a string or a
// number) is refused: reported on standard error with where it is, and the
// run goes on. An input that cannot be read (a missing or unreadable path,
// a pattern that matches nothing, a WARC record or a JSON line cut short
// or malformed, a WARC record cut inside the CRLF CRLF that ends it,
// truncated or corrupt gzip data, an id used twice) fails the run: each is
// reported with its file, and the byte offset where the data is wrong (a
// missing or unreadable file has none), the other inputs are still judged,
// and the command exits with status 1 without writing the -state file or
// the -out file. Standard output may then hold near-duplicates already
// found. A run that judges no page (an empty folder, files that are not
// pages, pages all refused) says "no pages" and why, and exits with status
// 1 without writing either. An interrupt (^C) stops the run, saves what was
// judged so far, and exits with status 1. A mistake in the command line (a
// flag that does not exist, a bad flag value, no PATH) exits with status 2;
// -h prints the flags and exits with status 0. Each message has one
// prefix: the command's ("neardup: ") or what it is about ("refused ID
// (WHERE): ", "error: ").
//
// Progress (the percent read and the time left, when the inputs' size is
// known) goes to standard error when it is a terminal, or with -progress
// bar or -progress lines; a message clears the bar and takes a line of its
// own. A summary line ends every run.
package main
