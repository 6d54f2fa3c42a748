package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"kmc/fsx"
)

// Signals: the first SIGINT, SIGTERM or SIGHUP (a closed terminal, handled as SIGTERM)
// cancels the command's context, which stops its work like a limit (partial statistics,
// then the exit code of the worst verdict found so far; kmc suite exits 3); a second one
// removes the temporary files kmc is writing (fsx.RemoveTracked) and exits at once with
// the shell's code for it, 128 + the signal's number (130, 143, 129).

// signalContext returns a context cancelled on the first SIGINT or SIGTERM and a function
// that stops listening. Tests replace it.
var signalContext = func() (context.Context, func()) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(context.Background())
	release := watchSignals(sig, cancel, func(code int) { fsx.RemoveTracked(); os.Exit(code) })
	return ctx, func() { signal.Stop(sig); release(); cancel() }
}

// watchSignals calls stop on the first signal from sig and exit with 128 + the signal's
// number on the second. The function returned stops watching.
func watchSignals(sig <-chan os.Signal, stop func(), exit func(int)) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			stop()
		case <-done:
			return
		}
		select {
		case s := <-sig:
			code := 128 + 2 // SIGINT's, for a signal without a number
			if n, ok := s.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			exit(code)
		case <-done:
		}
	}()
	return func() { close(done) }
}

// worse combines the exit code so far with a check's: a violation (the first one found)
// over incomplete over ok.
func worse(so, code int) int {
	if so == exitOK || (so == exitIncomplete && code != exitOK) {
		return code
	}
	return so
}
