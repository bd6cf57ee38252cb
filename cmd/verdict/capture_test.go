package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbauerster/mpb/v8"

	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/schemas"
)

func startFake(t *testing.T, cfg fakeserver.Config) string {
	t.Helper()
	ts := httptest.NewServer(fakeserver.New(cfg))
	t.Cleanup(ts.Close)
	return ts.URL
}

// grepTree fails the test when any file under dir contains secret.
func grepTree(t *testing.T, dir, secret string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, _ := os.ReadFile(p)
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if n < 4 {
		t.Errorf("only %d files in %s", n, dir)
	}
}

func TestCaptureCLI(t *testing.T) {
	const key = "sk-cli-secret-77e1"
	url := startFake(t, fakeserver.Config{TTFT: 10 * time.Millisecond, TokenDelay: 2 * time.Millisecond, APIKey: key, ErrorRate: 0.1, Seed: 3})
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte(key+"\n"), 0o600)

	t.Setenv(apiKeyEnv, key)
	env := filepath.Join(dir, "env.bundle")
	code, out, errs := runCLI(t, "capture", "--endpoint", url+"/v1/chat/completions", "--model", "fake", "--synthetic", "16/4-8",
		"--scenario", "server", "--rate", "200", "--burstiness", "0.5", "--max-concurrency", "4", "--num-prompts", "30", "--warmup", "2",
		"--gpu", "none", "--label", "platform=loopback", "-o", env)
	if code != 0 {
		t.Fatalf("capture: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"wrote " + env, "30 requests scheduled", "2 warm-up", "ttft ", "itl_chunk", "request_throughput",
		"calibration against the reference server", "TTFT vs server send"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "measured requests failed: HTTP 500") {
		t.Errorf("stderr %q", errs)
	}
	t.Setenv(apiKeyEnv, "")
	file := filepath.Join(dir, "file.bundle")
	code, out2, errs2 := runCLI(t, "capture", "--endpoint", url+"/v1", "--model", "fake", "--synthetic", "16/4",
		"--scenario", "concurrency", "--max-concurrency", "3", "--duration", "100ms", "--api-key-file", keyFile, "--gpu", "none", "-o", file)
	if code != 0 || !strings.Contains(out2, "wrote "+file) {
		t.Fatalf("capture with a key file: exit %d\n%s\n%s", code, out2, errs2)
	}
	for _, b := range []string{env, file} {
		grepTree(t, b, key)
		bundle, err := schemas.OpenBundle(b)
		if err != nil {
			t.Fatal(err)
		}
		runs, _ := bundle.Runs(context.Background())
		if len(runs) != 1 || runs[0].Completed.V == 0 || runs[0].Tool != "verdict-capture" {
			t.Errorf("%s: runs %+v", b, runs)
		}
	}
	for _, s := range []string{out, errs, out2, errs2} {
		if strings.Contains(s, key) {
			t.Errorf("the API key was printed: %s", s)
		}
	}
	// Without the key the preflight request is refused: exit 2 at once,
	// with the server's message, and no bundle. With --no-preflight every
	// request is refused, and the refusal is recorded, not fatal.
	nokey := filepath.Join(dir, "nokey.bundle")
	args := []string{"capture", "--endpoint", url, "--model", "fake", "--synthetic", "8/2",
		"--scenario", "single-stream", "--num-prompts", "2", "--gpu", "none", "-o", nokey}
	code, _, errs = runCLI(t, args...)
	if _, err := os.Stat(nokey); code != exitInput || !strings.Contains(errs, "preflight request to "+url+"/v1/completions failed: HTTP 401: invalid or missing API key") || err == nil {
		t.Errorf("no key: exit %d %s", code, errs)
	}
	code, out, _ = runCLI(t, append(args, "--no-preflight")...)
	if code != 0 || !strings.Contains(out, "0 ok, 2 failed") {
		t.Errorf("no key, --no-preflight: exit %d %s", code, out)
	}
}

