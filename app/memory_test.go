package app

import (
	"io/fs"
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
