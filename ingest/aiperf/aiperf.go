// Package aiperf reads the outputs of NVIDIA AIPerf: the per-record
// profile_export.jsonl, the summary profile_export_aiperf.json and .csv of
// every version (0.1.x's "records" wrapper with ttft/ttst tags, the
// GenAI-Perf-style layout of 0.2 on, schema_version from 0.4), timeslice
// exports, the GPU telemetry export (gpu_telemetry_export.jsonl, into the
// samples table) and a whole artifacts directory given as one argument.
// Files are recognized by content, so --profile-export-prefix names work.
//
// Metrics are mapped by definition, not by name (see
// docs/formats/aiperf.md and schemas/native_aiperf.go).
// AIPerf counts reasoning_content as output: time_to_first_token is ttft
// (the first chunk of any content), time_to_first_output_token is
// ttft_answer (GenAI-Perf's TTFT), inter_token_latency is tpot with
// reasoning tokens counted, inter_chunk_latency is itl_chunk, request and
// output token throughput are over the span of the successful requests
// (request_throughput_span, output_token_throughput_span), and
// output_token_count is answer_tokens.
//
// Records: each JSONL line is one request row or one rejection (a
// malformed line is rejected with its line and column and reading goes
// on). Warm-up records, which AIPerf writes from about 0.12 on, are
// ingested as rows of phase "warmup" and left out of every recomputed
// statistic, as AIPerf leaves them out of its own. Failed records are
// error rows that keep their error text; the summary's error_summary is
// kept as a run label and a warning. Request times are Unix epoch seconds
// (request_start_ns is AIPerf's wall clock), read from integer nanoseconds
// without a detour through float64.
//
// When a directory holds both the records and the summary, the summary's
// statistics are recomputed from the records (numpy's linear percentiles,
// population standard deviation, the span window) and a disagreement is a
// warning.
package aiperf

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
)

// Format is the AIPerf ingest format. It also reads directories.
type Format struct{}

var _ ingest.DirFormat = Format{}

func (Format) Name() string { return "aiperf" }

func (Format) Description() string {
	return "NVIDIA AIPerf profile_export.jsonl, profile_export_aiperf.json/.csv (any version), timeslices, GPU telemetry, or an artifacts directory"
}

// Input kinds, also the Run.Format of what they yield.
const (
	kindRecords    = "aiperf-records"
	kindSummary    = "aiperf-json"
	kindCSV        = "aiperf-csv"
	kindTimeslices = "aiperf-timeslices"
	kindSliceCSV   = "aiperf-timeslices-csv"
	kindTelemetry  = "aiperf-gpu-telemetry"
	kindDir        = "aiperf-dir"
	kindFiles      = "aiperf-files" // one run's exports given as files
)

// metricBlock matches a GenAI-Perf-style metric block ({"unit": ...}),
// which other tools' files with similar key names do not have.
var metricBlock = regexp.MustCompile(`"(request_latency|request_throughput|request_count|time_to_first_token)"\s*:\s*\{\s*"unit"`)

// kindOf classifies an input from its first bytes.
func kindOf(head []byte) (string, int) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return "", 0
	}
	key := func(k string) bool { return bytes.Contains(head, []byte(`"`+k+`"`)) }
	if t[0] == '{' {
		first, _, _ := bytes.Cut(t, []byte("\n"))
		switch {
		case bytes.HasPrefix(first, []byte(`{"metadata"`)) && key("metrics") &&
			(key("request_start_ns") || key("benchmark_phase") || key("x_request_id") || key("credit_phase")):
			return kindRecords, 90
		case key("timestamp_ns") && key("telemetry_data") && (key("gpu_uuid") || key("gpu_index")):
			return kindTelemetry, 90
		case key("timeslices") && key("timeslice_index"):
			return kindTimeslices, 90
		case key("records") && key("tag") && key("header"):
			return kindSummary, 90 // 0.1.x
		case key("schema_version") && key("aiperf_version"):
			return kindSummary, 95
		}
		aiperfOnly := 0
		for _, k := range []string{"benchmark_duration", "total_osl", "total_isl", "error_summary", "was_cancelled",
			"min_request_timestamp", "inter_chunk_latency", "output_token_count", "time_to_first_output_token", "telemetry_data"} {
			if key(k) {
				aiperfOnly++
			}
		}
		if aiperfOnly > 0 && metricBlock.Match(head) {
			return kindSummary, 90
		}
		return "", 0
	}
	line, _, _ := bytes.Cut(t, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	switch {
	case bytes.Equal(line, []byte("Timeslice,Metric,Unit,Stat,Value")):
		return kindSliceCSV, 90
	case bytes.HasPrefix(line, []byte("Metric,avg,")) && bytes.HasSuffix(line, []byte(",std")):
		return kindCSV, 90
	case bytes.Equal(line, []byte("Metric,Value")) && bytes.Contains(head, []byte("Benchmark Duration")):
		return kindCSV, 80 // only scalar rows
	}
	return "", 0
}

