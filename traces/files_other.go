//go:build !unix

package traces

import "io/fs"

const noFollow, nonBlock = 0, 0

// fileID reports false: no identity on this system (a manifest is then never kmc's, and
// a folder with one needs --force).
func fileID(fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
