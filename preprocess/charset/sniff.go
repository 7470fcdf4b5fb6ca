package charset

import (
	"bytes"
	"math"
	"strings"
)

// textMediaType reports whether the media type mt (lower case, without
// parameters, as mime.ParseMediaType returns it) may hold text: true for
// the text types and for the types that say nothing (see Decode for the
// lists); false for every other media type.
func textMediaType(mt string) bool {
	typ, sub, _ := strings.Cut(mt, "/")
	switch {
	case typ == "text":
		return true
	case sub == "html" || sub == "xml" || sub == "json" ||
		strings.HasSuffix(sub, "+xml") || strings.HasSuffix(sub, "+json"):
		return true
	}
	switch mt {
	case "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/x-ecmascript":
		return true
	case "application/octet-stream", "binary/octet-stream",
		"application/unknown", "unknown/unknown", "application/x-unknown",
		"*/*", "application/binary":
		return true // says nothing: sniff
	}
	return false
}

// magic is a signature of a binary format: sig at offset off.
type magic struct {
	off  int
	sig  string
	name string
}

// magics are the signatures binaryFormat recognises. Each is long enough,
// or holds bytes (control bytes, bytes that are not valid UTF-8 there) rare
// enough at the start of a text, that no page of text starts with one.
var magics = [...]magic{
	{0, "%PDF-", "PDF"},
	{0, "\x1f\x8b\x08", "gzip"},
	{0, "\x1f\x9d", "compress (.Z)"},
	{0, "PK\x03\x04", "zip"},
	{0, "PK\x05\x06", "zip"},
	{0, "PK\x07\x08", "zip"},
	{0, "\x89PNG\r\n\x1a\n", "PNG"},
	{0, "\xff\xd8\xff", "JPEG"},
	{0, "GIF87a", "GIF"},
	{0, "GIF89a", "GIF"},
	{0, "II*\x00", "TIFF"},
	{0, "MM\x00*", "TIFF"},
	{0, "\x00\x00\x01\x00", "ICO"},
	{0, "\x00\x00\x00\x0cjP  \r\n\x87\n", "JPEG 2000"},
	{0, "\x00\x00\x00\x0cJXL \r\n\x87\n", "JPEG XL"},
	{0, "\xff\x0a", "JPEG XL"},
	{0, "8BPS\x00\x01", "Photoshop"},
	{0, "\x28\xb5\x2f\xfd", "zstd"},
	{0, "\xfd7zXZ\x00", "xz"},
	{0, "7z\xbc\xaf\x27\x1c", "7z"},
	{0, "Rar!\x1a\x07", "RAR"},
	{0, "\x04\x22\x4d\x18", "LZ4"},
	{0, "MSCF\x00\x00\x00\x00", "CAB"},
	{0, "!<arch>\n", "ar archive"},
	{257, "ustar", "tar"},
	{0, "\xed\xab\xee\xdb", "RPM"},
	{0, "\x7fELF", "ELF"},
	{0, "\xfe\xed\xfa\xce", "Mach-O"},
	{0, "\xfe\xed\xfa\xcf", "Mach-O"},
	{0, "\xce\xfa\xed\xfe", "Mach-O"},
	{0, "\xcf\xfa\xed\xfe", "Mach-O"},
	{0, "\xca\xfe\xba\xbe", "Mach-O universal or Java class"},
	{0, "\x00asm", "WebAssembly"},
	{0, "dex\n0", "Android DEX"},
	{0, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "OLE (MS Office)"},
	{0, "SQLite format 3\x00", "SQLite"},
	{0, "bplist0", "binary plist"},
	{0, "\x89HDF\r\n\x1a\n", "HDF5"},
	{0, "OggS\x00", "Ogg"},
	{0, "fLaC\x00", "FLAC"},
	{0, "MThd\x00\x00\x00\x06", "MIDI"},
	{0, "\x1a\x45\xdf\xa3", "Matroska/WebM"},
	{0, "wOFF", "WOFF"},
	{0, "wOF2", "WOFF2"},
	{0, "OTTO\x00", "OpenType"},
	{0, "\x00\x01\x00\x00\x00", "TrueType"},
}

