package genaibench_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaibench"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

const result = "experiment/N480_240_300_150_text-to-text_num_concurrency_4_time_60s.json"

func readDir(t *testing.T, dir string) *ingesttest.Result {
	t.Helper()
	s := &ingesttest.Sink{KeepRequests: true}
	if err := (genaibench.Format{}).ReadDir(t.Context(), dir, s); err != nil {
		t.Fatal(err)
	}
	return &s.R
}

func TestGolden(t *testing.T) {
	r := readDir(t, filepath.Join("testdata", "experiment"))
	ingesttest.Golden(t, "experiment.golden.json", ingesttest.Dump(t, r))
	for _, name := range []string{"bad_result.json", result} {
		got, err := ingesttest.ReadFile(t, genaibench.Format{}, filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		ingesttest.Golden(t, filepath.Base(name)+".golden.json", ingesttest.Dump(t, got))
	}
}

func value(t *testing.T, r *ingesttest.Result, id schemas.MetricID, stat string, pct float64, src string) float64 {
	t.Helper()
	m, ok := r.Metric(r.Runs[0].ID, id, stat, pct, src)
	if !ok {
		t.Fatalf("no %s %s %v %s", id, stat, pct, src)
	}
	return m.Value.V
}

// TestExperiment checks the folder: the metadata's settings, milliseconds
// scaled, the warm-up and cool-down requests trimmed by position (2 and 1
// of 10) and recomputation giving the file's statistics
// (make_fixtures.py computes them as genai-bench does), the "mean"
// throughputs stored as totals over the run timer.
func TestExperiment(t *testing.T) {
	r := readDir(t, filepath.Join("testdata", "experiment"))
	run := r.Runs[0]
	for _, w := range r.Warnings {
		if strings.Contains(w, "differ") {
			t.Errorf("recomputed statistics disagree: %s", w)
		}
	}
	if run.ToolVersion != "0.0.3" || run.SUT.GPUCount != schemas.Some(int64(2)) || run.SUT.Endpoint != "http://10.0.0.7:8000" || run.MaxConcurrency != schemas.Some(int64(4)) {
		t.Errorf("settings: %s %+v %v", run.ToolVersion, run.SUT, run.MaxConcurrency)
	}
	for k, v := range run.Labels {
		if strings.Contains(v, "sk-secret") || strings.Contains(k, "auth") {
			t.Errorf("a credential reached a label: %s=%s", k, v)
		}
	}
	if v := value(t, r, schemas.TTFT, schemas.StatP, 99, schemas.SourceReported); v < 0.1 || v > 1 {
		t.Errorf("ttft p99 %v s: not scaled from ms", v)
	}
	rep, comp := value(t, r, schemas.TTFT, schemas.StatMean, -1, schemas.SourceReported), value(t, r, schemas.TTFT, schemas.StatMean, -1, schemas.SourceComputed)
	if d := rep - comp; d > 1e-12 || d < -1e-12 {
		t.Errorf("ttft mean reported %v, computed %v", rep, comp)
	}
	// 10 requests, first 2 and last 1 trimmed, one error: 6 kept.
	m, _ := r.Metric(run.ID, schemas.E2E, schemas.StatMean, -1, schemas.SourceComputed)
	if m.N != schemas.Some(int64(6)) {
		t.Errorf("kept %v requests, want 6", m.N)
	}
	warm := 0
	for _, q := range r.Requests {
		if q.Phase == schemas.PhaseWarmup {
			warm++
		}
	}
	if warm != 3 {
		t.Errorf("%d trimmed rows, want 3", warm)
	}
	// Total output tokens of the kept requests (101+201+81+101+161+76 =
	// 721, the error excluded) over run_duration 12.5 s.
	if v := value(t, r, schemas.OutputTokenThroughputRun, schemas.StatValue, -1, schemas.SourceReported); v != 721/12.5 {
		t.Errorf("output throughput %v, want %v", v, 721/12.5)
	}
}

func TestRejections(t *testing.T) {
	r, err := ingesttest.ReadFile(t, genaibench.Format{}, filepath.Join("testdata", "bad_result.json"))
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for _, rej := range r.Rejections {
		fields[rej.Field] = true
		if rej.Line == 0 {
			t.Errorf("no line: %v", rej)
		}
	}
	for _, f := range []string{"aggregated_metrics.requests_per_second", "aggregated_metrics.num_requests", "aggregated_metrics.stats.ttft.max", "ttft", ""} {
		if !fields[f] {
			t.Errorf("no rejection of %q: %v", f, r.Rejections)
		}
	}
	if r.NumRequests != 1 {
		t.Errorf("%d requests", r.NumRequests)
	}
}

func TestFileErrors(t *testing.T) {
	for name, c := range map[string]struct{ data, want string }{
		"experiment_metadata.json": {`{"benchmark_version": "0.0.2", "traffic_scenario": [], "iteration_type": "num_concurrency"}`, "not its results"},
		"unit.json":                {`{"aggregated_metrics": {}, "individual_request_metrics": [], "_time_unit": "min"}`, `unknown time unit "min"`},
		"agg.json":                 {`{"aggregated_metrics": [], "num_completed_requests": 1}`, "aggregated_metrics: expected an object"},
	} {
		_, err := ingesttest.ReadBytes(genaibench.Format{}, name, []byte(c.data))
		var ie *ingest.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}
}

func TestDetect(t *testing.T) {
	ingesttest.CheckDetect(t, genaibench.Format{}, "genai-bench", 80, []string{result, "bad_result.json", "experiment/experiment_metadata.json"})
	if (genaibench.Format{}).DetectDir(filepath.Join("testdata", "experiment")) == 0 {
		t.Error("experiment folder not detected")
	}
}

// TestCorpus reads both real experiments as folders (metadata with its
// result, in a temporary directory) and each file alone: the metadata is
// refused with its reason, the recomputed statistics equal the files'.
func TestCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "genai-bench")
	for _, exp := range []string{"regression_main_branch", "parallel_feature_branch"} {
		t.Run(exp, func(t *testing.T) {
			tmp := t.TempDir()
			files, _ := filepath.Glob(filepath.Join(dir, "v0.0.2_genai-bench-pr132-"+exp+"_*"))
			if len(files) != 2 {
				t.Fatalf("%d files", len(files))
			}
			for _, f := range files {
				data, _ := os.ReadFile(f)
				os.WriteFile(filepath.Join(tmp, filepath.Base(f)), data, 0o644)
				_, err := ingesttest.ReadFile(t, genaibench.Format{}, f)
				if meta := strings.HasSuffix(f, "experiment_metadata.json"); meta != (err != nil) {
					t.Errorf("%s: %v", filepath.Base(f), err)
				}
			}
			r := readDir(t, tmp)
			if len(r.Runs) != 1 || len(r.Rejections) != 0 || r.Runs[0].ToolVersion != "0.0.2" {
				t.Fatalf("runs %d, rejections %v", len(r.Runs), r.Rejections)
			}
			for _, w := range r.Warnings {
				if strings.Contains(w, "differ") {
					t.Error(w)
				}
			}
			n := 0
			for _, m := range r.Metrics {
				if m.Source == schemas.SourceComputed {
					n++
				}
			}
			if n < 50 {
				t.Errorf("%d computed statistics", n)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	ingesttest.AddTypeSeedFiles(f, 40, result, "bad_result.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.ReadTwice(t, genaibench.Format{}, "fuzz.json", data)
	})
}
