// Package inferenceperf reads the reports of kubernetes-sigs/inference-perf
// (docs/formats/inference-perf.md): the lifecycle summaries
// (summary_lifecycle_metrics.json over all stages, stage_<N>_lifecycle
// _metrics.json per stage, adapter_* variants), the per-request lifecycle
// file, the Prometheus summaries of the server, and a whole report
// directory with its config.yaml.
//
// Each stage is a run; the summary over all stages is a run of its own,
// flagged inference_perf_all_stages (its window spans the gaps between
// stages). Metrics are mapped by what inference-perf computes:
// request_latency is e2e, time_to_first_token ttft, time_per_output_token
// tpot (tpot_per_chunk before v0.5, which divided by the recorded
// timestamps), inter_token_latency the chunk-stamped token gap
// itl_token_chunk_stamped, normalized_time_per_output_token
// tpot_incl_ttft_zero_filled (a request with no output tokens adds a 0),
// and the throughputs are over min(start) -> max(end) of every request of
// the stage, failures included: the dispatch window. schedule_delay is
// client_queue; send_duration and achieved_rate are a send span and rate,
// not a throughput window.
//
// Timestamps are time.perf_counter() values: seconds on an arbitrary
// monotonic origin, so request times are on the run's clock and no
// wall-clock window is known. v0.5.0 re-tokenized each chunk with special
// tokens, a BOS per chunk, which inflates output_len and makes many token
// gaps 0: such runs are flagged inference_perf_v0.5.0_bos_per_chunk.
//
// When the per-request file is read with the summary, the summary's
// statistics are recomputed from the requests with inference-perf's
// conventions (numpy linear percentiles) and a disagreement is a warning.
package inferenceperf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
)

// Format is the inference-perf ingest format. It also reads directories.
type Format struct{}

var _ ingest.DirFormat = Format{}

func (Format) Name() string { return "inference-perf" }

func (Format) Description() string {
	return "kubernetes-sigs/inference-perf lifecycle summaries (summary, per stage), per-request lifecycle metrics, Prometheus summaries, or a report directory with config.yaml"
}

// Input kinds, also the Run.Format of what they yield.
const (
	kindLifecycle  = "inference-perf-lifecycle"
	kindRequests   = "inference-perf-requests"
	kindPrometheus = "inference-perf-prometheus"
	kindConfig     = "inference-perf-config"
	kindDir        = "inference-perf-dir"
)

var (
	configTop  = regexp.MustCompile(`(?m)^(load|api|server|data|report|tokenizer|metrics|storage):`)
	stageName  = regexp.MustCompile(`stage_(\d+)_(lifecycle|prometheus)_metrics\.json`)
	adapterRe  = regexp.MustCompile(`adapter_(.+?)_(stage_\d+_)?lifecycle_metrics\.json`)
	summaryRe  = regexp.MustCompile(`summary_(lifecycle|prometheus)_metrics\.json`)
	promKeys   = []string{`"kv_cache_usage_percentage"`, `"prefix_cache_hit_percent"`, `"queue_len"`, `"num_requests_swapped"`}
	objectKeys = []string{`"load_summary"`, `"successes"`, `"failures"`}
)

// kindOf classifies an input from its first bytes.
func kindOf(head []byte) (string, int) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return "", 0
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if !bytes.Contains(head, []byte(k)) {
				return false
			}
		}
		return true
	}
	switch t[0] {
	case '{':
		if !has(objectKeys...) {
			return "", 0
		}
		for _, k := range promKeys {
			if has(k) {
				return kindPrometheus, 90
			}
		}
		if has(`"schedule_delay"`) || has(`"normalized_time_per_output_token"`) {
			return kindLifecycle, 90
		}
		return "", 0
	case '[':
		if has(`"start_time"`, `"end_time"`, `"info"`) && (has(`"request_metrics"`) || has(`"response_metrics"`)) {
			return kindRequests, 90
		}
		return "", 0
	}
	tops := map[string]bool{}
	for _, m := range configTop.FindAllSubmatch(head, -1) {
		tops[string(m[1])] = true
	}
	switch {
	case tops["load"] && tops["api"] && (tops["server"] || tops["data"]):
		return kindConfig, 80
	case tops["load"] && bytes.Contains(head, []byte("stages:")) && !bytes.Contains(head, []byte("load_pattern:")):
		return kindConfig, 60 // a minimal config: only the load stages
	}
	return "", 0
}

// Detect recognizes inference-perf files by content.
func (Format) Detect(name string, head []byte) int {
	_, s := kindOf(head)
	return s
}

// errConfigOnly is why a config.yaml alone is refused.
var errConfigOnly = errors.New("an inference-perf config.yaml holds the run's settings, not its results: give the report's *_lifecycle_metrics.json files or the report directory (which reads config.yaml with them)")

// Read reads one inference-perf file.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	head, err := ingest.Head(in)
	if err != nil {
		return err
	}
	kind, _ := kindOf(head)
	switch kind {
	case kindConfig:
		return &ingest.Error{File: in.Path, Err: errConfigOnly}
	case kindLifecycle:
		root, err := jtree.ParseObject(in, sink)
		if err != nil {
			return err
		}
		s := newSummary(in, sink, nameInfo(in.Path), Settings{})
		if err := s.read(root); err != nil {
			return err
		}
		sink.Describe(kindLifecycle, "inference-perf", s.version)
		return s.emit()
	case kindPrometheus:
		root, err := jtree.ParseObject(in, sink)
		if err != nil {
			return err
		}
		p := newProm(in, sink, nameInfo(in.Path))
		if err := p.read(root); err != nil {
			return err
		}
		sink.Describe(kindPrometheus, "inference-perf", p.run.ToolVersion)
		return sink.Run(&p.run)
	case kindRequests:
		sink.Describe(kindRequests, "inference-perf", "any (per-request lifecycle file)")
		return readRequestsAlone(ctx, in, sink)
	}
	return &ingest.Error{File: in.Path, Err: fmt.Errorf("not an inference-perf report file (expected a lifecycle or Prometheus summary, the per-request lifecycle file or a report directory)")}
}

// fileInfo is what a report file's name says: inference-perf writes the
// stage index and the LoRA adapter only there.
type fileInfo struct {
	stage   int // -1: the summary over all stages, or unknown
	summary bool
	adapter string
}

func nameInfo(path string) fileInfo {
	fi := fileInfo{stage: -1}
	if m := stageName.FindStringSubmatch(path); m != nil {
		fmt.Sscan(m[1], &fi.stage)
	}
	fi.summary = summaryRe.MatchString(path)
	if m := adapterRe.FindStringSubmatch(path); m != nil {
		fi.adapter = m[1]
	}
	return fi
}
