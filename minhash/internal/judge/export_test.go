package judge

import (
	"bytes"

	"github.com/neardup/neardup/internal/snapshot"
)

// MarshalRecordV1 returns r's binary form of version 1, as MarshalBinary
// wrote it before version 2: a version byte, then the fields as a
// Detector's snapshot writes a kept page.
func MarshalRecordV1(r *Record) []byte {
	var b bytes.Buffer
	b.WriteByte(recordV1)
	sw := snapshot.NewBodyWriter(&b)
	EncodeFeature(sw, r.f)
	sw.Flush() // a bytes.Buffer does not fail
	return b.Bytes()
}
