//go:build !unix

package fsx

import (
	"io/fs"
	"os"
)

// openNoWait opens path for reading (this system has no named pipes to wait on).
func openNoWait(path string, _ int) (*os.File, error) { return os.Open(path) }

// openInPlace opens a file that is not regular (or a stream) for writing, as it is.
func openInPlace(path string, _ fs.FileMode, stream bool) (*os.File, error) {
	flag := os.O_WRONLY
	if stream {
		flag |= os.O_APPEND
	}
	return os.OpenFile(path, flag, 0)
}

// processGone reports false: this system gives no portable way to tell, so nothing stale
// is removed.
func processGone(int) bool { return false }

// ownedByMe reports false (see processGone).
func ownedByMe(fs.FileInfo) bool { return false }

// lockFile does nothing: this system has no flock (two runs are not kept apart).
func lockFile(*os.File) error { return nil }

const noFollow, nonBlock = 0, 0
