//go:build unix

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoWait opens path for reading without waiting for a writer, should it be a named
// pipe; reads from a regular file are not affected.
func openNoWait(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|flag, 0)
}

// openInPlace opens a file that is not regular (or a stream) for writing, as it is: a
// named pipe without a reader is an error rather than a wait; a stream is appended to.
func openInPlace(path string, mode fs.FileMode, stream bool) (*os.File, error) {
	flag := os.O_WRONLY
	if stream {
		flag |= os.O_APPEND
	}
	if mode&fs.ModeNamedPipe == 0 {
		return os.OpenFile(path, flag, 0)
	}
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, errors.New("a named pipe with no reader")
	}
	if err != nil {
		return nil, err
	}
	// Writes wait for the reader, as they do to any pipe.
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// processGone reports whether no process has the given pid (kill(pid, 0) fails with
// ESRCH). This process counts as running.
func processGone(pid int) bool {
	if pid == os.Getpid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// lockFile takes an exclusive flock on f without waiting.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// noFollow is the open flag that refuses a symlink as the last part of a path.
const noFollow = syscall.O_NOFOLLOW

// nonBlock opens a named pipe planted at a lock's path without waiting.
const nonBlock = syscall.O_NONBLOCK
