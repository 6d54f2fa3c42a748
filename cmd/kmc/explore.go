package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"kmc/app"
	"kmc/explore"
	"kmc/fsx"
	"kmc/specs"
)

const exploreSynopsis = "kmc explore SPEC [--check NAME] [--set key=value]... [--trace FILE] [--listen 127.0.0.1:PORT]"

const exploreExamples = `  kmc explore specs/kafka-18723.toml
  kmc explore specs/kafka-13077.toml --check buggy --trace out/buggy/trace.itf.json
  kmc explore specs/twophase.toml --check buggy --listen 127.0.0.1:0
`

// defaultListen is where kmc explore listens unless told otherwise: loopback only.
const defaultListen = "127.0.0.1:8470"

// exploreServing is called with the URL once the server listens; tests replace it.
var exploreServing = func(string) {}

// runExplore serves the explorer's page for one check of a spec until a signal stops it.
// Exit 0 after a signal; 2 for bad usage, a bad spec or trace, or an address beyond
// loopback without --allow-remote; 1 when it cannot listen.
func runExplore(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explore", exploreSynopsis, exploreExamples, stdout)
	check := fs.String("check", "", "the spec's check (protocol variant) to explore; default: the one --trace records, else the spec's first")
	var sets []string
	fs.StringArrayVar(&sets, "set", nil, "override a spec value, `KEY=VALUE`: a constant or fault by name (rms=4) or a path; repeatable")
	tracePath := fs.String("trace", "", "open the page on the counterexample in `FILE` (ITF, as kmc check --out writes it)")
	listen := fs.String("listen", defaultListen, "the `ADDRESS` to serve on; port 0 picks a free one")
	remote := fs.Bool("allow-remote", false, "allow an address beyond loopback; every request must then carry the token printed at start-up")
	searchStates := fs.Int64("search-states", 200000, "stop each search from a state after `N` distinct states")
	searchTime := fs.String("search-time", "30s", "stop each search from a state after `DURATION`")
	maxSize := traceSizeFlag(fs)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "explore", "want one spec file (got %d arguments)", fs.NArg())
	}
	st, err := specs.ParseDuration(*searchTime)
	if err != nil || st <= 0 {
		return usageError(stderr, "explore", "--search-time: want a positive duration such as 30s (got %q)", *searchTime)
	}
	if *searchStates <= 0 {
		return usageError(stderr, "explore", "--search-states: want a positive number (got %d)", *searchStates)
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return usageError(stderr, "explore", "--listen: want HOST:PORT such as 127.0.0.1:8470 (got %q)", *listen)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if !loopback && !*remote {
		return usageError(stderr, "explore", "--listen %s is not a loopback address: anyone who can reach it could use the explorer; add --allow-remote to serve it with a token", *listen)
	}

	var trace []byte
	var traceCheck string
	if *tracePath != "" {
		t, meta, code := loadTrace(*tracePath, "explore", *maxSize, stderr)
		if t == nil {
			return code
		}
		traceCheck = meta.Check
		max, _ := traceLimit(*maxSize) // loadTrace checked it
		if trace, err = fsx.ReadFile(*tracePath, max); err != nil {
			fmt.Fprintf(stderr, "kmc: explore: %v\n", err)
			return exitInternal
		}
	}
	spec, code := loadSpec(fs.Arg(0), sets, "", stderr)
	if spec == nil {
		return code
	}
	name := *check
	if name == "" {
		name = traceCheck
	}
	others := ""
	if name == "" && len(spec.Checks) > 1 {
		// A spec's first check is its headline (a seed's is the buggy one): explore it.
		name = spec.Checks[0].Name
		others = " (the spec's first check; --check picks another: " + strings.Join(app.CheckNames(spec)[1:], ", ") + ")"
	}
	opts := explore.Options{Loopback: loopback, SearchStates: *searchStates, SearchTime: st}
	if !loopback {
		opts.Token = newToken()
	}
	srv, err := explore.New(spec, name, opts)
	if err != nil {
		return appError(stderr, "explore", err, nil)
	}
	fragment := ""
	if trace != nil {
		l, err := srv.LoadITF(trace)
		if err != nil {
			fmt.Fprintf(stderr, "kmc: explore: %s: %v\n", *tracePath, err)
			hint(stderr, "was the trace made with another check or other constants? try --check or --set")
			return exitUsage
		}
		q := url.Values{"path": {l.Path}, "at": {fmt.Sprint(l.States)}}
		if l.Back != "" {
			q.Set("back", l.Back)
		}
		if l.Stutter {
			q.Set("stutter", "1")
		}
		fragment = "#" + q.Encode()
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "kmc: explore: %v\n", err)
		hint(stderr, "another program may use the port: try --listen 127.0.0.1:0 for a free one")
		return exitInternal
	}
	addr := ln.Addr().String()
	if !loopback && ip != nil && ip.IsUnspecified() {
		addr = net.JoinHostPort("HOST", fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	}
	link := "http://" + addr + "/"
	if opts.Token != "" {
		link += "?token=" + opts.Token
	}
	link += fragment
	fmt.Fprintf(stdout, "Exploring %s, check %s%s: %s\n", spec.Path, srv.Check().Name, others, link)
	if opts.Token != "" {
		fmt.Fprintf(stdout, "Serving beyond loopback: every request needs the token %s (it is in the link).\n", opts.Token)
	}
	fmt.Fprintln(stdout, "Open the link in a browser; Ctrl-C stops the server.")
	exploreServing(link)

	ctx, release := signalContext()
	defer release()
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 1 << 20}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "kmc: explore: %v\n", err)
		return exitInternal
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "kmc: explore: %v\n", err)
	}
	fmt.Fprintln(stdout, "Stopped.")
	return exitOK
}

// newToken is 128 random bits in hex.
func newToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("kmc: explore: no randomness for the token: " + err.Error())
	}
	return hex.EncodeToString(b)
}
