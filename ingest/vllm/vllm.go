// Package vllm reads the result files of vLLM's benchmark clients:
// `vllm bench serve` and its predecessor benchmarks/benchmark_serving.py
// (every version from 2024-02 on), `vllm bench sweep serve` run and
// summary files, `vllm bench throughput` and `vllm bench latency`.
//
// A file may hold one run object (compact or pretty-printed), several
// whitespace-separated objects (--append-result), or a JSON array of them
// (sweep summaries). Python's bare NaN and Infinity are accepted. Per-request
// arrays (--save-detailed) are read in lockstep in a second pass, so memory
// stays bounded whatever the number of requests.
//
// Mapping follows docs/formats/vllm.md: milliseconds become seconds once,
// here; key renames are unified; "inf" rates become +Inf; zeros written by
// a run without successful requests are stored as missing; --metadata keys
// and sweep parameters are kept as labels. When per-request arrays are
// present the summary statistics are recomputed from them with vLLM's own
// conventions (numpy linear percentiles, population standard deviation)
// and stored beside the reported ones, and a disagreement is reported as a
// warning.
package vllm

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// Format is the vLLM ingest format.
type Format struct{}

func (Format) Name() string { return "vllm" }

func (Format) Description() string {
	return "vLLM bench serve / benchmark_serving.py results (any version), sweep files, bench throughput and bench latency JSON"
}

// Detect looks for the keys every vLLM result of each kind writes near its
// start. sglang's bench_serving writes similar stat keys but not model_id
// with num_prompts and request_rate together.
func (Format) Detect(name string, head []byte) int {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return 0
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if !bytes.Contains(head, []byte(`"`+k+`"`)) {
				return false
			}
		}
		return true
	}
	switch {
	case has("per_turn_metrics") || bytes.Contains(head, []byte(`"mode": "multi_turn"`)) || bytes.Contains(head, []byte(`"mode":"multi_turn"`)):
		return 50 // the Rust vllm-bench's multi-turn result: Read refuses it by name
	case has("model_id", "num_prompts", "request_rate"):
		if has("date") {
			return 90
		}
		return 70
	case has("elapsed_time", "num_requests", "requests_per_second", "tokens_per_second"):
		return 90
	case has("avg_latency", "latencies"):
		return 90
	}
	return 0
}

// kind of a run object.
const (
	kindServe      = "vllm-serve"
	kindThroughput = "vllm-throughput"
	kindLatency    = "vllm-latency"
)

func kindOf(r *record) string {
	switch {
	case r.has("model_id") && (r.has("duration") || r.has("num_prompts")):
		return kindServe
	case r.has("elapsed_time") && r.has("requests_per_second"):
		return kindThroughput
	case r.has("avg_latency") && r.has("latencies"):
		return kindLatency
	}
	return ""
}

// Read reads a vLLM result file.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	kinds := map[string]bool{}
	var versions []string
	err = scanRecords(in.Path, rc, func(rec *record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := multiTurn(in.Path, rec); err != nil {
			return err
		}
		k := kindOf(rec)
		if k == "" {
			return &ingest.Error{File: in.Path, Line: rec.pos.Line, Column: rec.pos.Col, Record: fmt.Sprintf("object %d", rec.index),
				Err: fmt.Errorf("not a vLLM result object (no model_id/duration, elapsed_time/requests_per_second or avg_latency/latencies)")}
		}
		kinds[k] = true
		r := &runReader{in: in, sink: sink, rec: rec}
		var v string
		switch k {
		case kindServe:
			v, err = r.serve()
		case kindThroughput:
			v, err = r.throughput()
		case kindLatency:
			v, err = r.latency()
		}
		versions = append(versions, v)
		return err
	})
	if err != nil {
		return err
	}
	format := "vllm"
	if len(kinds) == 1 {
		for k := range kinds {
			format = k
		}
	}
	version := ""
	if len(versions) > 0 {
		version = versions[0]
		for _, v := range versions[1:] {
			if v != version {
				version = "several (see each run's tool_version)"
				break
			}
		}
	}
	sink.Describe(format, "vllm", version)
	return nil
}

// multiTurn refuses the multi-turn result of the Rust vllm-bench
// (docs/formats/vllm.md, "Rust vllm-bench"): "mode": "multi_turn",
// num_conversations and per_turn_metrics instead of one run's statistics,
// an ISO-8601 date. Its statistics are per turn of conversations, a shape
// verdict does not map, and read as a vllm bench serve result it would
// give a run that is not there.
func multiTurn(path string, rec *record) error {
	mode, _ := rec.get("mode")
	if !(mode.kind == jsonscan.String && mode.text == "multi_turn") && !rec.has("per_turn_metrics") {
		return nil
	}
	found := []string{}
	for _, k := range []string{"mode", "num_conversations", "per_turn_metrics"} {
		if rec.has(k) {
			found = append(found, k)
		}
	}
	return &ingest.Error{File: path, Line: rec.pos.Line, Column: rec.pos.Col, Record: fmt.Sprintf("object %d", rec.index),
		Err: fmt.Errorf("a multi-turn result of the Rust vllm-bench (found %s): its statistics are per turn of conversations, not one run's as vllm bench serve writes them (model_id, num_prompts, duration, per-metric statistics), and verdict does not read it",
			strings.Join(found, ", "))}
}
