package vllm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/vllm"
	"github.com/verdict-llm/verdict/schemas"
)

const sweepDir = "testdata/sweep/20260818_021333"

func readSweep(t *testing.T, dir string) *ingesttest.Result {
	t.Helper()
	s := &ingesttest.Sink{}
	if err := (vllm.Format{}).ReadDir(t.Context(), dir, s); err != nil {
		t.Fatal(err)
	}
	return &s.R
}

// TestSweepDir reads a sweep directory: three runs of two combinations
// (and one combination's warm-up, which is not a run),
// the swept settings as labels, no warning about them, summary.json and
// summary.csv agreeing with the run files (make_sweep.py writes them from
// the same payloads).
func TestSweepDir(t *testing.T) {
	r := readSweep(t, sweepDir)
	if len(r.Runs) != 3 {
		t.Fatalf("%d runs", len(r.Runs))
	}
	ingesttest.Golden(t, "sweep_dir.golden.json", ingesttest.Dump(t, r))
	// The warm-up (warmup.json, --warmup-num-prompts) is no run: none has
	// its date or its 2 prompts, and the ingest says it was left out.
	warmups := 0
	for _, w := range r.Warnings {
		switch {
		case strings.Contains(w, "failure.json"):
		case strings.Contains(w, "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8/warmup.json: the warm-up of the combination (--warmup-num-prompts), not a run of the sweep; not read"):
			warmups++
		default:
			t.Errorf("warning: %s", w)
		}
	}
	if warmups != 1 {
		t.Errorf("%d warnings name warmup.json, want 1: %q", warmups, r.Warnings)
	}
	for _, run := range r.Runs {
		if run.NumPrompts.V != 8 || strings.HasSuffix(run.SourcePath, "warmup.json") {
			t.Errorf("run %s from %s with %v prompts: the warm-up read as a run", run.ID, run.SourcePath, run.NumPrompts)
		}
	}
	seqs := map[string]int{}
	for _, run := range r.Runs {
		l := run.Labels
		if l["sweep.experiment"] != "20260818_021333" || l["sweep.bench.max_concurrency"] != "2" || l["sweep.bench.num_prompts"] != "8" || l["sweep.run_number"] == "" {
			t.Errorf("labels %v", l)
		}
		if _, ok := l["max_num_seqs"]; ok {
			t.Errorf("the swept setting is kept under sweep.serve.: %v", l)
		}
		seqs[l["sweep.serve.max_num_seqs"]]++
	}
	if seqs["4"] != 2 || seqs["8"] != 1 {
		t.Errorf("max_num_seqs labels %v", seqs)
	}
	// A combination directory alone is a sweep of one combination.
	one := readSweep(t, filepath.Join(sweepDir, "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"))
	if len(one.Runs) != 2 {
		t.Errorf("%d runs in one combination", len(one.Runs))
	}
}

// TestSweepSummaryMismatch edits a copy of the sweep: a summary.csv value
// and a summary.json value that the run files do not give are warnings.
func TestSweepSummaryMismatch(t *testing.T) {
	tmp := t.TempDir()
	filepath.Walk(sweepDir, func(p string, fi os.FileInfo, err error) error {
		rel, _ := filepath.Rel(sweepDir, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(tmp, rel), 0o755)
		}
		data, _ := os.ReadFile(p)
		switch fi.Name() {
		case "summary.csv":
			data = []byte(strings.Replace(string(data), ",217.25,", ",218.25,", 1))
		case "summary.json":
			data = []byte(strings.Replace(string(data), `"mean_ttft_ms": 150.0`, `"mean_ttft_ms": 151.0`, 1))
		}
		return os.WriteFile(filepath.Join(tmp, rel), data, 0o644)
	})
	r := readSweep(t, tmp)
	all := strings.Join(r.Warnings, "\n")
	if !strings.Contains(all, "mean_ttft_ms is 218.25, the run file gives 0.21725") || !strings.Contains(all, "run_number 0 differs from run=0.json: mean_ttft_ms") {
		t.Errorf("warnings:\n%s", all)
	}
}

// TestThroughputEnergy reads the NVML energy fields of bench throughput.
func TestThroughputEnergy(t *testing.T) {
	r, err := ingesttest.ReadFile(t, vllm.Format{}, filepath.Join("testdata", "throughput_energy.json"))
	if err != nil {
		t.Fatal(err)
	}
	run := r.Runs[0]
	for id, want := range map[schemas.MetricID]float64{schemas.GPUEnergy: 29700, schemas.GPUAvgPower: 660, schemas.GPUEnergyPerOutputToken: 0.116015625} {
		m, ok := r.Metric(run.ID, id, schemas.StatValue, -1, schemas.SourceReported)
		if !ok || m.Value.V != want {
			t.Errorf("%s: %v, want %v", id, m.Value, want)
		}
	}
	if run.Labels["vllm.energy_window_s"] != "45" || run.Labels["vllm.energy_gpu_ids"] != "[0, 1]" {
		t.Errorf("labels %v", run.Labels)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings %v", r.Warnings)
	}
	ingesttest.Golden(t, "throughput_energy.golden.json", ingesttest.Dump(t, r))
	bad := []byte(`{"elapsed_time": 1, "num_requests": 1, "requests_per_second": 1, "tokens_per_second": 1, "gpu_energy_j": 100, "gpu_energy_duration_s": 2, "gpu_avg_power_w": 60}`)
	r, err = ingesttest.ReadBytes(vllm.Format{}, "bad.json", bad)
	if err != nil || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "gpu_avg_power_w 60 is not") {
		t.Errorf("err %v warnings %v", err, r.Warnings)
	}
}