// Detect recognizes AIPerf files by content.
func (Format) Detect(name string, head []byte) int {
	_, s := kindOf(head)
	return s
}

// Read reads one AIPerf file.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	head, err := readHead(in)
	if err != nil {
		return err
	}
	kind, _ := kindOf(head)
	switch kind {
	case kindRecords:
		r := newRecordReader(ctx, in, sink, ingest.RunID("aiperf", in.SHA256(), 0), false)
		if err := r.read(); err != nil {
			return err
		}
		run := r.standaloneRun()
		if err := r.emitComputed(nil); err != nil {
			return err
		}
		sink.Describe(kindRecords, "aiperf", run.ToolVersion)
		return sink.Run(run)
	case kindSummary, kindCSV:
		s, err := readSummaryFile(in, kind, sink)
		if err != nil {
			return err
		}
		sink.Describe(kind, "aiperf", s.run.ToolVersion)
		return s.emitRun(sink)
	case kindTimeslices, kindSliceCSV:
		runs, version, err := readTimeslices(in, kind, sink, "")
		if err != nil {
			return err
		}
		sink.Describe(kind, "aiperf", version)
		for _, s := range runs {
			if err := s.emitRun(sink); err != nil {
				return err
			}
		}
		return nil
	case kindTelemetry:
		es := &energySink{Sink: sink}
		t := &telemetryReader{in: in, sink: es, runID: ingest.RunID("aiperf", in.SHA256(), 0)}
		if err := t.read(ctx); err != nil {
			return err
		}
		if err := es.emit(in.Path, t.runID); err != nil {
			return err
		}
		run := t.standaloneRun()
		sink.Describe(kindTelemetry, "aiperf", run.ToolVersion)
		return sink.Run(run)
	}
	return &ingest.Error{File: in.Path, Err: fmt.Errorf("not an AIPerf export: found %s; expected %s", describeHead(head), expectedKinds)}
}

// expectedKinds says what each AIPerf export looks like, for a refusal.
const expectedKinds = `per-request records (profile_export.jsonl: one {"metadata": ..., "metrics": ...} object a line), ` +
	`a summary (profile_export_aiperf.json: metric blocks such as "request_latency": {"unit": ...}, schema_version with aiperf_version, or 0.1's "records"), ` +
	`its CSV (a "Metric,avg,..." header), timeslices, or GPU telemetry (gpu_telemetry_export.jsonl: timestamp_ns, gpu_uuid, telemetry_data)`

// describeHead says what a file's first bytes are: a JSON object's first
// keys, a CSV header, or the first characters.
func describeHead(head []byte) string {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return "no content"
	}
	if t[0] == '{' {
		sc := jsonscan.New(bytes.NewReader(t))
		if tok, err := sc.Next(); err == nil && tok.Kind == jsonscan.BeginObject {
			var keys []string
			more := 0
			for {
				k, err := sc.Next()
				if err != nil || k.Kind != jsonscan.Key {
					break
				}
				name, err := sc.Text(k)
				if err != nil {
					break
				}
				if len(keys) < 8 {
					keys = append(keys, strconv.Quote(name))
				} else {
					more++
				}
				v, err := sc.Next()
				if err != nil || sc.Skip(v) != nil {
					break
				}
			}
			if len(keys) > 0 {
				s := "a JSON object with the keys " + strings.Join(keys, ", ")
				if more > 0 {
					s += fmt.Sprintf(" and %d more", more)
				}
				return s + ", none of an AIPerf export's"
			}
		}
	}
	line, _, _ := bytes.Cut(t, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	if len(line) > 80 {
		line = append(line[:80:80], "..."...)
	}
	return strconv.Quote(string(line))
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
