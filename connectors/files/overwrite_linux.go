package files

import (
	"errors"
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// errExchangeUnsupported: the filesystem cannot exchange two paths atomically.
var errExchangeUnsupported = errors.New("atomic exchange not supported")

// exchange swaps a and b atomically (renameat2 with RENAME_EXCHANGE).
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errExchangeUnsupported
	}
	return err
}

// deviceOf is the filesystem device an entry lives on.
func deviceOf(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}
