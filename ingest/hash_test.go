package ingest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
	in := &Input{Path: path, digest: hashFile(path)}
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
