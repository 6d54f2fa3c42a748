package main

import (
	"os"
	"os/signal"
	"syscall"
)

// Signals: the first SIGINT or SIGTERM stops the search like a limit (partial statistics,
// then the exit code of the worst verdict found so far; kmc suite exits 3); a second one
// exits at once with the shell's code for it, 128 + the signal's number (130, 143).

// newStop returns a channel closed on the first SIGINT or SIGTERM and a function that stops
// listening. Tests replace it.
var newStop = func() (<-chan struct{}, func()) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	stop, release := watchSignals(sig, os.Exit)
	return stop, func() { signal.Stop(sig); release() }
}

// watchSignals closes the returned channel on the first signal from sig and calls exit
// with 128 + the signal's number on the second. The function returned stops watching.
func watchSignals(sig <-chan os.Signal, exit func(int)) (<-chan struct{}, func()) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			close(stop)
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
	return stop, func() { close(done) }
}

// stopped reports whether stop is closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// worse combines the exit code so far with a check's: a violation (the first one found)
// over incomplete over ok.
func worse(so, code int) int {
	if so == exitOK || (so == exitIncomplete && code != exitOK) {
		return code
	}
	return so
}
