package traces

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"

	"kmc/checker"
)

// svgTitles parses an SVG document and returns the text of its <title> elements (Graphviz
// writes one per node and edge, holding the node id).
func svgTitles(t *testing.T, svg []byte) map[string]bool {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	titles := map[string]bool{}
	inTitle := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return titles
		}
		if err != nil {
			t.Fatalf("SVG does not parse as XML: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			inTitle = tk.Name.Local == "title"
		case xml.EndElement:
			inTitle = false
		case xml.CharData:
			if inTitle {
				titles[strings.TrimSpace(string(tk))] = true
			}
		}
	}
}

// Reference: issue 6: SVG checked structurally (parses as XML, holds every node id).
func TestSVGHoldsEveryNode(t *testing.T) {
	for _, tr := range []*checker.Trace{safetyTrace(), lassoTrace(), stutterTrace()} {
		var b bytes.Buffer
		if err := SVG(&b, tr); err != nil {
			t.Fatal(err)
		}
		titles := svgTitles(t, b.Bytes())
		for i := range tr.States {
			if id := nodeID(i); !titles[id] {
				t.Errorf("%s: SVG has no node %s (titles %v)", tr.Property, id, titles)
			}
		}
		if tr.Loop >= 0 {
			edge := fmt.Sprintf("%s&#45;&gt;%s", nodeID(len(tr.States)-1), nodeID(tr.Loop))
			plain := fmt.Sprintf("%s->%s", nodeID(len(tr.States)-1), nodeID(tr.Loop))
			if !titles[edge] && !titles[plain] {
				t.Errorf("%s: SVG has no back edge %s (titles %v)", tr.Property, plain, titles)
			}
		}
	}
}

func countColor(img image.Image, hex string) int {
	want := parseColor(hex, color.RGBA{})
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B {
				n++
			}
		}
	}
	return n
}

// Reference: issue 6 and the go-graphviz v0.2.10 PNG renderer, which strokes no line: the
// PNG must show edges and node outlines, not only text and fills.
func TestPNGDrawsLines(t *testing.T) {
	dot := `digraph g {
  a [shape=box, style=rounded, color="#9467bd", fontcolor="#000000", penwidth=2];
  b [shape=box, color="#9467bd", fontcolor="#000000", penwidth=2];
  a -> b [color="#2ca02c", arrowhead=none, penwidth=2];
  b -> a [color="#17becf", style=dashed, penwidth=2];
}`
	img := dotPNG(t, dot)
	for _, tc := range []struct {
		what, color string
		min         int
	}{
		{"solid edge without arrowhead", "#2ca02c", 40},
		{"dashed edge", "#17becf", 30},
		{"node outlines", "#9467bd", 150},
	} {
		if got := countColor(img, tc.color); got < tc.min {
			t.Errorf("%s: got %d pixels of %s, want at least %d", tc.what, got, tc.color, tc.min)
		}
	}
}

// Reference: issue 11 (defect 3) moved go-graphviz's start-up from package init to the first
// drawing; the enum values its renderer copies at package init (fill and pen styles, render
// features) were then zero and Graphviz's PNG pass drew no fill and no text. The PNG must show
// the node's fill and its label's text, not only the lines kmc strokes itself.
func TestPNGDrawsFillsAndText(t *testing.T) {
	dot := `digraph g {
  a [shape=box, style=filled, fillcolor="#ffd700", color="#9467bd", fontcolor="#000000", fontsize=24, label="WWWWWW"];
}`
	img := dotPNG(t, dot)
	if got := countColor(img, "#ffd700"); got < 1000 {
		t.Errorf("fill: got %d pixels of #ffd700, want at least 1000", got)
	}
	dark := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 < 80 && g>>8 < 80 && bl>>8 < 80 {
				dark++
			}
		}
	}
	if dark < 100 {
		t.Errorf("text: got %d dark pixels, want at least 100 (the label is not drawn)", dark)
	}
}

// Reference: issue 6: the trace PNG decodes and shows the back edge in red.
func TestTracePNG(t *testing.T) {
	var b bytes.Buffer
	if err := PNG(&b, lassoTrace()); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if got := img.Bounds().Dx(); got < 200 {
		t.Errorf("PNG width: got %d, want at least 200", got)
	}
	if got := countColor(img, colorRed); got < 100 {
		t.Errorf("red pixels (back edge, violating state): got %d, want at least 100", got)
	}
}

// Reference: bad DOT input is an error, not a panic.
func TestRenderDOTErrors(t *testing.T) {
	if err := RenderDOT(io.Discard, []byte("digraph {"), "svg", ""); err == nil {
		t.Error("bad DOT: got no error")
	}
	if err := RenderDOT(io.Discard, []byte("digraph {}"), "gif", ""); err == nil || !strings.Contains(err.Error(), `unknown format "gif"`) {
		t.Errorf("bad format: got %v", err)
	}
}

// dotPNG renders dot as a PNG through RenderDOT and decodes it.
func dotPNG(t *testing.T, dot string) image.Image {
	t.Helper()
	var b bytes.Buffer
	if err := RenderDOT(&b, []byte(dot), "png", ""); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	return img
}
