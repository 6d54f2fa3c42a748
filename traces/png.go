package traces

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-graphviz"
	"github.com/goccy/go-graphviz/cgraph"
)

// PNG rendering works around go-graphviz v0.2.10, whose PNG renderer fills shapes, draws
// text and arrowheads, but strokes no line: no node outline, no edge, no cluster border.
// renderPNG lets Graphviz lay the graph out once, renders the PNG (fills and text) with the
// edges whitened, reads the layout back (Graphviz's "dot" output: bb, pos, width, height),
// and strokes the edges, arrowheads, node outlines and cluster borders itself with the
// standard library, at the same scale.

const graphvizPad = 4.0 // points of padding around the drawing (Graphviz's default pad)

func renderPNG(w io.Writer, dot []byte, layout string) error {
	ctx := context.Background()
	gv, err := newGraphviz(ctx)
	if err != nil {
		return err
	}
	defer gv.Close()
	if layout != "" {
		gv.SetLayout(graphviz.Layout(layout))
	}
	// Two passes over two copies of the graph, each laid out afresh: rendering the layout
	// ("dot" output) writes positions back into its graph without neato's pins.
	dot = quoteEntities(dot)
	var laid, base bytes.Buffer
	for _, pass := range []struct {
		format graphviz.Format
		out    *bytes.Buffer
	}{{graphviz.PNG, &base}, {graphviz.XDOT, &laid}} {
		g, err := graphviz.ParseBytes(dot)
		if err != nil {
			return fmt.Errorf("render: parse dot: %w", err)
		}
		if err := whitenEdges(g); err != nil {
			g.Close()
			return fmt.Errorf("render: png: %w", err)
		}
		err = gv.Render(ctx, g, pass.format, pass.out)
		g.Close()
		if err != nil {
			return fmt.Errorf("render: png: %w", err)
		}
	}
	src, err := png.Decode(&base)
	if err != nil {
		return fmt.Errorf("render: png: decode graphviz output: %w", err)
	}
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Over)

	lg, err := graphviz.ParseBytes(laid.Bytes())
	if err != nil {
		return fmt.Errorf("render: png: read layout: %w", err)
	}
	defer lg.Close()
	c, err := newCanvas(img, lg.GetStr("bb"))
	if err != nil {
		return fmt.Errorf("render: png: %w", err)
	}
	if err := c.drawClusters(lg); err != nil {
		return fmt.Errorf("render: png: %w", err)
	}
	if err := c.drawNodesAndEdges(lg); err != nil {
		return fmt.Errorf("render: png: %w", err)
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("render: png: %w", err)
	}
	return nil
}

// quoteEntities rewrites each escaped quote (\") inside the strings of DOT text as the
// entity &#34;, which Graphviz draws as the same quote. Graphviz's layout output drops the
// backslash of an escaped quote that follows another escape (\l, \n) in the same
// string, and its text then does not parse back ("syntax error near '>'" for a label
// holding `">` after a line break); an entity holds no quote to lose.
func quoteEntities(dot []byte) []byte {
	if !bytes.Contains(dot, []byte(`\"`)) {
		return dot
	}
	out := make([]byte, 0, len(dot)+64)
	in := false
	for i := 0; i < len(dot); i++ {
		c := dot[i]
		switch {
		case in && c == '\\' && i+1 < len(dot):
			if dot[i+1] == '"' {
				out = append(out, "&#34;"...)
			} else {
				out = append(out, c, dot[i+1])
			}
			i++
			continue
		case c == '"':
			in = !in
		}
		out = append(out, c)
	}
	return out
}

