package app

import "syscall"

// rlimit returns the soft RLIMIT_AS ("as") or RLIMIT_DATA ("data"), false when unlimited.
func rlimit(which string) (uint64, bool) {
	res := syscall.RLIMIT_AS
	if which == "data" {
		res = syscall.RLIMIT_DATA
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(res, &rl); err != nil || rl.Cur == ^uint64(0) {
		return 0, false
	}
	return rl.Cur, true
}
