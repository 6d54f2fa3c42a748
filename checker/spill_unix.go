//go:build unix

package checker

import (
	"os"
	"syscall"
)

// mapsFiles says that mapFile maps the file rather than reading it into memory.
const mapsFiles = true

// mapFile maps the first n bytes of f read-only, shared: clean file pages, which the kernel
// reads in when touched and may drop again under memory pressure.
func mapFile(f *os.File, n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, os.NewSyscallError("mmap", err)
	}
	return m, nil
}

// unmapFile releases a mapping of mapFile.
func unmapFile(m []byte) {
	if len(m) > 0 {
		syscall.Munmap(m)
	}
}
