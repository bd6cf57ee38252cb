//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/schemas"
)

// buildVerdict builds the verdict binary into a temporary directory, for
// tests that send it signals.
func buildVerdict(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "verdict")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestSIGTERM sends SIGTERM (what Docker and Kubernetes send) to a
// running capture and to a running ingest, and SIGINT (Ctrl-C) to a
// capture: capture writes its bundle marked incomplete and exits 143 or
// 130, its requests in flight recorded as cancelled (issue 16), and
// ingest leaves neither a bundle nor a temporary directory (issue 15:
// SIGTERM killed the process outright).
func TestSIGTERM(t *testing.T) {
	bin := buildVerdict(t)
	fs := fakeserver.New(fakeserver.Config{TTFT: 10 * time.Millisecond, TokenDelay: 5 * time.Millisecond, OutputTokens: 50})
	ts := httptest.NewServer(fs)
	t.Cleanup(ts.Close)
	url := ts.URL
	// capturing waits until the capture is past its preflight request and
	// has had requests answered, however slowly the process starts.
	capturing := func() {
		t.Helper()
		n := len(fs.Traces("capture-"))
		for deadline := time.Now().Add(30 * time.Second); len(fs.Traces("capture-")) < n+4; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the capture sent no requests within 30 s")
			}
		}
	}
	dir := t.TempDir()
	dest := filepath.Join(dir, "cut.bundle")
	cmd := exec.Command(bin, "capture", "--endpoint", url+"/v1/completions", "--model", "m", "--synthetic", "8/50",
		"--scenario", "concurrency", "--max-concurrency", "4", "--num-prompts", "100000", "--gpu", "none", "-o", dest)
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	capturing()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 || !strings.Contains(errb.String(), "capture interrupted") {
		t.Fatalf("capture after SIGTERM: %v\n%s", err, errb.String())
	}
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := b.Runs(context.Background())
	if len(runs) != 1 || !contains(runs[0].Flags, "incomplete") {
		t.Errorf("runs %+v", runs)
	}

	// Ctrl-C: the requests in flight are cancelled, not failed; exit 130.
	dest = filepath.Join(dir, "int.bundle")
	cmd = exec.Command(bin, "capture", "--endpoint", url, "--model", "m", "--synthetic", "8/50",
		"--scenario", "concurrency", "--max-concurrency", "4", "--num-prompts", "100000", "--gpu", "none", "-o", dest)
	var outb strings.Builder
	errb.Reset()
	cmd.Stdout, cmd.Stderr = &outb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	capturing()
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(errb.String(), "capture interrupted") {
		t.Fatalf("capture after SIGINT: %v\n%s\n%s", err, outb.String(), errb.String())
	}
	if b, err = schemas.OpenBundle(dest); err != nil {
		t.Fatal(err)
	}
	var cancelled, failed int
	b.Requests(context.Background(), func(q *schemas.Request) error {
		switch q.Status {
		case schemas.StatusCancelled:
			cancelled++
		case schemas.StatusError:
			failed++
		}
		return nil
	})
	runs, _ = b.Runs(context.Background())
	if cancelled < 1 || cancelled > 4 || failed != 0 || len(runs) != 1 || runs[0].Failed.V != 0 ||
		!strings.Contains(outb.String(), fmt.Sprintf("0 failed, %d cancelled", cancelled)) {
		t.Errorf("after SIGINT: %d cancelled, %d failed, runs %+v\n%s", cancelled, failed, runs, outb.String())
	}

	// ingest of a large input, stopped while it reads
	big := filepath.Join(dir, "big.json")
	gen := exec.Command("go", "run", "../../internal/tools/gen", "-format", "vllm", "-requests", "300000", "-chunks", "4")
	f, _ := os.Create(big)
	gen.Stdout = f
	if err := gen.Run(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "big.bundle")
	ing := exec.Command(bin, "ingest", "-o", out, big)
	if err := ing.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	ing.Process.Signal(syscall.SIGTERM)
	err = ing.Wait()
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Skipf("ingest finished before the signal (%v); the machine is too fast for this check", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("ingest was killed by the signal instead of stopping: %v", ws)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".big.bundle*"))
	if _, err := os.Stat(out); err == nil || len(left) > 0 {
		t.Errorf("after SIGTERM: bundle or temporary directory left %v", left)
	}
}
