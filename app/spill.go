package app

import (
	"errors"
	"fmt"
	"os"

	"kmc/fsx"
)

// The spill folder (Search.SpillDir): where the frontier and the liveness graph go when
// they outgrow their share of the memory budget. Its files are named with the pid of the
// kmc that made them (kmc-frontier-PID-*.spill, kmc-graph-PID-*.bin) and unlinked once
// created where the system allows it, so that nothing is left whatever ends the process;
// those an older kmc left are removed by the next run whose process is gone.

// SpillDirError is a spill folder that cannot be used: missing, not a folder, or one where
// no file can be created and written.
type SpillDirError struct {
	Dir string
	Err error
}

func (e *SpillDirError) Error() string { return fmt.Sprintf("--spill-dir %s: %v", e.Dir, e.Err) }
func (e *SpillDirError) Unwrap() error { return e.Err }

// spillKinds are the prefixes and suffixes of the spill files the engine writes.
var spillKinds = [][2]string{{"kmc-frontier-", ".spill"}, {"kmc-graph-", ".bin"}, {"kmc-probe-", ".tmp"}}

// CheckSpillDir checks, before a search, that dir ("": the system's temporary folder) is
// a folder in which a file can be created and written (a probe, removed), and removes the
// spill files that kmc processes now gone left there (fsx.RemoveStale), which it returns.
func CheckSpillDir(dir string) ([]string, error) {
	d := dir
	if d == "" {
		d = os.TempDir()
	}
	fi, err := os.Stat(d)
	if err != nil {
		return nil, &SpillDirError{Dir: d, Err: err}
	}
	if !fi.IsDir() {
		return nil, &SpillDirError{Dir: d, Err: errors.New("not a folder (" + fsx.Kind(fi.Mode()) + ")")}
	}
	f, err := fsx.CreateTemp(d, "kmc-probe-", ".tmp")
	if err != nil {
		return nil, &SpillDirError{Dir: d, Err: err}
	}
	_, err = f.Write([]byte{0})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	os.Remove(f.Name())
	if err != nil {
		return nil, &SpillDirError{Dir: d, Err: err}
	}
	var removed []string
	for _, k := range spillKinds {
		r, _ := fsx.RemoveStale(d, k[0], k[1])
		removed = append(removed, r...)
	}
	return removed, nil
}
