//go:build !linux

package files

import (
	"errors"
	"io/fs"
)

// errExchangeUnsupported: the filesystem cannot exchange two paths atomically.
var errExchangeUnsupported = errors.New("atomic exchange not supported")

// exchange is unsupported off Linux: swapIn falls back to two renames.
func exchange(a, b string) error { return errExchangeUnsupported }

// deviceOf is 0 off Linux (mount points below a removed tree are not detected).
func deviceOf(info fs.FileInfo) uint64 { return 0 }
