//go:build !linux

package schemas

import "errors"

// exchangeDirs is not available here: callers fall back to two renames
// (and CreateBundle recovers a crash between them).
func exchangeDirs(a, b string) error { return errors.New("atomic exchange not supported") }
