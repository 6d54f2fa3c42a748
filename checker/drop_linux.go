package checker

import "syscall"

// dropPages hands the pages of b, a part of a file mapping that starts on a page boundary,
// back to the kernel: they leave the process's resident set, and are read again (from the
// page cache or the file) if touched. It is only advice: a failure changes nothing.
func dropPages(b []byte) {
	if len(b) > 0 {
		syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