// whitenEdges keeps each edge's colour and style in kmc_color/kmc_style and paints the
// edge white and solid for Graphviz's own PNG pass (its arrowheads would otherwise show in
// colour on top of nothing, and dashed splines come out as filled blobs).
func whitenEdges(g *cgraph.Graph) error {
	for n, err := g.FirstNode(); n != nil; n, err = g.NextNode(n) {
		if err != nil {
			return err
		}
		for e, err := g.FirstOut(n); e != nil; e, err = g.NextOut(e) {
			if err != nil {
				return err
			}
			style := e.GetStr("style")
			for _, kv := range [][2]string{
				{"kmc_color", e.GetStr("color")}, {"kmc_style", style}, {"color", "#ffffff"},
			} {
				if err := e.SafeSet(kv[0], kv[1], ""); err != nil {
					return err
				}
			}
			if !strings.Contains(style, "invis") {
				if err := e.SafeSet("style", "solid", ""); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

type canvas struct {
	img        *image.RGBA
	h          float64 // graph height in points
	sx, sy     float64 // pixels per point
	originX    float64
	originY    float64
	background color.RGBA
}

func newCanvas(img *image.RGBA, bb string) (*canvas, error) {
	f, err := floats(bb)
	if err != nil || len(f) != 4 {
		return nil, fmt.Errorf("bad bounding box %q", bb)
	}
	w, h := f[2]-f[0], f[3]-f[1]
	b := img.Bounds()
	c := &canvas{img: img, h: f[3], originX: f[0]}
	c.sx = float64(b.Dx()) / (w + 2*graphvizPad)
	c.sy = float64(b.Dy()) / (h + 2*graphvizPad)
	return c, nil
}

// px maps Graphviz points (y up) to pixels (y down).
func (c *canvas) px(x, y float64) (float64, float64) {
	return (x - c.originX + graphvizPad) * c.sx, (c.h - y + graphvizPad) * c.sy
}

func (c *canvas) drawClusters(g *cgraph.Graph) error {
	for sub, err := g.FirstSubGraph(); sub != nil; sub, err = sub.NextSubGraph() {
		if err != nil {
			return err
		}
		name, _ := sub.Name()
		if !strings.HasPrefix(name, "cluster") {
			continue
		}
		f, err := floats(sub.GetStr("bb"))
		if err != nil || len(f) != 4 {
			continue
		}
		style := sub.GetStr("style")
		pts := roundedRect(f[0], f[1], f[2], f[3], 8)
		c.stroke(pts, parseColor(sub.GetStr("color"), color.RGBA{0, 0, 0, 255}), penWidth(sub.GetStr("penwidth")), strings.Contains(style, "dashed"))
	}
	return nil
}

func (c *canvas) drawNodesAndEdges(g *cgraph.Graph) error {
	for n, err := g.FirstNode(); n != nil; n, err = g.NextNode(n) {
		if err != nil {
			return err
		}
		c.drawNode(n)
		for e, err := g.FirstOut(n); e != nil; e, err = g.NextOut(e) {
			if err != nil {
				return err
			}
			c.drawEdge(e)
		}
	}
	return nil
}

func (c *canvas) drawNode(n *cgraph.Node) {
	style, shape := n.GetStr("style"), n.GetStr("shape")
	if strings.Contains(style, "invis") || shape == "none" || shape == "plaintext" || shape == "point" {
		return
	}
	p, err := floats(n.GetStr("pos"))
	if err != nil || len(p) < 2 {
		return
	}
	wi, err1 := strconv.ParseFloat(n.GetStr("width"), 64)
	hi, err2 := strconv.ParseFloat(n.GetStr("height"), 64)
	if err1 != nil || err2 != nil {
		return
	}
	w, h := wi*72, hi*72
	x0, y0, x1, y1 := p[0]-w/2, p[1]-h/2, p[0]+w/2, p[1]+h/2
	r := 0.0
	if strings.Contains(style, "rounded") {
		r = math.Min(12, math.Min(w, h)/4)
	}
	var pts [][2]float64
	if shape == "ellipse" || shape == "oval" || shape == "circle" || shape == "" {
		pts = ellipse(p[0], p[1], w/2, h/2)
	} else {
		pts = roundedRect(x0, y0, x1, y1, r)
	}
	c.stroke(pts, parseColor(n.GetStr("color"), color.RGBA{0, 0, 0, 255}), penWidth(n.GetStr("penwidth")), strings.Contains(style, "dashed"))
}

func (c *canvas) drawEdge(e *cgraph.Edge) {
	style := e.GetStr("kmc_style")
	pw := penWidth(e.GetStr("penwidth"))
	if strings.Contains(style, "invis") || pw == 0 {
		return
	}
	col := parseColor(e.GetStr("kmc_color"), color.RGBA{0, 0, 0, 255})
	// pos: optional "e,x,y" (arrowhead tip), optional "s,x,y", then the cubic B-spline
	// control points (1 + 3k of them); several splines are separated by ';'.
	for _, spline := range strings.Split(e.GetStr("pos"), ";") {
		var ctrl [][2]float64
		var end, start *[2]float64
		for _, tok := range strings.Fields(strings.ReplaceAll(spline, "\\\n", "")) {
			switch {
			case strings.HasPrefix(tok, "e,"), strings.HasPrefix(tok, "s,"):
				f, err := floats(tok[2:])
				if err != nil || len(f) != 2 {
					return
				}
				pt := [2]float64{f[0], f[1]}
				if tok[0] == 'e' {
					end = &pt
				} else {
					start = &pt
				}
			default:
				f, err := floats(tok)
				if err != nil || len(f) != 2 {
					return
				}
				ctrl = append(ctrl, [2]float64{f[0], f[1]})
			}
		}
		if len(ctrl) < 4 {
			continue
		}
		pts := bezier(ctrl)
		c.stroke(pts, col, pw, strings.Contains(style, "dashed"))
		if end != nil {
			c.arrow(ctrl[len(ctrl)-1], *end, col)
		}
		if start != nil {
			c.arrow(ctrl[0], *start, col)
		}
	}
}

// stroke draws a polyline given in points with an antialiased pen of width pw points.
func (c *canvas) stroke(pts [][2]float64, col color.RGBA, pw float64, dashed bool) {
	if len(pts) < 2 || pw <= 0 {
		return
	}
	radius := math.Max(pw*c.sx/2, 0.6)
	dash, gap := 6*c.sx, 4*c.sx
	run, on := 0.0, true
	for i := 1; i < len(pts); i++ {
		ax, ay := c.px(pts[i-1][0], pts[i-1][1])
		bx, by := c.px(pts[i][0], pts[i][1])
		if !dashed {
			c.segment(ax, ay, bx, by, radius, col)
			continue
		}
		seg := math.Hypot(bx-ax, by-ay)
		for t := 0.0; t < seg; {
			limit := dash
			if !on {
				limit = gap
			}
			step := math.Min(limit-run, seg-t)
			if on {
				f0, f1 := t/seg, (t+step)/seg
				c.segment(ax+(bx-ax)*f0, ay+(by-ay)*f0, ax+(bx-ax)*f1, ay+(by-ay)*f1, radius, col)
			}
			t += step
			run += step
			if run >= limit {
				run, on = 0, !on
			}
		}
	}
}

// segment paints the pixels within radius of segment a-b, with coverage antialiasing.
func (c *canvas) segment(ax, ay, bx, by, r float64, col color.RGBA) {
	b := c.img.Bounds()
	x0 := int(math.Max(math.Floor(math.Min(ax, bx)-r-1), float64(b.Min.X)))
	x1 := int(math.Min(math.Ceil(math.Max(ax, bx)+r+1), float64(b.Max.X-1)))
	y0 := int(math.Max(math.Floor(math.Min(ay, by)-r-1), float64(b.Min.Y)))
	y1 := int(math.Min(math.Ceil(math.Max(ay, by)+r+1), float64(b.Max.Y-1)))
	dx, dy := bx-ax, by-ay
	l2 := dx*dx + dy*dy
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((px-ax)*dx+(py-ay)*dy)/l2))
			}
			d := math.Hypot(px-(ax+t*dx), py-(ay+t*dy))
			cov := math.Max(0, math.Min(1, r+0.5-d))
			if cov > 0 {
				c.blend(x, y, col, cov)
			}
		}
	}
}

