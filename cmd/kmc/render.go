package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"kmc/checker"
	"kmc/traces"
)

const renderSynopsis = "kmc render TRACE.itf.json [--format text|itf|dot|svg|png|sequence|sequence-png|views-png|html] [-o FILE] [--full-states] [--view NAME[,NAME]]"

const renderExamples = `  kmc render out/buggy/trace.itf.json --format text
  kmc render out/buggy/trace.itf.json --format png -o trace.png
  kmc render out/buggy/trace.itf.json --format html -o report.html
`

// renderFormats maps --format to a renderer of the loaded trace.
var renderFormats = []string{"text", "itf", "dot", "svg", "png", "sequence", "sequence-png", "views-png", "html"}

// runRender renders a saved ITF trace in another format, to a file or to stdout.
func runRender(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("render", renderSynopsis, renderExamples, stdout)
	format := fs.String("format", "text", "output format: text, itf, dot, svg, png, sequence (SVG message sequence chart), sequence-png, views-png (the last state's tables --view selects) or html")
	out := fs.StringP("output", "o", "", "write to `FILE` (all-or-nothing) instead of stdout")
	full := fs.Bool("full-states", false, "text: print every variable of every state, not only what changed")
	view := fs.String("view", "", "text: print the trace's tables `NAME[,NAME]` after each state, all, or none (default: as the trace was written, its #meta.kmc::view)")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "render", "want one trace file (got %d arguments)", fs.NArg())
	}
	known := false
	for _, f := range renderFormats {
		known = known || f == *format
	}
	if !known {
		return usageError(stderr, "render", "--format: want one of text, itf, dot, svg, png, sequence, sequence-png, views-png, html (got %q)", *format)
	}
	if (*format == "png" || *format == "sequence-png" || *format == "views-png") && *out == "" && isTerminal(stdout) {
		return usageError(stderr, "render", "--format %s writes binary PNG data: name a file with -o FILE (or -o - to write it to the terminal anyway)", *format)
	}
	path := fs.Arg(0)
	t, meta, code := loadTrace(path, "render", stderr)
	if t == nil {
		return code
	}
	views, err := resolveViews(fs, *view, traces.ViewNames(t), meta.View)
	if err != nil {
		return usageError(stderr, "render", "%v", err)
	}
	var b bytes.Buffer
	switch *format {
	case "text":
		err = traces.Text(&b, t, traces.TextOptions{FullStates: *full, Views: views})
	case "itf":
		err = traces.WriteITF(&b, t, meta)
	case "dot":
		err = traces.DOT(&b, t)
	case "svg":
		err = traces.SVG(&b, t)
	case "png":
		err = traces.PNG(&b, t)
	case "sequence":
		err = traces.SequenceSVG(&b, t)
	case "sequence-png":
		err = traces.SequencePNG(&b, t)
	case "views-png":
		err = traces.ViewsPNG(&b, t, views)
	case "html":
		err = traces.HTML(&b, t, traces.ReportInfo{Spec: meta.Source, Check: meta.Check})
	}
	if errors.Is(err, traces.ErrTooLongToDraw) {
		fmt.Fprintf(stderr, "kmc: render: %s: %v\n", path, err)
		hint(stderr, "render a long trace as text or itf")
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "kmc: render: %s: %v\n", path, err)
		return exitInternal
	}
	if *out == "" || *out == "-" {
		if _, err := stdout.Write(b.Bytes()); err != nil {
			fmt.Fprintf(stderr, "kmc: render: %v\n", err)
			return exitInternal
		}
		return exitOK
	}
	if err := writeFileAtomic(*out, b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "kmc: render: %v\n", err)
		return exitInternal
	}
	return exitOK
}

// loadTrace reads an ITF trace file: exit 1 when it cannot be read, 2 when it is not a
// valid trace (the error names the JSON path and the state).
func loadTrace(path, cmd string, stderr io.Writer) (*checker.Trace, traces.ITFOptions, int) {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, err)
		return nil, traces.ITFOptions{}, exitInternal
	}
	defer f.Close()
	t, meta, err := traces.LoadITFMeta(f)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: %s: %s: %v\n", cmd, path, err)
		hint(stderr, "kmc reads ITF traces (Apalache ADR-015), as 'kmc check --out DIR' writes them")
		return nil, meta, exitUsage
	}
	return t, meta, exitOK
}

// isTerminal reports whether w is a terminal (a character device), where binary output would
// be garbage. A variable, so that tests can pretend.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
