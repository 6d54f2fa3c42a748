//go:build !linux

package main

// rlimit reports no limit where kmc does not read them (outside Linux).
func rlimit(string) (uint64, bool) { return 0, false }
