// Package charset turns the bytes of a fetched page into UTF-8 text, or
// refuses them as not text. It is the decoding step of package preprocess,
// usable on its own.
//
// Decode does the one job, in this order:
//
//  1. Refuse what is not text, with an error wrapping ErrNotText: a
//     Content-Type media type that is not a text type (image/*,
//     application/pdf, ...), the magic number of a binary format (PDF,
//     gzip, zip, PNG, JPEG, ELF, ...), and bytes that read as binary data
//     (more than MaxControl control bytes, compressed or random bytes, a
//     short pattern repeated, implausible UTF-16).
//  2. Choose the encoding: the byte-order mark, the Content-Type charset, a
//     <meta> charset (HTML only), UTF-8 when the bytes are valid UTF-8,
//     UTF-16 without a mark, or the most plausible legacy encoding of the
//     web (GB18030/GBK, Big5, Shift_JIS, EUC-JP, EUC-KR, KOI8-R,
//     Windows-1251, Windows-1252). A declaration that the page belies
//     gives way. The Charset result says which encoding and where it came
//     from.
//  3. Decode: bytes that cannot be decoded become U+FFFD, control
//     characters other than white space become spaces. A page more than
//     MaxUndecodable of which cannot be decoded gives an error wrapping
//     ErrUndecodable (which ErrNotText matches too).
//
// # Contracts and defaults
//
// Decode never panics and only reads its input; its result is valid UTF-8
// and may share memory with the input (it is the input itself when that is
// clean UTF-8). Labels are the WHATWG Encoding Standard's, as browsers
// read them (ISO-8859-1 and US-ASCII as Windows-1252, GBK as GB18030).
// With no Content-Type ("") and no <meta> charset, the bytes alone decide;
// application/octet-stream and the other media types that say nothing
// leave the decision to the bytes too. Detection reads at most the first
// 64 KiB, the binary tests the first 4 KiB.
//
// DecodeKeepControls is Decode for a caller that reads control characters
// as spaces itself; it skips a pass over clean UTF-8 pages.
//
// The package keeps no mutable state; its functions are safe for concurrent
// use.
//
// # When not to use it
//
// Decode judges a whole page. It does not stream (it needs the page in
// memory, as preprocess.ReadPage reads it), and it is not a general
// converter between encodings: use golang.org/x/text/encoding for that,
// when the encoding is known.
package charset
