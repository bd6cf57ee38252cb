package aiperf_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest/aiperf"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
)

func energyOf(t *testing.T, r *ingesttest.Result, id schemas.MetricID) float64 {
	t.Helper()
	m, ok := r.Metric(r.Runs[0].ID, id, schemas.StatValue, -1, schemas.SourceComputed)
	if !ok || !m.Value.OK {
		t.Fatalf("no %s", id)
	}
	return m.Value.V
}

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestEnergy checks the run's GPU energy from energy_consumption, a
// cumulative counter: last - first per GPU, the GPU that two exporters
// report counted once. Expected values by hand from the fixtures:
// summary: GPU 1 10.0 -> 10.005 MJ (5000 J, both exporters' readings
// together), GPU 2 20.0 -> 20.0025 MJ (2500 J): 7500 J over the 12.5 s
// telemetry window, 600 W; counting GPU 1 twice would give 12499.9 J.
// JSONL: GPU 1 10.0 -> 10.0004 MJ merged over its exporters (400 J), GPU 2
// 200 J: 600 J over 1 s.
func TestEnergy(t *testing.T) {
	r, err := ingesttest.ReadFile(t, aiperf.Format{}, filepath.Join("testdata", "energy", "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if e := energyOf(t, r, schemas.GPUEnergy); !approx(e, 7500, 1e-6) {
		t.Errorf("summary energy %v J, want 7500", e)
	}
	if p := energyOf(t, r, schemas.GPUAvgPower); !approx(p, 600, 1e-6) {
		t.Errorf("summary power %v W, want 600", p)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "GPU-aaaaaaaa-0000-0000-0000-000000000001 is reported by 2 DCGM exporters; its energy is counted once") {
		t.Errorf("warnings %v", r.Warnings)
	}
	j, err := ingesttest.ReadFile(t, aiperf.Format{}, filepath.Join("testdata", "energy", "gpu_telemetry_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if e := energyOf(t, j, schemas.GPUEnergy); !approx(e, 600, 1e-6) {
		t.Errorf("jsonl energy %v J, want 600", e)
	}
	if p := energyOf(t, j, schemas.GPUAvgPower); !approx(p, 600, 1e-6) {
		t.Errorf("jsonl power %v W, want 600", p)
	}
	// A counter that falls (a driver reload) makes the energy unknown.
	reset := []byte(`{"timestamp_ns": 1772359200000000000, "gpu_index": 0, "gpu_uuid": "GPU-x", "hostname": "h", "telemetry_data": {"energy_consumption": 10.0}}
{"timestamp_ns": 1772359201000000000, "gpu_index": 0, "gpu_uuid": "GPU-x", "hostname": "h", "telemetry_data": {"energy_consumption": 0.001}}
`)
	rr, err := ingesttest.ReadBytes(aiperf.Format{}, "reset.jsonl", reset)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rr.Metric(rr.Runs[0].ID, schemas.GPUEnergy, schemas.StatValue, -1, schemas.SourceComputed); ok || !strings.Contains(strings.Join(rr.Warnings, "\n"), "energy counter fell") {
		t.Errorf("reset: warnings %v", rr.Warnings)
	}
}

// TestEnergyCorpus reads the AIPerf runs with GPU energy telemetry: each
// file's energy is the counter's max - min (the two exporters scrape one
// GPU, counted once), by hand from the files: c1 32.62748095 ->
// 32.653595882 MJ = 26114.932 J over 258.937516 s = 100.854 W, against a
// sampled mean of 129.9 W; the JSONL excerpt 32.62748095 -> 32.627743051
// MJ = 262.101 J.
func TestEnergyCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "aiperf-energy")
	for _, c := range []struct {
		file          string
		energy, power float64
	}{
		{"v0.3-era_aiperf-pr511-plot-fixture_qwen_c1_profile_export_aiperf_with_gpu_energy.json", 26114.932, 100.854184},
		{"v0.3-era_aiperf-pr511-plot-fixture_qwen_c2_profile_export_aiperf_with_gpu_energy.json", 13491.992, 103.380},
		{"v0.3-era_aiperf-pr511-plot-fixture_qwen_c1_gpu_telemetry_export.jsonl", 262.101, -1},
	} {
		r, err := ingesttest.ReadFile(t, aiperf.Format{}, filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if e := energyOf(t, r, schemas.GPUEnergy); !approx(e, c.energy, 1e-3) {
			t.Errorf("%s: energy %v J, want %v", c.file, e, c.energy)
		}
		if c.power > 0 {
			if p := energyOf(t, r, schemas.GPUAvgPower); !approx(p, c.power, 1e-3) {
				t.Errorf("%s: power %v W, want %v", c.file, p, c.power)
			}
		}
		if !strings.Contains(strings.Join(r.Warnings, "\n"), "reported by 2 DCGM exporters") {
			t.Errorf("%s: warnings %v", c.file, r.Warnings)
		}
	}
}

// TestEnergyGolden pins everything the two hand-made energy files report
// (runs, the energy and power metrics, the GPUs' samples, the warning about
// the GPU two exporters report), beyond the two numbers TestEnergy checks.
func TestEnergyGolden(t *testing.T) {
	for _, name := range []string{"profile_export_aiperf.json", "gpu_telemetry_export.jsonl"} {
		t.Run(name, func(t *testing.T) {
			golden(t, "energy_"+name+".golden.json", dump(t, read(t, filepath.Join("testdata", "energy", name))))
		})
	}
}
