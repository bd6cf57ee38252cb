package schemas

import "golang.org/x/sys/unix"

// exchangeDirs swaps two paths in one atomic step (renameat2(2) with
// RENAME_EXCHANGE), so that a replaced bundle is never missing. It fails
// on file systems that do not support it; callers fall back to renames.
func exchangeDirs(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