func (c *canvas) blend(x, y int, col color.RGBA, cov float64) {
	o := c.img.RGBAAt(x, y)
	mix := func(a, b uint8) uint8 { return uint8(float64(a)*(1-cov) + float64(b)*cov + 0.5) }
	// Blending towards the pen colour by the coverage: repeated stamps only darken the
	// edge of the line a little more, never past the pen colour.
	c.img.SetRGBA(x, y, color.RGBA{mix(o.R, col.R), mix(o.G, col.G), mix(o.B, col.B), 255})
}

// arrow fills the arrowhead from base (last control point) to tip.
func (c *canvas) arrow(base, tip [2]float64, col color.RGBA) {
	bx, by := c.px(base[0], base[1])
	tx, ty := c.px(tip[0], tip[1])
	dx, dy := tx-bx, ty-by
	l := math.Hypot(dx, dy)
	if l == 0 {
		return
	}
	hw := l * 0.38
	nx, ny := -dy/l*hw, dx/l*hw
	tri := [3][2]float64{{tx, ty}, {bx + nx, by + ny}, {bx - nx, by - ny}}
	b := c.img.Bounds()
	minX := int(math.Max(math.Floor(math.Min(tri[0][0], math.Min(tri[1][0], tri[2][0])))-1, float64(b.Min.X)))
	maxX := int(math.Min(math.Ceil(math.Max(tri[0][0], math.Max(tri[1][0], tri[2][0])))+1, float64(b.Max.X-1)))
	minY := int(math.Max(math.Floor(math.Min(tri[0][1], math.Min(tri[1][1], tri[2][1])))-1, float64(b.Min.Y)))
	maxY := int(math.Min(math.Ceil(math.Max(tri[0][1], math.Max(tri[1][1], tri[2][1])))+1, float64(b.Max.Y-1)))
	for y := minY; y <= maxY; y++ {
		for x := minX; x <= maxX; x++ {
			// 4x4 supersampling for the coverage.
			in := 0
			for sy := 0; sy < 4; sy++ {
				for sx := 0; sx < 4; sx++ {
					if inTriangle(float64(x)+(float64(sx)+0.5)/4, float64(y)+(float64(sy)+0.5)/4, tri) {
						in++
					}
				}
			}
			if in > 0 {
				c.blend(x, y, col, float64(in)/16)
			}
		}
	}
}

