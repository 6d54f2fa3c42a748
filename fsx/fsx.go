// Package fsx holds the file-system operations kmc needs to be safe with paths a user
// names: read only regular files, of a bounded size, without blocking on a FIFO; write
// output to a path that may be a regular file (all or nothing), a symlink (its target,
// the link kept), a device, a FIFO or a standard stream (in place, nothing replaced); and
// name temporary files with the pid of the process that made them, so that a later run
// can remove those whose process is gone and nothing else. It imports only the standard
// library.
package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Kind names the kind of file mode m describes, as errors say it: "a regular file", "a
// directory", "a symlink", "a named pipe", "a socket" or "a device".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a device"
}

// ErrNotRegular is the error, wrapped, of OpenRegular and ReadFile for a path that is not
// a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is the error, wrapped, of ReadFile for a file beyond its limit.
var ErrTooLarge = errors.New("larger than the limit")

// OpenRegular opens path for reading if it is a regular file (after symlinks), and
// otherwise returns an error that wraps ErrNotRegular and names what it is ("PATH: not a
// regular file (a named pipe)"). It never blocks on a named pipe: where the system allows
// it, the file is opened without waiting for a writer and checked before anything is
// read.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) { return openRegular(path, 0) }

// OpenOwn is OpenRegular for a file of a folder kmc owns (a checkpoint's): a symlink there
// is not followed but refused, as anything but a regular file is.
func OpenOwn(path string) (*os.File, fs.FileInfo, error) {
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, fmt.Errorf("%s: %w (a symlink)", path, ErrNotRegular)
	}
	return openRegular(path, noFollow)
}

func openRegular(path string, flag int) (*os.File, fs.FileInfo, error) {
	f, err := openNoWait(path, flag)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			// A socket cannot be opened at all: say what it is, as for the others.
			return nil, nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, Kind(fi.Mode()))
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, Kind(fi.Mode()))
	}
	return f, fi, nil
}

// ReadFile reads the regular file path whole, as os.ReadFile does, if it holds at most max
// bytes (max < 0: no limit). Anything but a regular file is an error (OpenRegular), and so
// is a file larger than max, found from its size before anything is read, or as it is read
// should it grow: an error that wraps ErrTooLarge and names both sizes.
func ReadFile(path string, max int64) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := fi.Size()
	if max >= 0 && size > max {
		return nil, tooLarge(path, size, max)
	}
	r := io.Reader(f)
	if max >= 0 {
		r = io.LimitReader(f, max+1)
	}
	var b bytes.Buffer
	b.Grow(int(size) + bytes.MinRead) // a file that did not grow reads without a copy
	if _, err := b.ReadFrom(r); err != nil {
		return nil, err
	}
	if max >= 0 && int64(b.Len()) > max {
		return nil, tooLarge(path, int64(b.Len()), max)
	}
	return b.Bytes(), nil
}

func tooLarge(path string, size, max int64) error {
	return fmt.Errorf("%s: %w: %d bytes or more, the limit is %d", path, ErrTooLarge, size, max)
}

// WriteFile writes data to path, as Write does.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write writes what fill writes to path, according to what path is:
//   - nothing yet, or a regular file: all or nothing. fill writes a temporary file in the
//     same folder (a short name of its own, so that a long path still works), whose Close is
//     checked, and which is then renamed over path. A new file gets mode perm, an existing
//     one keeps its own.
//   - a symlink: the file it leads to is written as above, and the link stays a link.
//   - a standard stream (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), a device
//     (/dev/null, a terminal) or a named pipe: written in place, nothing created, renamed
//     or removed; a stream is appended to, so that "kmc ... -o /dev/stdout >> log" appends.
//     A named pipe with no reader is an error at once, not a wait.
//   - a directory, a socket, a symlink to nothing: an error.
//
// When fill or the write fails, a temporary file is removed and path is untouched (in
// place, what was written stays written).
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	werr := func(err error) error { return fmt.Errorf("write %s: %w", path, err) }
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return werr(errors.New("a symlink to a missing file"))
		}
		return replace(path, perm, fill)
	case err != nil:
		return werr(err)
	case fi.IsDir():
		return werr(errors.New("is a directory"))
	case fi.Mode().IsRegular() && !isStream(path):
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return werr(err)
		}
		return replace(real, fi.Mode().Perm(), fill)
	}
	f, err := openInPlace(path, fi.Mode(), isStream(path))
	if err != nil {
		return werr(err)
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return werr(err)
	}
	return nil
}

