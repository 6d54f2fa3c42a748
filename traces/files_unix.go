//go:build unix

package traces

import (
	"io/fs"
	"syscall"
)

// noFollow and nonBlock open a file in an output folder without following a symlink or
// waiting on a named pipe.
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)

// fileID is the device and inode of a file.
func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), st.Ino, true
}
