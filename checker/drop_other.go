//go:build !linux

package checker

// dropPages would hand the pages of b back to the kernel; without madvise in package
// syscall it leaves them to the kernel, which reclaims clean file pages under pressure.
func dropPages([]byte) {}