// TestCapturePreflight: a dead or wrong endpoint stops capture before the
// run with exit 2 and the real cause, leaving nothing behind.
func TestCapturePreflight(t *testing.T) {
	url := startFake(t, fakeserver.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	cases := []struct {
		endpoint []string
		want     string
	}{
		{[]string{"--endpoint", closed}, "preflight request to " + closed + "/v1/completions failed: sending: dial tcp " + ln.Addr().String() + ": connect: connection refused"},
		{[]string{"--endpoint", url + "/v2/chat/completions"}, "failed: HTTP 404: not found: /v2/chat/completions"},
		{[]string{"--endpoint", url + "/v1/chat/completions", "--api", "completions"}, "--endpoint: endpoint " + url + "/v1/chat/completions is the chat_completions API but --api asks for completions"},
		{[]string{"--endpoint", url + "/v1", "--api", "embeddings"}, `--api: API "embeddings": want completions or chat`},
	}
	for _, c := range cases {
		start := time.Now()
		args := append([]string{"capture", "--model", "m", "--synthetic", "8/2", "--scenario", "concurrency", "--max-concurrency", "2",
			"--num-prompts", "100", "--gpu", "none", "-o", filepath.Join(dir, "b")}, c.endpoint...)
		code, out, errs := runCLI(t, args...)
		if code != exitInput || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 with %q", c.endpoint, code, out, errs, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v: took %s", c.endpoint, d)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed captures left files: %v", entries)
	}
	// A base URL with --api chat reaches the chat API.
	code, out, errs := runCLI(t, "capture", "--endpoint", url+"/v1/", "--api", "chat", "--model", "m", "--synthetic", "8/2",
		"--scenario", "single-stream", "--num-prompts", "2", "--gpu", "none", "-o", filepath.Join(dir, "chat.bundle"))
	if code != 0 || !strings.Contains(out, "2 ok, 0 failed") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	b, _ := schemas.OpenBundle(filepath.Join(dir, "chat.bundle"))
	runs, _ := b.Runs(context.Background())
	if len(runs) != 1 || runs[0].Endpoint != url+"/v1/chat/completions" {
		t.Errorf("runs %+v", runs)
	}
}

func TestCaptureInterrupted(t *testing.T) {
	url := startFake(t, fakeserver.Config{TTFT: 10 * time.Millisecond, TokenDelay: 5 * time.Millisecond, OutputTokens: 50})
	dest := filepath.Join(t.TempDir(), "cut.bundle")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	time.AfterFunc(400*time.Millisecond, func() { cancel(&interrupted{sig: os.Interrupt}) })
	var out, errb bytes.Buffer
	code := run(ctx, []string{"verdict", "capture", "--endpoint", url + "/v1/completions", "--model", "m", "--synthetic", "8/50",
		"--scenario", "concurrency", "--max-concurrency", "4", "--num-prompts", "1000", "--gpu", "none", "-o", dest}, &out, &errb)
	if code != 130 || !strings.Contains(errb.String(), "capture interrupted") || !regexp.MustCompile(`\d+ ok, 0 failed, [1-4] cancelled`).MatchString(out.String()) {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := b.Runs(context.Background())
	rq := b.Manifest.Sources[0].Counts[schemas.TableRequests]
	if len(runs) != 1 || !contains(runs[0].Flags, "incomplete") || rq.Read != 1000 || rq.Ingested+rq.Rejected != 1000 {
		t.Errorf("runs %+v counts %+v", runs, rq)
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func TestCaptureUsage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b")
	base := []string{"capture", "--endpoint", "http://127.0.0.1:1/v1/completions", "--model", "m", "-o", out, "--gpu", "none"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"capture", "--model", "m", "-o", out}, `Required flags "endpoint, scenario" not set`},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1"), "give one of --dataset FILE and --synthetic IN/OUT"},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1", "--synthetic", "8/8", "--dataset", "x"), "give one of --dataset"},
		{append(base, "--scenario", "server", "--rate", "1", "--synthetic", "8/8"), "give one of --num-prompts N and --duration D"},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1", "--duration", "1s", "--synthetic", "8/8"), "give one of --num-prompts"},
		{append(base, "--scenario", "burst", "--num-prompts", "1", "--synthetic", "8/8"), `--scenario "burst"`},
		{append(base, "--scenario", "server", "--num-prompts", "1", "--synthetic", "8/8"), "finite rate > 0"},
		{append(base, "--scenario", "offline", "--burstiness", "2", "--num-prompts", "1", "--synthetic", "8/8"), "--burstiness applies"},
		{append(base, "--scenario", "server", "--rate", "1", "--ramp-up", "0/1s", "--num-prompts", "1", "--synthetic", "8/8"), "--ramp-up"},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1", "--synthetic", "8"), "--synthetic \"8\""},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1", "--dataset", filepath.Join(dir, "none.jsonl")), "--dataset:"},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1", "--synthetic", "8/8", "--extra-body", "[1]"), "--extra-body"},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1", "--synthetic", "8/8", "--header", "nocolon"), "--header"},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1", "--synthetic", "8/8", "--gpu", "tpu"), `--gpu "tpu"`},
		{append(base, "--scenario", "server", "--rate", "1", "--num-prompts", "1", "--synthetic", "8/8", "--api-key-file", filepath.Join(dir, "nokey")), "--api-key-file"},
		{[]string{"capture", "--endpoint", "http://h/v1/embeddings", "--model", "m", "-o", out, "--gpu", "none", "--scenario", "offline", "--num-prompts", "1", "--synthetic", "8/8"}, "--endpoint: endpoint http://h/v1/embeddings: give a base URL"},
		{[]string{"fakeserver", "--error-rate", "2"}, "fault rates must be in [0, 1]"},
		{[]string{"fakeserver", "--listen", "not-an-address"}, "--listen"},
		{[]string{"fakeserver", "extra"}, "takes no arguments"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		if code != exitInput || !strings.Contains(errs, c.want) {
			t.Errorf("verdict %s: exit %d, stderr %q; want 2 with %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed commands left files: %v", entries)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestFakeserverCLI(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"verdict", "fakeserver", "--listen", "127.0.0.1:0", "--ttft", "1ms", "--token-delay", "1ms", "--output-tokens", "3"}, &out, &errb)
	}()
	addr := regexp.MustCompile(`http://[0-9.:]+`)
	var url string
	for deadline := time.Now().Add(5 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		url = addr.FindString(out.String())
	}
	if url == "" {
		cancel()
		t.Fatalf("no address printed: %q %q", out.String(), errb.String())
	}
	dest := filepath.Join(t.TempDir(), "b")
	code, stdout, stderr := runCLI(t, "capture", "--endpoint", url+"/v1/completions", "--model", "m", "--synthetic", "4/3",
		"--scenario", "offline", "--num-prompts", "5", "--gpu", "none", "-o", dest)
	if code != 0 || !strings.Contains(stdout, "5 ok, 0 failed") || !strings.Contains(stdout, "5 requests compared") {
		t.Errorf("capture against verdict fakeserver: %d\n%s\n%s", code, stdout, stderr)
	}
	resp, err := http.Get(url + "/fakeserver/traces")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("traces: %v", err)
	} else {
		resp.Body.Close()
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("fakeserver exit %d: %s", code, errb.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("fakeserver did not stop")
	}
}

