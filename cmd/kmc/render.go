package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"kmc/checker"
	"kmc/fsx"
	"kmc/specs"
	"kmc/traces"

	"github.com/spf13/pflag"
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
	out := fs.StringP("output", "o", "", "write to `FILE` instead of stdout: a regular file all or nothing (a new file renamed over it); a device, named pipe or stream such as /dev/stdout in place")
	maxSize := traceSizeFlag(fs)
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
	t, meta, code := loadTrace(path, "render", *maxSize, stderr)
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
	if err := fsx.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "kmc: render: %v\n", err)
		return exitInternal
	}
	return exitOK
}

// traceSizeFlag adds --max-trace-size to a command that reads a trace; loadTrace takes its
// value.
func traceSizeFlag(fs *pflag.FlagSet) *string {
	return fs.String("max-trace-size", "", "read a trace file of at most `SIZE` such as 1GiB (default 256MiB; 0: no limit)")
}

// traceLimit is the limit --max-trace-size SIZE sets, as traces.LoadOptions.MaxBytes
// takes it: "" the default, 0 none (-1).
func traceLimit(maxSize string) (int64, error) {
	if maxSize == "" {
		return traces.DefaultMaxTraceBytes, nil
	}
	n, err := specs.ParseSize(maxSize)
	if err == nil && n < 0 {
		err = errors.New("must not be negative")
	}
	if n == 0 {
		n = -1
	}
	return n, err
}

// loadTrace reads an ITF trace file of at most maxSize (--max-trace-size; "": the
// default, traces.DefaultMaxTraceBytes) with the bounded loader: exit 2 for what is not a
// regular file (a named pipe, a device such as /dev/zero: refused without reading or
// waiting), a file beyond the limit, or one that is not a valid trace (the error names the
// JSON path and the state), or one that does not exist; exit 1 when it cannot be read.
func loadTrace(path, cmd, maxSize string, stderr io.Writer) (*checker.Trace, traces.ITFOptions, int) {
	max, err := traceLimit(maxSize)
	if err != nil {
		return nil, traces.ITFOptions{}, usageError(stderr, cmd, "--max-trace-size: %v (got %q)", err, maxSize)
	}
	t, meta, err := traces.LoadITFFile(path, traces.LoadOptions{MaxBytes: max})
	switch {
	case errors.Is(err, fsx.ErrNotRegular):
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, traces.Visible(err.Error()))
		hint(stderr, "kmc reads a trace from a regular file; save a stream to a file first")
		return nil, meta, exitUsage
	case errors.Is(err, os.ErrNotExist):
		// A trace named that does not exist is bad usage, as a spec file is.
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, traces.Visible(err.Error()))
		hint(stderr, "kmc check --out DIR writes a counterexample's trace to DIR/CHECK/trace.itf.json")
		return nil, meta, exitUsage
	case err != nil && !strings.HasPrefix(err.Error(), "itf: "):
		fmt.Fprintf(stderr, "kmc: %s: %v\n", cmd, traces.Visible(err.Error()))
		return nil, meta, exitInternal
	case err != nil:
		fmt.Fprintf(stderr, "kmc: %s: %s: %v\n", cmd, traces.Visible(path), traces.Visible(err.Error()))
		if strings.Contains(err.Error(), "the limit for a trace") {
			hint(stderr, "raise the limit with --max-trace-size SIZE (0: none)")
		} else {
			hint(stderr, "kmc reads ITF traces (Apalache ADR-015), as 'kmc check --out DIR' writes them")
		}
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
