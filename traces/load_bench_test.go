package traces

import (
	"bytes"
	"testing"
)

// BenchmarkLoadITFLarge loads a trace of two states whose variable holds a set of 100,000
// strings (some 3 MB of ITF): its B/op is what loading holds beyond the trace returned.
// Reference: issue 26, defect 12 (a 100 MB trace took about 1 GB).
func BenchmarkLoadITFLarge(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteITF(&buf, largeSetTrace(100_000), ITFOptions{}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadITF(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