func TestCaptureHelp(t *testing.T) {
	for _, cmd := range []string{"capture", "fakeserver"} {
		code, out, _ := runCLI(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "verdict "+cmd) {
			t.Errorf("%s --help: %d %.300s", cmd, code, out)
		}
	}
	_, out, _ := runCLI(t, "--help")
	if !strings.Contains(out, "capture") || !strings.Contains(out, "fakeserver") {
		t.Errorf("--help lacks the commands:\n%s", out)
	}
}

func TestCaptureBar(t *testing.T) {
	for _, total := range []int64{3, 0} {
		var buf syncBuffer
		bar := &captureBar{p: &progress{p: mpb.New(mpb.WithOutput(&buf), mpb.WithAutoRefresh(), mpb.WithRefreshRate(time.Millisecond))}}
		bar.Start(total)
		bar.Done(true)
		bar.Done(false)
		finished := make(chan struct{})
		go func() { bar.finish(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(5 * time.Second):
			t.Fatalf("total %d: the progress bar never finished", total)
		}
		if !strings.Contains(buf.String(), "requests") {
			t.Errorf("total %d: bar output %q", total, buf.String())
		}
	}
	var nilBar *captureBar
	nilBar.finish() // no terminal: nothing to do
}

// TestCaptureRedactsSecrets: URL credentials, query secrets and header
// values never reach stderr or the bundle, not from an endpoint that does
// not parse, and not from a server that echoes them in its error bodies
// (issue 15).
func TestCaptureRedactsSecrets(t *testing.T) {
	const pass, query, header = "hunter2-pass", "sekrit-query-value", "hdr-secret-token"
	code, _, errs := runCLI(t, "capture", "--endpoint", "http://bob:"+pass+"@gpu-1:80x0/v1/completions?api_key="+query,
		"--model", "m", "--synthetic", "8/8", "--scenario", "offline", "--num-prompts", "1", "--gpu", "none", "-o", filepath.Join(t.TempDir(), "x.bundle"))
	if code != exitInput || strings.Contains(errs, pass) || strings.Contains(errs, query) || !strings.Contains(errs, "gpu-1") {
		t.Errorf("unparseable endpoint: exit %d, stderr %q", code, errs)
	}
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error": {"message": "bad request to %s with X-Token %s and api_key=%s"}}`, r.URL.String(), r.Header.Get("X-Token"), r.URL.Query().Get("api_key"))
	}))
	defer echo.Close()
	dest := filepath.Join(t.TempDir(), "echo.bundle")
	args := []string{"capture", "--endpoint", echo.URL + "/v1/completions?api_key=" + query, "--header", "X-Token: " + header,
		"--model", "m", "--synthetic", "8/8", "--scenario", "offline", "--num-prompts", "3", "--gpu", "none", "-o", dest}
	code, _, errs = runCLI(t, args...)
	if code != exitInput || strings.Contains(errs, query) || strings.Contains(errs, header) || !strings.Contains(errs, "failed: HTTP 400: bad request to /v1/completions?[REDACTED] with X-Token [REDACTED]") {
		t.Fatalf("echo server, preflight: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, append(args, "--no-preflight")...)
	if code != 0 || strings.Contains(errs, query) || strings.Contains(errs, header) {
		t.Fatalf("echo server: exit %d, stderr %q", code, errs)
	}
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	b.Requests(context.Background(), func(q *schemas.Request) error {
		n++
		if !strings.Contains(q.Error, "[REDACTED]") {
			t.Errorf("error text %q", q.Error)
		}
		return nil
	})
	if n != 3 {
		t.Errorf("%d requests", n)
	}
	for _, s := range []string{query, header} {
		grepTree(t, dest, s)
	}
}

// TestCaptureRateList: --rate 100,200 captures a sweep into one bundle:
// a run per rate in order, labelled with its rate and the sweep (the first
// run's ID), which verdict capacity reads as one configuration at two
// load points.
func TestCaptureRateList(t *testing.T) {
	url := startFake(t, fakeserver.Config{TTFT: 2 * time.Millisecond, TokenDelay: time.Millisecond, Seed: 5})
	dest := filepath.Join(t.TempDir(), "sweep.bundle")
	code, out, errs := runCLI(t, "capture", "--endpoint", url, "--model", "fake", "--synthetic", "16/4",
		"--scenario", "server", "--rate", "100,200", "--num-prompts", "12", "--warmup", "1", "--gpu", "none", "--label", "platform=loopback", "-o", dest)
	if code != 0 {
		t.Fatalf("capture: exit %d\n%s\n%s", code, out, errs)
	}
	if i, j := strings.Index(out, "rate 100 req/s:"), strings.Index(out, "rate 200 req/s:"); i < 0 || j < i || strings.Count(out, "12 requests scheduled: 12 ok") != 2 {
		t.Errorf("stdout:\n%s", out)
	}
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := b.Runs(context.Background())
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs: %v", len(runs), err)
	}
	for k, want := range []float64{100, 200} {
		r := runs[k]
		if r.RequestRate.V != want || r.Labels["rate"] != strconv.FormatFloat(want, 'g', -1, 64) || r.Labels["sweep"] != runs[0].ID ||
			r.Labels["platform"] != "loopback" || r.Completed.V != 12 {
			t.Errorf("run %d: rate %v, labels %v, completed %v", k, r.RequestRate, r.Labels, r.Completed)
		}
	}
	if runs[0].ID == runs[1].ID {
		t.Errorf("both runs are %s", runs[0].ID)
	}
	code, out, errs = runCLI(t, "capacity", "--resamples", "100", "--slo", "ttft:p99<=10s", dest)
	if code != 0 || !strings.Contains(out, "not reached (at least 200 requests/s)") || !strings.Contains(out, "Sweep of sweep.bundle (offered request rate)") || strings.Contains(out, "settings other than the load vary") {
		t.Errorf("capacity of the sweep: %d %s\n%s", code, errs, out)
	}
	for _, c := range []struct{ rate, want string }{{"2,x", "--rate"}, {"4,4", "listed twice"}, {"0", "--rate"}} {
		code, _, errs := runCLI(t, "capture", "--endpoint", url, "--model", "fake", "--synthetic", "16/4",
			"--scenario", "server", "--rate", c.rate, "--num-prompts", "2", "--gpu", "none", "-o", dest+c.rate)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("--rate %s: %d %s", c.rate, code, errs)
		}
	}
}
