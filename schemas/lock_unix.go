//go:build unix

package schemas

import (
	"os"
	"syscall"
)

// A fileLock is an advisory lock (flock(2)) held on an open file; it is
// released on Unlock, or by the kernel when the process ends, however it
// ends, so a crash never leaves a dataset locked.
type fileLock struct{ f *os.File }

// lockFile takes the lock on path, creating the file when create is set.
// exclusive takes a writer's lock, otherwise a reader's; wait says whether
// to wait for a conflicting lock, or to return errLocked.
func lockFile(path string, create, exclusive, wait bool) (*fileLock, error) {
	flag := os.O_RDONLY
	if create {
		flag = os.O_RDWR | os.O_CREATE
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, errLocked
		}
		return nil, err
	}
	return &fileLock{f}, nil
}

// Unlock releases the lock.
func (l *fileLock) Unlock() {
	if l != nil {
		l.f.Close() // closing the descriptor releases the flock
	}
}
