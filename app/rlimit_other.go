//go:build !linux

package app

// rlimit reports no limit where kmc does not read them (outside Linux).
func rlimit(string) (uint64, bool) { return 0, false }
