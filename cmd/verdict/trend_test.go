package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/internal/gen"
	"github.com/verdict-llm/verdict/internal/testkit"
)

// trendDataset writes, in a fresh working directory, a dataset "ds" of
// two series: a TTFT regression of 20% at run 10 (engine_version v0.10)
// on GPU-0, and noise on GPU-1; it returns the package's directory (the
// golden files').
func trendDataset(t *testing.T) string {
	t.Helper()
	pkg, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	step := slices.Concat(slices.Repeat([]float64{1}, 10), slices.Repeat([]float64{1.2}, 6))
	runs := slices.Concat(gen.HistoryRuns("gpu0", 0, step, 0.01, 1), gen.HistoryRuns("gpu1", 1, slices.Repeat([]float64{1}, 16), 0.01, 2))
	if err := gen.History(context.Background(), filepath.Join(dir, "ds"), dir, runs, 0); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return pkg
}

func TestTrendGate(t *testing.T) {
	trendDataset(t)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no gate", []string{"trend", "ds"}, exitOK, "gpu0-0010 (2026-01-11T00:00:00Z)"},
		{"regression in the window", []string{"trend", "--gate", "--since", "gpu0-0008", "ds"}, exitGate, "gate FAILED since gpu0-0008"},
		{"by label", []string{"trend", "--by", "label:engine_version", "--gate", "--since", "v0.9", "ds"}, exitGate, "gpu0-0010 (v0.10)"},
		{"window after the change", []string{"trend", "--gate", "--since", "2026-01-13", "ds"}, exitOK, "gate passed since 2026-01-13"},
		{"min change above it", []string{"trend", "--gate", "--since", "gpu0-0008", "--min-change", "30%", "ds"}, exitOK, "gate passed"},
		{"gate without since", []string{"trend", "--gate", "ds"}, exitInput, "--gate needs --since"},
		{"bad by", []string{"trend", "--by", "size", "ds"}, exitInput, `unknown --by "size"`},
		{"unknown metric", []string{"trend", "--metric", "speed", "ds"}, exitInput, `unknown metric "speed"`},
		{"bad since", []string{"trend", "--gate", "--since", "yesterday", "ds"}, exitInput, "--since"},
		{"not a dataset", []string{"trend", "nowhere"}, exitInput, "nowhere"},
		{"bad format", []string{"trend", "--format", "pdf", "ds"}, exitInput, "unknown format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != c.code || !strings.Contains(out+errs, c.want) {
				t.Errorf("exit %d (want %d), want %q in:\n%s\n%s", code, c.code, c.want, out, errs)
			}
		})
	}
}

func TestTrendOutputs(t *testing.T) {
	pkg := trendDataset(t)
	for _, f := range []string{"table", "markdown"} {
		code, out, errs := runCLI(t, "trend", "--gate", "--since", "gpu0-0008", "--metric", "ttft:p99,output_token_throughput", "--format", f, "ds")
		if code != exitGate {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		testkit.Golden(t, filepath.Join(pkg, "testdata", "trend."+f), []byte(out))
	}
	// JUnit, written atomically with -o: every statistic of GPU-0 fails
	// (they all scale with the latency), none of GPU-1.
	code, _, errs := runCLI(t, "trend", "--gate", "--since", "gpu0-0008", "--format", "junit", "-o", "trend.xml", "ds")
	if code != exitGate {
		t.Fatalf("junit: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile("trend.xml")
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var failing []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				failing = append(failing, s.Name+" "+c.Name)
			}
		}
	}
	if doc.Failures != 8 || len(failing) != 8 || !strings.Contains(failing[1], "GPU-0 ttft:p99") {
		t.Errorf("junit failures %d: %v", doc.Failures, failing)
	}
	// JSON: the regression with its interval as lo and hi.
	code, out, errs := runCLI(t, "trend", "--format", "json", "--metric", "ttft:p99", "ds")
	if code != 0 {
		t.Fatal(errs)
	}
	var js struct {
		Series []struct {
			Metrics []struct {
				Changes []struct {
					RunID    string `json:"run_id"`
					Relative struct {
						Value, Lo, Hi float64
					} `json:"relative"`
					Regression bool `json:"regression"`
				} `json:"changes"`
			} `json:"metrics"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatal(err)
	}
	c := js.Series[0].Metrics[0].Changes
	if len(c) != 1 || c[0].RunID != "gpu0-0010" || !c[0].Regression || !(c[0].Relative.Lo < c[0].Relative.Value && c[0].Relative.Value < c[0].Relative.Hi) {
		t.Errorf("json changes %+v", c)
	}
}
