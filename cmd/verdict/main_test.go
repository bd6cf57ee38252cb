package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

// runCLI runs verdict with args and returns its exit code, stdout and
// stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"verdict"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// cliGolden compares got with testdata/name (testkit.Golden).
func cliGolden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), []byte(got))
}

const demo = "../../testdata/demo/"

func TestIngestAndShow(t *testing.T) {
	bundle := filepath.Join(t.TempDir(), "a.bundle")
	code, out, errs := runCLI(t, "ingest", "--sut", demo+"sut-a.yaml", "--label", "platform=a", "-o", bundle, demo+"platform-a.json")
	if code != 0 {
		t.Fatalf("ingest: %d %s", code, errs)
	}
	if !strings.Contains(out, "1 runs, 240 requests (0 rejected)") {
		t.Errorf("ingest output %q", out)
	}
	for _, f := range []string{"table", "markdown"} {
		code, out, errs = runCLI(t, "show", "--format", f, bundle)
		if code != 0 {
			t.Fatalf("show: %d %s", code, errs)
		}
		cliGolden(t, "show-demo-a."+f, strings.ReplaceAll(out, filepath.Dir(bundle), "TMP"))
	}
	code, out, _ = runCLI(t, "show", "--format", "json", bundle)
	if code != 0 || !strings.Contains(out, `"gpu_model": "NVIDIA H100 80GB HBM3"`) || !strings.Contains(out, `"metric_id": "itl_chunk"`) {
		t.Errorf("show json: %d %.300s", code, out)
	}
	code, out, _ = runCLI(t, "show", "--format", "csv", bundle)
	if code != 0 || !strings.Contains(out, "run,tool,format,scenario") {
		t.Errorf("show csv: %d %.300s", code, out)
	}
	// The same file again into the same bundle needs --force.
	code, _, errs = runCLI(t, "ingest", "-o", bundle, demo+"platform-a.json")
	if code != 2 || !strings.Contains(errs, "already exists (use --force") {
		t.Errorf("second ingest: %d %s", code, errs)
	}
}

func TestSchema(t *testing.T) {
	code, out, _ := runCLI(t, "schema", "--format", "markdown")
	if code != 0 {
		t.Fatal(code)
	}
	// No golden file: the registry grows with every ingestor. Check the
	// invariants instead.
	// The foundation's distinct definitions, each with unit, population
	// and window where it is a rate.
	for _, want := range []string{"### ttft: TTFT", "### itl_chunk: ITL (per chunk)", "### tpot: TPOT", "### e2e: E2E latency",
		"### request_throughput: Request throughput", "### output_token_throughput: Output token throughput",
		"| window | first dispatch -> last completion |"} {
		if !strings.Contains(out, want) {
			t.Errorf("schema lacks %q", want)
		}
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"ingest", demo + "platform-a.json"}, 2, `"out" not set`},
		{[]string{"ingest", "-o", filepath.Join(dir, "b")}, 2, "give at least one FILE"},
		{[]string{"ingest", "--bogus", "-o", filepath.Join(dir, "b"), demo + "platform-a.json"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"ingest", "-o", filepath.Join(dir, "b"), empty}, 2, "empty.json: empty file"},
		{[]string{"ingest", "-o", filepath.Join(dir, "b"), "../../ingest/vllm/testdata/truncated.json"}, 2, "truncated.json:2:53: malformed JSON"},
		{[]string{"ingest", "-o", filepath.Join(dir, "b"), "--label", "novalue", demo + "platform-a.json"}, 2, `--label "novalue": want key=value`},
		{[]string{"ingest", "-o", filepath.Join(dir, "b"), "--sut", demo + "README.md", demo + "platform-a.json"}, 2, "--sut:"},
		{[]string{"ingest", "-o", filepath.Join(dir, "b"), "--input-format", "nope", demo + "platform-a.json"}, 2, `unknown format "nope"`},
		{[]string{"ingest", "-o", filepath.Join(dir, "b"), "--format", "nope", demo + "platform-a.json"}, 2, `unknown format "nope"`},
		{[]string{"ingest", "-o", filepath.Join(dir, "b"), "--format", "nope", demo + "platform-a.json"}, 2, `warning: ingest --format is deprecated: use --input-format`},
		{[]string{"ingest", "-o", filepath.Join(dir, "b"), "--format", "vllm", "--input-format", "aiperf", demo + "platform-a.json"}, 2, `disagree`},
		{[]string{"show", filepath.Join(dir, "missing")}, 2, "no such file"},
		{[]string{"show"}, 2, "give one BUNDLE"},
		{[]string{"show", "--format", "xml", dir}, 2, `unknown format "xml"`},
		{[]string{"schema", "extra"}, 2, "takes no arguments"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.stderr) {
			t.Errorf("verdict %s: exit %d, stderr %q; want %d with %q", strings.Join(c.args, " "), code, errs, c.code, c.stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed commands left files: %v", entries)
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, cmd := range []string{"ingest", "show", "schema"} {
		if !strings.Contains(out, cmd) {
			t.Errorf("--help lacks %s", cmd)
		}
		code, out, _ := runCLI(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: %d %.200s", cmd, code, out)
		}
	}
}

// TestMaxDecompressedUsage: 0 and -1 are usage errors (issue 15: they
// silently meant the 16 GiB default).
func TestMaxDecompressedUsage(t *testing.T) {
	for _, v := range []string{"0", "-1"} {
		code, _, errs := runCLI(t, "ingest", "--max-decompressed", v, "-o", filepath.Join(t.TempDir(), "b"), demo+"platform-a.json")
		if code != 2 || !strings.Contains(errs, "--max-decompressed: give a positive number of bytes") {
			t.Errorf("--max-decompressed %s: exit %d, %q", v, code, errs)
		}
	}
}

// TestStoredPaths: a bundle stores input paths relative to where ingest
// ran, or the file name alone for an input outside it (issue 15: absolute
// paths named home directories), and the paths as given with
// --keep-paths; the SHA-256 is stored either way.
func TestStoredPaths(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(demo + "platform-a.json")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "home", "alice", "results", "run.json")
	os.MkdirAll(filepath.Dir(in), 0o755)
	os.WriteFile(in, data, 0o644)
	local := "stored_paths_test_input.json" // inside the working directory
	os.WriteFile(local, data[:len(data):len(data)], 0o644)
	defer os.Remove(local)
	for _, c := range []struct {
		flags []string
		input string
		want  string
	}{
		{nil, in, "run.json"},
		{[]string{"--keep-paths"}, in, in},
		{nil, local, local},
		{nil, "./" + local, local},
	} {
		b := filepath.Join(dir, "b.bundle")
		args := append(append([]string{"ingest", "--force"}, c.flags...), "-o", b, c.input)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
		bb, err := schemas.OpenBundle(b)
		if err != nil {
			t.Fatal(err)
		}
		runs, _ := bb.Runs(context.Background())
		src := bb.Manifest.Sources[0]
		if src.Path != c.want || runs[0].SourcePath != c.want || len(src.SHA256) != 64 {
			t.Errorf("%v: stored %q and %q, want %q", args, src.Path, runs[0].SourcePath, c.want)
		}
		raw, _ := os.ReadFile(filepath.Join(b, schemas.ManifestFile))
		if c.flags == nil && strings.Contains(string(raw), "alice") {
			t.Errorf("%v: the manifest names the home directory", args)
		}
	}
}
