package ingest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHashFile: a file's hash, computed on its own goroutine, is its
// SHA-256; one that cannot be read gives "" and the failure, which the
// driver reports.
func TestHashFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	data := make([]byte, 3<<20+5) // more than one buffer
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	in := &Input{Path: path, digest: hashFile(path)} // started by SHA256
	if got, want := in.SHA256(), fmt.Sprintf("%x", sha256.Sum256(data)); got != want || in.hashErr() != nil {
		t.Errorf("SHA256 %s (%v), want %s", got, in.hashErr(), want)
	}
	bad := &Input{Path: dir, digest: hashFile(dir)} // a directory opens but does not read
	if bad.SHA256() != "" || bad.hashErr() == nil {
		t.Errorf("a directory hashed to %q, %v", bad.SHA256(), bad.hashErr())
	}
	if given := NewInput("x", 1, "abc", nil); given.SHA256() != "abc" || given.hashErr() != nil {
		t.Errorf("NewInput: %q", given.SHA256())
	}
}

// TestHashStartsWhenNeeded: a digest does not read its file until its
// reading begins or its sum is asked for (every input is prepared before
// the first is read), and a cancelled one stops.
func TestHashStartsWhenNeeded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := hashFile(path)
	select {
	case <-d.done:
		t.Fatal("hashed before anybody asked")
	case <-time.After(20 * time.Millisecond):
	}
	if in := (&Input{digest: d}); in.SHA256() != fmt.Sprintf("%x", sha256.Sum256([]byte("abc"))) || in.hashErr() != nil {
		t.Errorf("asked: %q, %v", in.SHA256(), in.hashErr())
	}
	stopped := hashFile(path)
	stopped.cancel()
	stopped.wait()
	if !errors.Is(stopped.err, errHashStopped) {
		t.Errorf("cancelled hash: %q, %v", stopped.sum, stopped.err)
	}
}
