package template

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/neardup/neardup/internal/snapshot"
)

func TestBlock(t *testing.T) {
	a, _ := Block("  Page 3 of 12  \n")
	b, _ := Block("page 4 OF 12")
	if a != b {
		t.Error("blocks that differ in digits, case and spaces hash apart")
	}
	if c, _ := Block("page 4 of 12 pages"); c == a {
		t.Error("different blocks hash alike")
	}
	for _, s := range []string{"", "   ", "| — · |", "\n"} {
		if _, ok := Block(s); ok {
			t.Errorf("Block(%q) has content", s)
		}
	}
	blocks, hashes := Blocks("Home | News\n\nThe story.\n—\nFooter 2026\n")
	if len(blocks) != 3 || len(hashes) != 3 {
		t.Errorf("Blocks = %q", blocks)
	}
}

func TestTemplateAfterMinPages(t *testing.T) {
	m := New(0)
	navh, _ := Block("Home | News | Sport")
	nav := Key(navh)
	for i := range MinPages {
		if m.IsTemplate("a.example", nav) {
			t.Fatalf("template after %d pages", i)
		}
		story, _ := Block(fmt.Sprint("story ", i))
		m.Observe("a.example", []uint32{nav, nav, Key(story)}) // a repeated block counts once
	}
	if !m.IsTemplate("a.example", nav) {
		t.Error("not template after MinPages pages")
	}
	if m.IsTemplate("b.example", nav) {
		t.Error("template on another host")
	}
}

func TestBounded(t *testing.T) {
	m := New(0)
	m.maxBlocks, m.maxHosts = 100, 3
	navh, _ := Block("nav")
	nav := Key(navh)
	for i := range 1000 {
		m.Observe("a", []uint32{nav, uint32(i) + 1})
		if len(m.hosts["a"].count) > m.maxBlocks {
			t.Fatalf("%d blocks kept", len(m.hosts["a"].count))
		}
	}
	if !m.IsTemplate("a", nav) {
		t.Error("pruning dropped a template block")
	}
	for i := range 10 {
		m.Observe(fmt.Sprint("h", i), []uint32{1})
	}
	if len(m.hosts) != 3 {
		t.Errorf("%d hosts kept", len(m.hosts))
	}
}

func TestEncodeDecode(t *testing.T) {
	m := New(0)
	for i := range 5 {
		m.Observe("a.example", []uint32{1, 2, uint32(10 + i)})
		m.Observe("b.example", []uint32{2})
	}
	var buf bytes.Buffer
	sw := snapshot.NewWriter(&buf, "t", nil)
	m.Encode(sw)
	if _, err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	sr, err := snapshot.NewReader(&buf, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	back := Decode(sr, 0)
	if _, err := sr.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host string
		h    uint32
	}{{"a.example", 1}, {"a.example", 2}, {"a.example", 10}, {"b.example", 2}, {"c.example", 2}} {
		if back.IsTemplate(c.host, c.h) != m.IsTemplate(c.host, c.h) {
			t.Errorf("%s %d: template %v after the round trip", c.host, c.h, back.IsTemplate(c.host, c.h))
		}
	}
}
