// Package mlperfendpoints reads the results of MLPerf Endpoints
// (mlcommons/endpoints, package inference-endpoint): result_summary.json,
// alone or in its report directory beside the effective config.yaml
// (docs/formats/mlperf-endpoints.md).
//
// The series are in nanoseconds and stored in seconds. Percentiles are
// numpy's method="lower" (an observed value, stats.Lower), the standard
// deviation is the sample one, avg is total / count. ttft is timed from the
// issue to the first chunk (ttft), latency from the issue to the
// completion (e2e), tpot takes the first chunk's tokens out of the count
// (tpot_after_first_chunk). qps and tps are over the legacy LoadGen window
// when legacy_loadgen_window_duration_ns is set ((completed - 1) / window:
// request_throughput_loadgen_window) and over the tracked duration
// otherwise (request_throughput); each is checked against the counts and
// windows of the file. Failed samples complete too, so the latency series
// include them; a run with failures is flagged.
//
// No result file of a real run has been published; the package's fixtures
// are written from the tool's code (testdata/make_fixtures.py). A
// config.yaml alone is refused: it holds the settings, not the results.
package mlperfendpoints

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
)

// Format is the MLPerf Endpoints ingest format. It also reads report
// directories.
type Format struct{}

var _ ingest.DirFormat = Format{}

func (Format) Name() string { return "mlperf-endpoints" }

func (Format) Description() string {
	return "MLPerf Endpoints (inference-endpoint) result_summary.json, or its report directory with config.yaml"
}

const (
	kindSummary = "mlperf-endpoints-summary"
	kindConfig  = "mlperf-endpoints-config"
	kindDir     = "mlperf-endpoints-dir"
)

var configTop = regexp.MustCompile(`(?m)^(name|type|model_params|datasets|settings|endpoint_config|warmup):`)

func kindOf(head []byte) (string, int) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return "", 0
	}
	if t[0] == '{' {
		if bytes.Contains(head, []byte(`"n_samples_issued"`)) && bytes.Contains(head, []byte(`"n_samples_completed"`)) {
			return kindSummary, 90
		}
		return "", 0
	}
	tops := map[string]bool{}
	for _, m := range configTop.FindAllSubmatch(head, -1) {
		tops[string(m[1])] = true
	}
	if tops["model_params"] && (tops["settings"] || tops["endpoint_config"] || tops["datasets"]) {
		return kindConfig, 80
	}
	return "", 0
}

// Detect recognizes MLPerf Endpoints files by content.
func (Format) Detect(name string, head []byte) int {
	_, s := kindOf(head)
	return s
}

var errConfigOnly = errors.New("an MLPerf Endpoints config.yaml holds the run's settings, not its results: give performance/result_summary.json or the report directory")

// Read reads a result_summary.json.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	head, err := ingest.Head(in)
	if err != nil {
		return err
	}
	switch kind, _ := kindOf(head); kind {
	case kindConfig:
		return &ingest.Error{File: in.Path, Err: errConfigOnly}
	case kindSummary:
		s, err := readSummary(in, sink, nil)
		if err != nil {
			return err
		}
		sink.Describe(kindSummary, "mlperf-endpoints", s.run.ToolVersion)
		return sink.Run(&s.run)
	}
	return &ingest.Error{File: in.Path, Err: fmt.Errorf("not an MLPerf Endpoints result_summary.json")}
}

// summaryIn finds the result summary of a report directory: under
// performance/ (current builds) or at the top (builds before mid-2026).
func summaryIn(dir string) string {
	for _, p := range []string{filepath.Join(dir, "performance", "result_summary.json"), filepath.Join(dir, "result_summary.json")} {
		if k, _ := kindOf(ingest.FileHead(p)); k == kindSummary {
			return p
		}
	}
	return ""
}

// DetectDir recognizes a report directory.
func (Format) DetectDir(dir string) int {
	if summaryIn(dir) != "" {
		return 85
	}
	return 0
}

// ReadDir reads a report directory: the summary with its config.
func (Format) ReadDir(ctx context.Context, dir string, sink ingest.Sink) error {
	path := summaryIn(dir)
	if path == "" {
		return &ingest.Error{File: dir, Err: errors.New("no result_summary.json in this directory or its performance/ directory")}
	}
	var cfg *jtree.Node
	if data, err := os.ReadFile(filepath.Join(dir, "config.yaml")); err == nil {
		if cfg, err = jtree.ParseYAML(filepath.Join(dir, "config.yaml"), bytes.NewReader(data)); err != nil {
			return err
		}
	}
	in, err := ingest.FileInput(path)
	if err != nil {
		return err
	}
	s, err := readSummary(in, sink, cfg)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "events.jsonl")); err == nil {
		sink.Warn(filepath.Join(dir, "events.jsonl") + ": the per-sample event log is not read; the statistics are the summary's")
	}
	sink.Describe(kindDir, "mlperf-endpoints", s.run.ToolVersion)
	return sink.Run(&s.run)
}
