package main

import (
	"io"

	"kmc/app"
)

// kmc conform lives in package app (app/conform*.go); this wires it into the dispatcher.
func init() {
	commands = append(commands, command{"conform", "replay traces (or random walks) of the Kafka model on Kafka's own classes and report the first difference", runConform})
}

func runConform(args []string, stdout, stderr io.Writer) int {
	return app.Conform(args, stdout, stderr)
}