// magicStart tells the first bytes of the signatures at offset 0 of
// magics and of those binaryFormat tests by code.
var magicStart = func() (t [256]bool) {
	for _, m := range magics {
		if m.off == 0 {
			t[m.sig[0]] = true
		}
	}
	for _, c := range []byte("R\x00BIxM") {
		t[c] = true
	}
	return t
}()

// binaryFormat returns the name of the binary format whose magic number raw
// starts with, or "".
func binaryFormat(raw []byte) string {
	if len(raw) < 2 || !magicStart[raw[0]] && !(len(raw) >= 262 && string(raw[257:262]) == "ustar") {
		return "" // the common case: a page starts with '<', a letter, ...
	}
	for _, m := range magics {
		if len(raw) >= m.off+len(m.sig) && string(raw[m.off:m.off+len(m.sig)]) == m.sig {
			return m.name
		}
	}
	switch {
	case len(raw) >= 12 && string(raw[:4]) == "RIFF":
		switch string(raw[8:12]) {
		case "WEBP":
			return "WebP"
		case "WAVE":
			return "WAV"
		case "AVI ":
			return "AVI"
		}
	case len(raw) >= 12 && raw[0] == 0 && raw[1] == 0 && string(raw[4:8]) == "ftyp":
		return "MP4/QuickTime/HEIF"
	case len(raw) >= 10 && string(raw[:3]) == "BZh" && raw[3] >= '1' && raw[3] <= '9' &&
		(string(raw[4:10]) == "1AY&SY" || string(raw[4:10]) == "\x17rE8P\x90"):
		return "bzip2"
	case len(raw) >= 4 && string(raw[:3]) == "ID3" && raw[3] >= 2 && raw[3] <= 4:
		return "MP3"
	case len(raw) >= 2 && raw[0] == 0x78 && (raw[1] == 0x01 || raw[1] == 0x9c || raw[1] == 0xda):
		return "zlib"
	case len(raw) >= 14 && string(raw[:2]) == "BM" && string(raw[6:10]) == "\x00\x00\x00\x00":
		return "BMP"
	case len(raw) >= 64 && string(raw[:2]) == "MZ":
		pe := int(raw[0x3c]) | int(raw[0x3d])<<8 | int(raw[0x3e])<<16 | int(raw[0x3f])<<24
		if pe >= 0x40 && pe <= len(raw)-4 && string(raw[pe:pe+4]) == "PE\x00\x00" {
			return "Windows executable"
		}
	}
	return ""
}

// minEntropySample is the shortest sample whose byte entropy tells
// compressed data from text.
const minEntropySample = 512

// compressed reports whether sample looks like compressed, encrypted or
// random data: its bytes are spread over all 256 values almost evenly, so
// that its byte entropy comes within 0.35 bits of what uniform bytes give
// (8 bits less the estimate's bias, (256-1)/(2n ln 2) bits for n bytes: a
// threshold of 7.29 bits for 512 bytes, 7.60 for 4 KB). Slices of gzip
// streams stay above it (7.47 and 7.94 at the least on the test pages);
// text in the legacy encodings stays below, even random Han characters in
// GB18030 (7.15 and 7.42); UTF-16, whose CJK text comes close, is told apart
// before this test. A sample shorter than minEntropySample is never taken
// for compressed data.
func compressed(sample []byte) bool {
	n := len(sample)
	if n < minEntropySample {
		return false
	}
	var hist [256]int
	for _, c := range sample {
		hist[c]++
	}
	h := 0.0
	for _, k := range hist {
		if k > 0 {
			p := float64(k) / float64(n)
			h -= p * math.Log2(p)
		}
	}
	uniform := 8 - 255/(2*float64(n)*math.Ln2)
	return h > uniform-0.35
}

// maxPeriod is the longest period periodic looks for.
const maxPeriod = 64

// periodic reports whether sample (at least 4 periods long) repeats a
// pattern of at most maxPeriod bytes from start to end: a binary record
// repeated, not a page of text.
func periodic(sample []byte) bool {
	for p := 1; p <= maxPeriod && 4*p <= len(sample); p++ {
		if bytes.Equal(sample[p:], sample[:len(sample)-p]) {
			return true
		}
	}
	return false
}
