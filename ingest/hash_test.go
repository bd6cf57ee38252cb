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

// TestHashSlots: at most cap(hashSlots) files are hashed at once, the
// others wait their turn and then hash; one abandoned while it waits
// stops without reading.
func TestHashSlots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range cap(hashSlots) {
		hashSlots <- struct{}{} // every slot taken
	}
	waiting, abandoned := hashFile(path), hashFile(path)
	select {
	case <-waiting.done:
		t.Fatal("a hash ran without a slot")
	case <-time.After(50 * time.Millisecond):
	}
	abandoned.cancel()
	<-abandoned.done
	if !errors.Is(abandoned.err, errHashStopped) {
		t.Errorf("abandoned hash: %q, %v", abandoned.sum, abandoned.err)
	}
	for range cap(hashSlots) {
		<-hashSlots
	}
	if in := (&Input{digest: waiting}); in.SHA256() != fmt.Sprintf("%x", sha256.Sum256([]byte("abc"))) {
		t.Errorf("waiting hash: %q, %v", in.SHA256(), in.hashErr())
	}
}