func inTriangle(x, y float64, t [3][2]float64) bool {
	side := func(a, b [2]float64) float64 { return (b[0]-a[0])*(y-a[1]) - (b[1]-a[1])*(x-a[0]) }
	d1, d2, d3 := side(t[0], t[1]), side(t[1], t[2]), side(t[2], t[0])
	neg := d1 < 0 || d2 < 0 || d3 < 0
	pos := d1 > 0 || d2 > 0 || d3 > 0
	return !(neg && pos)
}

// bezier samples a piecewise cubic Bézier curve given by 1+3k control points.
func bezier(ctrl [][2]float64) [][2]float64 {
	out := [][2]float64{ctrl[0]}
	for i := 0; i+3 < len(ctrl); i += 3 {
		p0, p1, p2, p3 := ctrl[i], ctrl[i+1], ctrl[i+2], ctrl[i+3]
		const steps = 24
		for s := 1; s <= steps; s++ {
			t := float64(s) / steps
			u := 1 - t
			a, b, c, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
			out = append(out, [2]float64{
				a*p0[0] + b*p1[0] + c*p2[0] + d*p3[0],
				a*p0[1] + b*p1[1] + c*p2[1] + d*p3[1],
			})
		}
	}
	return out
}

// roundedRect is the closed outline of a rectangle with corners of radius r.
func roundedRect(x0, y0, x1, y1, r float64) [][2]float64 {
	if r <= 0 {
		return [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}
	}
	var pts [][2]float64
	corner := func(cx, cy, from float64) {
		for s := 0; s <= 8; s++ {
			a := from + float64(s)/8*math.Pi/2
			pts = append(pts, [2]float64{cx + r*math.Cos(a), cy + r*math.Sin(a)})
		}
	}
	corner(x1-r, y0+r, -math.Pi/2)
	corner(x1-r, y1-r, 0)
	corner(x0+r, y1-r, math.Pi/2)
	corner(x0+r, y0+r, math.Pi)
	return append(pts, pts[0])
}

func ellipse(cx, cy, rx, ry float64) [][2]float64 {
	var pts [][2]float64
	for s := 0; s <= 64; s++ {
		a := float64(s) / 64 * 2 * math.Pi
		pts = append(pts, [2]float64{cx + rx*math.Cos(a), cy + ry*math.Sin(a)})
	}
	return pts
}

func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(strings.TrimSuffix(s, "!"), ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func penWidth(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 1
	}
	return v
}

// parseColor reads "#rrggbb" (the only form kmc's DOT uses) or a few names.
func parseColor(s string, def color.RGBA) color.RGBA {
	if len(s) == 7 && s[0] == '#' {
		v, err := strconv.ParseUint(s[1:], 16, 32)
		if err == nil {
			return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
		}
	}
	switch s {
	case "black":
		return color.RGBA{0, 0, 0, 255}
	case "red":
		return color.RGBA{255, 0, 0, 255}
	case "white":
		return color.RGBA{255, 255, 255, 255}
	}
	return def
}
