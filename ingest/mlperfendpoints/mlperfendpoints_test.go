package mlperfendpoints_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/ingesttest"
	"github.com/verdict-llm/verdict/ingest/mlperfendpoints"
	"github.com/verdict-llm/verdict/internal/testkit"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// No MLPerf Endpoints run has published its result_summary.json: the
// fixtures are written by hand from the tool's code (report.py and the
// metrics aggregator; testdata/make_fixtures.py, docs/formats/
// mlperf-endpoints.md), and the corpus holds configs only.

const summary = "report/performance/result_summary.json"

func readDir(t *testing.T, dir string) *ingesttest.Result {
	t.Helper()
	s := &ingesttest.Sink{}
	if err := (mlperfendpoints.Format{}).ReadDir(t.Context(), dir, s); err != nil {
		t.Fatal(err)
	}
	return &s.R
}

func TestGolden(t *testing.T) {
	ingesttest.Golden(t, "report.golden.json", ingesttest.Dump(t, readDir(t, filepath.Join("testdata", "report"))))
	r, err := ingesttest.ReadFile(t, mlperfendpoints.Format{}, filepath.Join("testdata", "result_summary_native_window.json"))
	if err != nil {
		t.Fatal(err)
	}
	ingesttest.Golden(t, "native_window.golden.json", ingesttest.Dump(t, r))
}

func value(t *testing.T, r *ingesttest.Result, id schemas.MetricID, stat string, pct float64) schemas.Metric {
	t.Helper()
	m, ok := r.Metric(r.Runs[0].ID, id, stat, pct, schemas.SourceReported)
	if !ok {
		t.Fatalf("no %s %s %v", id, stat, pct)
	}
	return m
}

// TestDefinitions checks nanoseconds to seconds, numpy's "lower"
// percentiles (an observed value), the sample std, the legacy window's
// qps = (completed - 1) / window, early-stopping nulls kept as missing.
func TestDefinitions(t *testing.T) {
	r := readDir(t, filepath.Join("testdata", "report"))
	for _, w := range r.Warnings {
		if strings.Contains(w, "is not") {
			t.Errorf("the summary disagrees with itself: %s", w)
		}
	}
	run := r.Runs[0]
	if run.Arrival != schemas.ArrivalPoisson || run.RequestRate != schemas.Some(0.8) || run.Model != "demo/model-8b" || run.SUT.Endpoint != "http://10.0.0.9:8000" {
		t.Errorf("settings %s %v %q %q", run.Arrival, run.RequestRate, run.Model, run.SUT.Endpoint)
	}
	p90 := value(t, r, schemas.TTFT, schemas.StatP, 90)
	if p90.Value.V != 0.061 || p90.Method != string(stats.Lower) {
		t.Errorf("ttft p90 %v %s, want 0.061 s (x[floor(9*0.9)] = x[8]) read with lower", p90.Value.V, p90.Method)
	}
	// The lower method reads an observed TTFT: recompute it.
	ttfts := []float64{0.041, 0.0525, 0.03825, 0.061, 0.044125, 0.0705, 0.039, 0.04775, 0.055, 0.0435}
	slices.Sort(ttfts)
	if got := stats.Quantile(ttfts, 0.5, stats.Lower); math.Abs(got-value(t, r, schemas.TTFT, schemas.StatP, 50).Value.V) > 1e-15 {
		t.Errorf("p50 %v, lower gives %v", value(t, r, schemas.TTFT, schemas.StatP, 50).Value.V, got)
	}
	if m := value(t, r, schemas.TTFT, schemas.StatStd, -1); m.Method != "sample" {
		t.Errorf("std method %q", m.Method)
	}
	if v := value(t, r, schemas.RequestThroughputLoadGenWindow, schemas.StatValue, -1).Value.V; v != 9/11.25 {
		t.Errorf("qps %v, want 9/11.25", v)
	}
	if _, ok := r.Metric(run.ID, schemas.RequestThroughput, schemas.StatValue, -1, schemas.SourceReported); ok {
		t.Error("a legacy-window qps must not be stored as request_throughput")
	}
	e := value(t, r, schemas.TTFTEarlyStopping, schemas.StatP, 90)
	if e.Value.OK || !strings.Contains(e.Note, "too few samples") {
		t.Errorf("null early stopping: %+v", e)
	}
	if _, ok := r.Metric(run.ID, schemas.TPOTAfterFirstChunk, schemas.StatMean, -1, schemas.SourceReported); !ok {
		t.Error("tpot is not tpot_after_first_chunk")
	}
	native, err := ingesttest.ReadFile(t, mlperfendpoints.Format{}, filepath.Join("testdata", "result_summary_native_window.json"))
	if err != nil {
		t.Fatal(err)
	}
	if v := value(t, native, schemas.RequestThroughput, schemas.StatValue, -1).Value.V; v != 10/12.5 {
		t.Errorf("native qps %v, want 10/12.5", v)
	}
	if !slices.Contains(native.Runs[0].Flags, "mlperf_endpoints_incomplete") {
		t.Errorf("an interrupted run is flagged: %v", native.Runs[0].Flags)
	}
}

// TestInconsistent checks the cross-checks: a qps that the counts and the
// window do not give is a warning, a failed count above the completed one
// an error.
func TestInconsistent(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("testdata", summary))
	bad := strings.Replace(string(data), `"qps": 0.8`, `"qps": 0.9`, 1)
	r, err := ingesttest.ReadBytes(mlperfendpoints.Format{}, "result_summary.json", []byte(bad))
	if err != nil || !strings.Contains(strings.Join(r.Warnings, "\n"), "qps 0.9 is not what the counts and window give") {
		t.Errorf("err %v warnings %v", err, r.Warnings)
	}
	bad = strings.Replace(string(data), `"n_samples_failed": 0`, `"n_samples_failed": 11`, 1)
	_, err = ingesttest.ReadBytes(mlperfendpoints.Format{}, "result_summary.json", []byte(bad))
	var ie *ingest.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "11 failed samples of 10 completed") {
		t.Errorf("got %v", err)
	}
}

func TestDetect(t *testing.T) {
	ingesttest.CheckDetect(t, mlperfendpoints.Format{}, "mlperf-endpoints", 80, []string{summary, "result_summary_native_window.json", "report/config.yaml"})
}

// TestCorpus: the corpus has only configs, each refused with its reason.
func TestCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "mlperf-endpoints")
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) != 4 {
		t.Fatalf("%d configs", len(files))
	}
	for _, f := range files {
		_, err := ingesttest.ReadFile(t, mlperfendpoints.Format{}, f)
		if err == nil || !strings.Contains(err.Error(), "not its results") {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}

func FuzzRead(f *testing.F) {
	ingesttest.AddTypeSeedFiles(f, 60, summary, "result_summary_native_window.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.ReadTwice(t, mlperfendpoints.Format{}, "result_summary.json", data)
	})
}
