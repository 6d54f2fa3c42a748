package app

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// The default memory budget of a search is the smallest of:
//   - 60% of the machine's memory (MemTotal in /proc/meminfo);
//   - 60% of the memory limit of the process's control group (cgroup v2 memory.max, v1
//     memory.limit_in_bytes, of its group and every group above it);
//   - a third of the address-space and data limits (ulimit -v, ulimit -d: RLIMIT_AS,
//     RLIMIT_DATA). They count virtual memory, of which the Go runtime reserves more than it
//     uses, and a table that grows needs its old and new copies at once: under ulimit -v
//     4GiB a search with a 2.4GiB budget died out of memory, with 1.33GiB it stopped
//     cleanly at 1.75GB resident.
// Without any of them there is no budget.

// memorySources is where the limits are read; tests replace them.
type memorySources struct {
	readFile func(name string) ([]byte, error)
	// rlimit returns the soft limit of "as" or "data", and false when there is none.
	rlimit func(which string) (uint64, bool)
}

var osMemorySources = memorySources{readFile: os.ReadFile, rlimit: rlimit}

// DefaultMemory is the memory budget of a search whose spec and caller set none (see
// above), or 0: no budget.
func DefaultMemory() int64 {
	n, _ := memoryBudget(osMemorySources)
	return n
}

// memoryBudget is the default budget (see above) and the limit it comes from, or 0.
func memoryBudget(src memorySources) (int64, string) {
	var least uint64
	var from string
	take := func(limit uint64, what string, share func(uint64) uint64) {
		if limit == 0 || limit >= 1<<62 {
			return
		}
		if n := share(limit); least == 0 || n < least {
			least, from = n, what
		}
	}
	sixty := func(n uint64) uint64 { return n / 10 * 6 }
	third := func(n uint64) uint64 { return n / 3 }
	if kb, ok := memTotalKB(src); ok {
		take(kb*1024, "MemTotal", sixty)
	}
	if n, what, ok := cgroupLimit(src); ok {
		take(n, what, sixty)
	}
	if n, ok := src.rlimit("as"); ok {
		take(n, "RLIMIT_AS", third)
	}
	if n, ok := src.rlimit("data"); ok {
		take(n, "RLIMIT_DATA", third)
	}
	return int64(least), from
}

func memTotalKB(src memorySources) (uint64, bool) {
	data, err := src.readFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}

// cgroupLimit is the least memory limit of the process's control group and the groups
// above it, in cgroup v2 (mounted at /sys/fs/cgroup, or /sys/fs/cgroup/unified beside v1)
// and v1 (/sys/fs/cgroup/memory).
func cgroupLimit(src memorySources) (uint64, string, bool) {
	data, err := src.readFile("/proc/self/cgroup")
	if err != nil {
		return 0, "", false
	}
	var least uint64
	var from string
	found := false
	try := func(file, what string) {
		b, err := src.readFile(file)
		if err != nil {
			return
		}
		s := strings.TrimSpace(string(b))
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 || n >= 1<<62 { // "max", or v1's "unlimited" (about 2^63)
			return
		}
		if !found || n < least {
			least, from, found = n, what, true
		}
	}
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		var roots []string
		var file, what string
		switch {
		case parts[0] == "0" && parts[1] == "":
			roots, file, what = []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}, "memory.max", "cgroup memory.max"
		case hasController(parts[1], "memory"):
			roots, file, what = []string{"/sys/fs/cgroup/memory"}, "memory.limit_in_bytes", "cgroup memory.limit_in_bytes"
		default:
			continue
		}
		for _, root := range roots {
			for p := path.Clean(parts[2]); ; p = path.Dir(p) {
				try(path.Join(root, p, file), what)
				if p == "/" {
					break
				}
			}
		}
	}
	return least, from, found
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// withMemoryLimit sets the Go runtime's soft memory limit to a search's budget (none for 0)
// and returns the func that restores the previous limit: the engine keeps its live memory
// (tables, transient copies, the runtime's overhead) within the budget, and the limit has
// the collector free the old copies of grown tables before the process's resident memory
// goes beyond it.
func withMemoryLimit(budget int64) (restore func()) {
	if budget <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(budget)
	return func() { debug.SetMemoryLimit(prev) }
}

// MemoryCap is the largest memory budget the process's address-space and data limits
// (ulimit -v, ulimit -d) allow a search, a third of the least of them, as for the default
// budget (see above: beyond it Go's allocator dies out of memory before the budget stops
// the search), and the limit it comes from; 0 when neither is set.
func MemoryCap() (int64, string) { return memoryCap(osMemorySources) }

func memoryCap(src memorySources) (int64, string) {
	var least uint64
	var from string
	for _, l := range []struct{ which, name string }{{"as", "ulimit -v (RLIMIT_AS)"}, {"data", "ulimit -d (RLIMIT_DATA)"}} {
		if n, ok := src.rlimit(l.which); ok && n > 0 && n < 1<<62 && (least == 0 || n < least) {
			least, from = n, l.name
		}
	}
	return int64(least / 3), from
}