// replace writes fill's output to a new file in path's folder and renames it to path.
func replace(path string, mode fs.FileMode, fill func(io.Writer) error) error {
	RemoveStale(filepath.Dir(path), ".kmc-", ".tmp") // what a kmc killed while writing here left
	tmp, err := CreateTemp(filepath.Dir(path), ".kmc-", ".tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer Track(tmp.Name())()
	err = fill(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// isStream reports whether path names a standard stream or an open file descriptor, which
// is written in place whatever it leads to.
func isStream(path string) bool {
	switch p := filepath.Clean(path); {
	case p == "/dev/stdout" || p == "/dev/stderr":
		return true
	case strings.HasPrefix(p, "/dev/fd/"), strings.HasPrefix(p, "/proc/self/fd/"):
		return true
	}
	return false
}

// CreateTemp creates a new file in dir ("": os.TempDir()) named prefix, this process's
// pid, "-", a random part and suffix, as os.CreateTemp does: RemoveStale can tell later
// whether the process that made it is gone.
func CreateTemp(dir, prefix, suffix string) (*os.File, error) {
	return os.CreateTemp(dir, prefix+strconv.Itoa(os.Getpid())+"-*"+suffix)
}

// MkdirTemp creates a new folder in dir named as CreateTemp names a file (no suffix).
func MkdirTemp(dir, prefix string) (string, error) {
	return os.MkdirTemp(dir, prefix+strconv.Itoa(os.Getpid())+"-*")
}

// RemoveStale removes from dir the files and folders named as CreateTemp and MkdirTemp
// name them with prefix and suffix whose process is gone, and returns their paths. It
// removes only what this user owns, never a symlink, and nothing whose process may still
// run: where the system cannot tell (not Unix), nothing. A folder goes with what it holds
// (symlinks in it are removed, not followed).
func RemoveStale(dir, prefix, suffix string) ([]string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		pid, ok := pidOf(e.Name(), prefix, suffix)
		if !ok || e.Type()&fs.ModeSymlink != 0 || !(e.Type().IsRegular() || e.IsDir()) || !processGone(pid) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !ownedByMe(fi) {
			continue
		}
		if e.IsDir() {
			err = os.RemoveAll(path)
		} else {
			err = os.Remove(path)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// pidOf reads the pid of a name made by CreateTemp or MkdirTemp: prefix, the pid, "-",
// a random part of digits, then suffix.
func pidOf(name, prefix, suffix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	if rest, ok = strings.CutSuffix(rest, suffix); !ok {
		return 0, false
	}
	p, random, ok := strings.Cut(rest, "-")
	if !ok || random == "" || strings.Trim(random, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != p {
		return 0, false
	}
	return pid, true
}

// tracked are the temporary files and folders this process made and has not yet renamed or
// removed (Track).
var tracked struct {
	sync.Mutex
	paths map[string]bool
}

// Track records path, a temporary file or folder this process made, until the function
// returned is called (once it is renamed into place or removed), so that RemoveTracked can
// remove it on an exit that skips the usual clean-up.
func Track(path string) (forget func()) {
	tracked.Lock()
	if tracked.paths == nil {
		tracked.paths = map[string]bool{}
	}
	tracked.paths[path] = true
	tracked.Unlock()
	return func() {
		tracked.Lock()
		delete(tracked.paths, path)
		tracked.Unlock()
	}
}

// RemoveTracked removes what Track records (a folder with what it holds, never following
// a symlink): for an exit that skips deferred clean-up, such as kmc's on a second
// interrupt.
func RemoveTracked() {
	tracked.Lock()
	defer tracked.Unlock()
	for p := range tracked.paths {
		os.RemoveAll(p)
		delete(tracked.paths, p)
	}
}

// ErrLocked is the error, wrapped, of Lock for a file another process holds locked.
var ErrLocked = errors.New("locked by another process")

// Lock creates (or opens) the regular file path, never through a symlink, and takes an
// exclusive lock on it (flock: released when the file is closed or the process ends, however
// it ends), without waiting: a lock another process holds is an error wrapping ErrLocked.
// The caller closes the file to release it.
func Lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow|nonBlock, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
