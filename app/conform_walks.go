package app

import "io"

func conformWalks(f *conformFlags, stdout, stderr io.Writer) int {
	return usage(stderr, "--walks: not yet")
}
