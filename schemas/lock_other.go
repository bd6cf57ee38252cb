//go:build !unix

package schemas

import (
	"errors"
	"os"
	"time"
)

// A fileLock on systems without flock(2): an exclusively created marker
// file. Unlike flock it survives a crash, so a stale marker must be
// removed by hand; readers do not lock.
type fileLock struct{ path string }

func lockFile(path string, create, exclusive, wait bool) (*fileLock, error) {
	if !exclusive {
		return nil, nil
	}
	marker := path + ".held"
	for {
		f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return &fileLock{marker}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if !wait {
			return nil, errLocked
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (l *fileLock) Unlock() {
	if l != nil {
		os.Remove(l.path)
	}
}
