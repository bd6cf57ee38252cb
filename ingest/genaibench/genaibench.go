// Package genaibench reads the experiment folders of sgl-project/genai-bench
// (docs/formats/genai-bench.md): experiment_metadata.json, written once per
// experiment, and one result JSON per traffic scenario and iteration value
// (concurrency or batch size), each holding aggregated_metrics and
// individual_request_metrics.
//
// Each result file is a run. Its per-request rows are read, and the
// aggregated statistics recomputed from them the way genai-bench computes
// them: over the requests without an error, leaving out the first
// int(n x warmup_ratio) and the last int(n x cooldown_ratio) requests by
// their position in the collection order (n counts every request, failed
// ones included), with numpy's linear percentiles and population standard
// deviation; a disagreement is a warning. The trimmed requests are stored
// with phase "warmup". Its mean_*_throughput_tokens_per_s are total tokens
// of those requests divided by run_duration, not means: they are stored as
// the *_throughput_run definitions, over the tool's run timer.
//
// Latencies are in the result's _time_unit (or the metadata's
// metrics_time_unit): seconds or milliseconds for ttft, tpot, e2e_latency
// and output_latency only; rates are always per second. The metadata's
// command line and auth_config are not kept (they can hold credentials);
// only the settings the run needs are taken from them.
package genaibench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
)

// Format is the genai-bench ingest format. It also reads experiment
// folders.
type Format struct{}

var _ ingest.DirFormat = Format{}

func (Format) Name() string { return "genai-bench" }

func (Format) Description() string {
	return "sgl-project/genai-bench result JSON (aggregated and per-request metrics) or an experiment folder with experiment_metadata.json"
}

const (
	kindResult   = "genai-bench-result"
	kindMetadata = "genai-bench-metadata"
	kindDir      = "genai-bench-dir"
)

func kindOf(head []byte) (string, int) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 || t[0] != '{' {
		return "", 0
	}
	has := func(k string) bool { return bytes.Contains(head, []byte(`"`+k+`"`)) }
	switch {
	case has("aggregated_metrics") && (has("individual_request_metrics") || has("num_completed_requests")):
		return kindResult, 90
	case has("benchmark_version") && has("traffic_scenario") && has("iteration_type"):
		return kindMetadata, 80
	}
	return "", 0
}

// Detect recognizes genai-bench files by content.
func (Format) Detect(name string, head []byte) int {
	_, s := kindOf(head)
	return s
}

var errMetadataOnly = errors.New("experiment_metadata.json describes a genai-bench experiment, not its results: give the experiment folder, or the result JSON files with it")

// Read reads one result file (without its experiment's metadata).
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	head, err := ingest.Head(in)
	if err != nil {
		return err
	}
	switch kind, _ := kindOf(head); kind {
	case kindMetadata:
		return &ingest.Error{File: in.Path, Err: errMetadataOnly}
	case kindResult:
		res, err := readResult(in, sink, nil)
		if err != nil {
			return err
		}
		sink.Describe(kindResult, "genai-bench", res.run.ToolVersion)
		return res.emit()
	}
	return &ingest.Error{File: in.Path, Err: fmt.Errorf("not a genai-bench file (expected a result JSON with aggregated_metrics, or an experiment folder)")}
}

// experiment is an experiment folder: its metadata and result files.
type experiment struct {
	metadata string
	results  []string
}

func scanFolder(dir string) (experiment, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return experiment{}, false
	}
	var e experiment
	for _, de := range entries {
		if de.IsDir() || filepath.Ext(de.Name()) != ".json" {
			continue
		}
		path := filepath.Join(dir, de.Name())
		switch kind, _ := kindOf(ingest.FileHead(path)); kind {
		case kindMetadata:
			e.metadata = path
		case kindResult:
			e.results = append(e.results, path)
		}
	}
	sort.Strings(e.results)
	return e, len(e.results) > 0
}

// DetectDir recognizes an experiment folder.
func (Format) DetectDir(dir string) int {
	if e, ok := scanFolder(dir); ok && e.metadata != "" {
		return 85
	} else if ok {
		return 60
	}
	return 0
}

// ReadDir reads an experiment folder: the metadata applies to every result.
func (Format) ReadDir(ctx context.Context, dir string, sink ingest.Sink) error {
	e, ok := scanFolder(dir)
	if !ok {
		return &ingest.Error{File: dir, Err: errors.New("no genai-bench result files in this folder")}
	}
	var meta *metadata
	if e.metadata != "" {
		in, err := ingest.FileInput(e.metadata)
		if err != nil {
			return err
		}
		root, err := jtree.ParseObject(in, sink)
		if err != nil {
			return err
		}
		meta = readMetadata(root)
	} else {
		sink.Warn(dir + ": no experiment_metadata.json: the tool version, model and server are unknown")
	}
	version, err := ingest.ReadSets(ctx, e.results, func(path string) (string, error) {
		in, err := ingest.FileInput(path)
		if err != nil {
			return "", err
		}
		res, err := readResult(in, sink, meta)
		if err != nil {
			return "", err
		}
		return res.run.ToolVersion, res.emit()
	})
	if err != nil {
		return err
	}
	sink.Describe(kindDir, "genai-bench", version)
	return nil
}
