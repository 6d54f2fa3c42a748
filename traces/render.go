package traces

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/goccy/go-graphviz"

	"kmc/checker"
)

// RenderDOT lays out DOT text with Graphviz (go-graphviz: Graphviz compiled to
// WebAssembly, no external dot binary) and writes it as format "svg" or "png". layout is
// a Graphviz engine name ("dot", "neato"); "" means dot.
func RenderDOT(w io.Writer, dot []byte, format, layout string) error {
	var f graphviz.Format
	switch format {
	case "svg":
		f = graphviz.SVG
	case "png":
		return renderPNG(w, dot, layout)
	default:
		return fmt.Errorf("render: unknown format %q (want svg or png)", format)
	}
	ctx := context.Background()
	gv, err := newGraphviz(ctx)
	if err != nil {
		return err
	}
	defer gv.Close()
	if layout != "" {
		gv.SetLayout(graphviz.Layout(layout))
	}
	g, err := graphviz.ParseBytes(dot)
	if err != nil {
		return fmt.Errorf("render: parse dot: %w", err)
	}
	defer g.Close()
	var b bytes.Buffer
	if err := gv.Render(ctx, g, f, &b); err != nil {
		return fmt.Errorf("render: %s: %w", format, err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}

// SVG writes the trace graph (see DOT) as SVG.
func SVG(w io.Writer, t *checker.Trace) error { return renderTrace(w, t, "svg") }

// PNG writes the trace graph (see DOT) as PNG.
func PNG(w io.Writer, t *checker.Trace) error { return renderTrace(w, t, "png") }

// MaxPictureStates is the longest trace drawn as a picture (the trace graph as SVG or PNG,
// the sequence chart, the HTML report that embeds both): Graphviz's time and memory and the
// picture's size grow with it, and a longer trace is read as text or ITF.
const MaxPictureStates = 200

// ErrTooLongToDraw is the error (wrapped) for a trace longer than MaxPictureStates.
var ErrTooLongToDraw = errors.New("trace too long to draw")

// drawable reports whether t is short enough to draw.
func drawable(t *checker.Trace) error {
	if t != nil && len(t.States) > MaxPictureStates {
		return fmt.Errorf("%w (%d states; pictures are drawn up to %d)", ErrTooLongToDraw, len(t.States), MaxPictureStates)
	}
	return nil
}

func renderTrace(w io.Writer, t *checker.Trace, format string) error {
	if err := drawable(t); err != nil {
		return err
	}
	var dot bytes.Buffer
	if err := DOT(&dot, t); err != nil {
		return err
	}
	return RenderDOT(w, dot.Bytes(), format, "")
}
