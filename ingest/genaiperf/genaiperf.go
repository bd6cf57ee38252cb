// Package genaiperf reads the outputs of NVIDIA GenAI-Perf: the processed
// profile_export_genai_perf.json and .csv of every version (nanoseconds up
// to 0.0.3, milliseconds later; thousands separators, CRLF and N/A in the
// CSV; per-session blocks), the raw perf_analyzer profile_export.json it
// profiles from, and a whole artifacts directory given as one argument.
//
// Metrics are mapped by definition, not by name (see
// docs/formats/genai-perf.md and schemas/native_genaiperf.go).
// GenAI-Perf never reads reasoning_content, so its TTFT, TTST, output
// length and ITL are answer-only: time_to_first_token is ttft_answer and
// inter_token_latency, per request (latency - ttft) / (osl - 1), is
// tpot_answer, not a per-chunk gap (up to 0.0.3 it was a per-chunk gap
// divided by the chunk's tokens: itl_chunk_per_token). Request throughput
// counts every exported request, including those without content
// (request_throughput_span_all). A non-streaming run's JSON repeats the
// request latency as its TTFT; that is stored as not measured.
//
// GenAI-Perf never writes its version. The version is dated from the
// file's layout (version.go) and recorded in Run.ToolVersion; version
// quirks become run flags: streaming output lengths about 5x the requested
// ones in 0.0.8-0.0.9 (perf_analyzer#298, also warned about: miscounted,
// they make throughputs too large and ITL too small, never too large), ITL samples of 0 for
// single-chunk requests in 0.0.4-0.0.12, per-chunk ITL up to 0.0.3.
//
// From the raw export verdict derives per-request rows itself: TTFT over
// any output and over answer content, E2E to the last answer chunk, the
// gaps between chunks, and token counts only where the response says them
// (server usage, token ids); GenAI-Perf's own counts come from a client
// tokenizer verdict does not have, so they are left unknown rather than
// guessed. Request times are Unix epoch seconds (perf_analyzer stamps
// requests with the wall clock). When a directory holds both the raw and
// the processed export, the statistics recomputable without a tokenizer
// (latency, TTFT, TTST, request throughput and count) are recomputed and
// a disagreement is a warning.
package genaiperf

import (
	"bytes"
	"context"
	"fmt"
	"regexp"

	"github.com/verdict-llm/verdict/ingest"
)

// Format is the GenAI-Perf ingest format. It also reads directories.
type Format struct{}

var _ ingest.DirFormat = Format{}

func (Format) Name() string { return "genai-perf" }

func (Format) Description() string {
	return "NVIDIA GenAI-Perf profile_export_genai_perf.json/.csv (any version), raw profile_export.json, or an artifacts directory"
}

// Input kinds, also the Run.Format of what they yield.
const (
	kindSummary = "genai-perf-json"
	kindCSV     = "genai-perf-csv"
	kindRaw     = "genai-perf-raw"
	kindDir     = "genai-perf-dir"
)

// metricBlock matches a metric block ({"unit": ...}), which other tools'
// files with similar key names do not have.
var metricBlock = regexp.MustCompile(`"(request_latency|request_throughput|time_to_first_token)"\s*:\s*\{\s*"unit"`)

// kindOf classifies an input from its first bytes; "" when it is not
// GenAI-Perf's. The score is Detect's confidence.
func kindOf(name string, head []byte) (string, int) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return "", 0
	}
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	key := func(k string) bool { return has(`"` + k + `"`) }
	if t[0] == '{' {
		// The raw perf_analyzer export starts with its experiments.
		if key("experiments") && key("experiment") && (key("requests") || key("response_timestamps")) {
			return kindRaw, 90
		}
		// AIPerf adopted GenAI-Perf's layout in 0.2; its files carry keys
		// GenAI-Perf never writes.
		for _, k := range []string{"benchmark_duration", "total_osl", "total_isl", "error_summary", "was_cancelled",
			"schema_version", "aiperf_version", "records", "timeslices", "min_request_timestamp", "inter_chunk_latency",
			"output_token_count", "time_to_first_output_token"} {
			if key(k) {
				return "", 0
			}
		}
		if !metricBlock.Match(head) {
			return "", 0
		}
		score := 0
		for _, k := range []string{"time_to_first_token", "inter_token_latency", "output_sequence_length", "num_output_token",
			"output_token_throughput", "input_config"} {
			if key(k) {
				score = 70
			}
		}
		for _, k := range []string{"formatted_model_name", "perf_analyzer", "num_output_token", "output_token_throughput_per_request",
			"telemetry_stats", "sessions"} {
			if key(k) {
				score = 90
			}
		}
		if has(`"unit": "count"`) || has(`"unit":"count"`) {
			score = 90 // request_count, 0.0.10+
		}
		if score == 0 {
			return "", 0
		}
		return kindSummary, score
	}
	// The CSV: a "Metric,avg,min,max,p99,...,p25" header (percentiles
	// descending, no std; AIPerf's ascend and end with std).
	line, _, _ := bytes.Cut(t, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	if bytes.HasPrefix(line, []byte("Metric,avg,min,max,p99,")) && !bytes.Contains(line, []byte(",std")) {
		return kindCSV, 90
	}
	return "", 0
}

// Detect recognizes GenAI-Perf files by content.
func (Format) Detect(name string, head []byte) int {
	_, s := kindOf(name, head)
	return s
}

// Read reads one GenAI-Perf file.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	head, err := readHead(in)
	if err != nil {
		return err
	}
	kind, _ := kindOf(in.Path, head)
	switch kind {
	case kindRaw:
		r := &rawReader{in: in, sink: sink, ctx: ctx}
		if err := r.read(nil); err != nil {
			return err
		}
		sink.Describe(kindRaw, "genai-perf", r.version())
		return r.emitRuns()
	case kindCSV:
		rs, err := readCSV(in, sink)
		if err != nil {
			return err
		}
		sink.Describe(kindCSV, "genai-perf", rs.run.ToolVersion)
		return rs.emitRun(sink)
	case kindSummary:
		s, err := readSummary(in, sink)
		if err != nil {
			return err
		}
		sink.Describe(kindSummary, "genai-perf", s.main.run.ToolVersion)
		return s.emitRuns(sink)
	}
	return &ingest.Error{File: in.Path, Err: fmt.Errorf("not a GenAI-Perf file (expected profile_export_genai_perf.json or .csv, or a perf_analyzer profile_export.json)")}
}

func readHead(in *ingest.Input) ([]byte, error) {
	rc, err := in.OpenAt(0)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	buf := make([]byte, ingest.HeadSize)
	n := 0
	for n < len(buf) {
		m, err := rc.Read(buf[n:])
		n += m
		if err != nil {
			break
		}
	}
	return buf[:n], nil
}
