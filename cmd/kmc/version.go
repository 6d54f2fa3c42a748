package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

const versionSynopsis = "kmc version"

const versionExamples = `  kmc version
`

// buildInfo reads the build's information; a variable so that tests can give their own.
var buildInfo = debug.ReadBuildInfo

// runVersion prints the build's version: the main module's version ("(devel)" for a build
// from a work tree), the VCS revision it was built from, its time and whether the tree had
// changes, and the Go version; what the build does not record is said to be unknown.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", versionSynopsis, versionExamples, stdout)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 0 {
		return usageError(stderr, "version", "takes no arguments (got %d)", fs.NArg())
	}
	version, rev, at, modified := "unknown", "unknown", "", ""
	goVersion := runtime.Version()
	if bi, ok := buildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", with changes not committed"
				}
			}
		}
	}
	fmt.Fprintf(stdout, "kmc %s\n", version)
	if at != "" {
		fmt.Fprintf(stdout, "revision %s (%s%s)\n", rev, at, modified)
	} else {
		fmt.Fprintf(stdout, "revision %s%s\n", rev, modified)
	}
	fmt.Fprintf(stdout, "built with %s for %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return exitOK
}
