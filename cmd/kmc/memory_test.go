package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Reference: issue 11, defect 7: the default memory budget is the least of 60% of MemTotal
// and of the cgroup (v1, v2) limit, and a third of RLIMIT_AS and RLIMIT_DATA; it ignored all
// but MemTotal, and a search under ulimit -v ended in a Go out-of-memory crash.
func TestMemoryBudget(t *testing.T) {
	const gib = 1 << 30
	meminfo := "MemTotal:       16777216 kB\nMemFree:         1000 kB\n" // 16 GiB
	tests := []struct {
		name   string
		files  map[string]string
		rlim   map[string]uint64
		budget int64
		from   string
	}{
		{"nothing", nil, nil, 0, ""},
		{"machine", map[string]string{"/proc/meminfo": meminfo}, nil, 16 * gib / 10 * 6, "MemTotal"},
		{"ulimit -v", map[string]string{"/proc/meminfo": meminfo}, map[string]uint64{"as": 4 * gib}, 4 * gib / 3, "RLIMIT_AS"},
		{"ulimit -d", map[string]string{"/proc/meminfo": meminfo}, map[string]uint64{"as": 8 * gib, "data": 2 * gib}, 2 * gib / 3, "RLIMIT_DATA"},
		{"cgroup v2 leaf", map[string]string{"/proc/meminfo": meminfo, "/proc/self/cgroup": "0::/a/b\n",
			"/sys/fs/cgroup/a/b/memory.max": "1073741824\n", "/sys/fs/cgroup/a/memory.max": "max\n"}, nil, gib / 10 * 6, "cgroup memory.max"},
		{"cgroup v2 parent", map[string]string{"/proc/meminfo": meminfo, "/proc/self/cgroup": "0::/a/b\n",
			"/sys/fs/cgroup/a/b/memory.max": "max\n", "/sys/fs/cgroup/a/memory.max": "3221225472\n"}, nil, 3 * gib / 10 * 6, "cgroup memory.max"},
		{"cgroup v2 namespaced", map[string]string{"/proc/meminfo": meminfo, "/proc/self/cgroup": "0::/\n",
			"/sys/fs/cgroup/memory.max": "2147483648\n"}, nil, 2 * gib / 10 * 6, "cgroup memory.max"},
		{"cgroup v2 hybrid", map[string]string{"/proc/meminfo": meminfo, "/proc/self/cgroup": "4:memory:/x\n0::/y\n",
			"/sys/fs/cgroup/unified/y/memory.max": "2147483648\n"}, nil, 2 * gib / 10 * 6, "cgroup memory.max"},
		{"cgroup v1", map[string]string{"/proc/meminfo": meminfo, "/proc/self/cgroup": "5:cpu:/x\n4:blkio,memory:/docker/c1\n",
			"/sys/fs/cgroup/memory/docker/c1/memory.limit_in_bytes": "1073741824\n"}, nil, gib / 10 * 6, "cgroup memory.limit_in_bytes"},
		{"cgroup v1 unlimited", map[string]string{"/proc/meminfo": meminfo, "/proc/self/cgroup": "4:memory:/docker/c1\n",
			"/sys/fs/cgroup/memory/docker/c1/memory.limit_in_bytes": "9223372036854771712\n"}, nil, 16 * gib / 10 * 6, "MemTotal"},
	}
	for _, tt := range tests {
		src := memorySources{
			readFile: func(name string) ([]byte, error) {
				if s, ok := tt.files[name]; ok {
					return []byte(s), nil
				}
				return nil, fs.ErrNotExist
			},
			rlimit: func(which string) (uint64, bool) { n, ok := tt.rlim[which]; return n, ok },
		}
		budget, from := memoryBudget(src)
		if budget != tt.budget || from != tt.from {
			t.Errorf("%s: got %d from %q, want %d from %q", tt.name, budget, from, tt.budget, tt.from)
		}
	}
}

// TestMemoryBudgetUlimit runs the binary under ulimit -v: the budget it reports follows.
func TestMemoryBudgetUlimit(t *testing.T) {
	bin := kmcBinary(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	const limitKB = 3 << 20 // 3 GiB of address space
	cmd := exec.Command(sh, "-c", `ulimit -v 3145728 && exec "$0" check "$1" --check fixed --workers 1 --format json`, bin, spec)
	code, stdout, stderr := runBinary(t, cmd)
	if code != exitOK {
		t.Fatalf("got exit %d\n%s%s", code, stdout, stderr)
	}
	line, _, _ := bufio.NewReader(strings.NewReader(stdout)).ReadLine()
	var start struct {
		Event  string `json:"event"`
		Budget int64  `json:"memory_budget_bytes"`
	}
	if err := json.Unmarshal(line, &start); err != nil || start.Event != "start" {
		t.Fatalf("first event: %s (%v)", line, errors.Join(err))
	}
	if want := int64(limitKB) * 1024 / 3; start.Budget <= 0 || start.Budget > want {
		t.Errorf("memory budget under ulimit -v %d: got %d, want at most %d", limitKB, start.Budget, want)
	}
}

// TestPeakRSS runs the binary on a search far larger than its budget: it must stop cleanly
// (exit 3, the memory reason) with a peak resident size within 1.1 times the budget. The
// engine stops before a segment whose growth (the fingerprint table doubling, the old and
// new copies of grown arrays, the Go runtime's overhead) would take it over, and the Go
// runtime's memory limit is the budget. Before: 1.26x at 1GiB, 1.28x at 512MiB.
// Reference: issue 11, defect 7.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the peak resident size of a child process (ru_maxrss, Linux)")
	}
	bin := kmcBinary(t)
	const budget = 512 << 20
	cmd := exec.Command(bin, "check", spec, "--check", "fixed", "--set", "rms=11", "--memory", "512MiB", "--workers", "2")
	code, stdout, stderr := runBinary(t, cmd)
	if code != exitIncomplete || !strings.Contains(stdout, "Search stopped before it was complete: memory 536870912 bytes reached.") {
		t.Fatalf("got exit %d, want %d and the memory reason\n%s%s", code, exitIncomplete, stdout, stderr)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage")
	}
	peak := ru.Maxrss * 1024 // kilobytes on Linux
	t.Logf("peak resident size %d bytes, %.3f of the budget", peak, float64(peak)/budget)
	if peak > budget*11/10 {
		t.Errorf("peak resident size %d bytes, more than 1.1 times the budget %d", peak, budget)
	}
}
