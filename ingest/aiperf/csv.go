package aiperf

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
)

// profile_export_aiperf.csv (Python's csv.writer, CRLF): a table of record
// metrics under "Metric,<stat keys>" (the stat keys changed between
// versions: no p10 up to 0.1, sum after max in 0.6, after avg in 0.7 on),
// then "Metric,Value" scalar rows, then GPU tables. Labels are
// "<Header> (<unit>)", the unit left out for counts and requests; numbers
// have no thousands separators and missing values are empty. Each row is
// turned into the same block a JSON summary holds, with each cell's
// position, so that one code path maps both.

// headers maps AIPerf's metric headers (lower case) to tags.
var headers = map[string]string{
	"request latency": "request_latency", "time to first token": "time_to_first_token",
	"time to first output token": "time_to_first_output_token", "time to second token": "time_to_second_token",
	"inter token latency": "inter_token_latency", "inter chunk latency": "inter_chunk_latency",
	"output token throughput per user": "output_token_throughput_per_user",
	"output sequence length":           "output_sequence_length", "input sequence length": "input_sequence_length",
	"output token count": "output_token_count", "reasoning token count": "reasoning_token_count",
	"request throughput": "request_throughput", "output token throughput": "output_token_throughput",
	"total token throughput": "total_token_throughput", "goodput": "goodput", "good request count": "good_request_count",
	"prefill throughput": "prefill_throughput", "prefill throughput per user": "prefill_throughput_per_user",
	"e2e output token throughput": "e2e_output_token_throughput",
	"total input sequence length": "total_isl", "total output sequence length": "total_osl",
	"total output tokens": "total_output_tokens", "total reasoning tokens": "total_reasoning_tokens",
	"error input sequence length": "error_isl", "total error input sequence length": "total_error_isl",
	"usage prompt tokens": "usage_prompt_tokens", "usage completion tokens": "usage_completion_tokens",
	"usage total tokens": "usage_total_tokens", "total usage prompt tokens": "total_usage_prompt_tokens",
	"total usage completion tokens": "total_usage_completion_tokens", "total usage total tokens": "total_usage_total_tokens",
	"usage prompt diff": "usage_prompt_tokens_diff_pct", "usage prompt diff %": "usage_prompt_tokens_diff_pct",
	"usage completion diff": "usage_completion_tokens_diff_pct", "usage completion diff %": "usage_completion_tokens_diff_pct",
	"usage discrepancy count": "usage_discrepancy_count", "request count": "request_count",
	"error request count": "error_request_count", "benchmark duration": "benchmark_duration",
	"minimum request timestamp": "min_request_timestamp", "maximum response timestamp": "max_response_timestamp",
	// HTTP trace metrics (--export-http-trace; aiperf/metrics/types/http_trace_metrics.py).
	"http blocked": "http_req_blocked", "http dns lookup": "http_req_dns_lookup", "http connecting": "http_req_connecting",
	"http sending": "http_req_sending", "http waiting (ttfb)": "http_req_waiting", "http receiving": "http_req_receiving",
	"http duration (excl. conn)": "http_req_duration", "http data sent": "http_req_data_sent", "http data received": "http_req_data_received",
	"http chunks sent": "http_req_chunks_sent", "http chunks received": "http_req_chunks_received",
	"http connection reused": "http_req_connection_reused", "http connection overhead": "http_req_connection_overhead",
	"http total time": "http_req_total",
}

func splitLabel(s string) (name, unit string) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ")") {
		if i := strings.LastIndex(s, " ("); i >= 0 {
			return strings.ToLower(strings.TrimSpace(s[:i])), s[i+2 : len(s)-1]
		}
	}
	return strings.ToLower(s), ""
}

type csvCell struct {
	text      string
	line, col int
}

// readCSVRows reads every record with each field's position.
func readCSVRows(in *ingest.Input) ([][]csvCell, error) {
	rc, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := csv.NewReader(rc)
	r.FieldsPerRecord = -1
	var rows [][]csvCell
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &ingest.Error{File: in.Path, Line: pe.Line, Column: pe.Column, Err: fmt.Errorf("malformed CSV: %v", pe.Err)}
			}
			return nil, &ingest.Error{File: in.Path, Err: err}
		}
		row := make([]csvCell, len(rec))
		for i, f := range rec {
			l, c := r.FieldPos(i)
			row[i] = csvCell{strings.TrimPrefix(f, "\ufeff"), l, c}
		}
		rows = append(rows, row)
	}
}

// cellNode turns a printed number into a block member: a number, null
// for an empty cell, or a string the block reader rejects.
func cellNode(c csvCell) *jtree.Node {
	t := strings.TrimSpace(c.text)
	pos := jsonscan.Pos{Line: c.line, Col: c.col}
	switch {
	case t == "":
		return &jtree.Node{Kind: jsonscan.Null, Pos: pos}
	case isNumber(t):
		return &jtree.Node{Kind: jsonscan.Number, Text: t, Pos: pos}
	}
	return &jtree.Node{Kind: jsonscan.String, Text: t, Pos: pos}
}

func isNumber(s string) bool {
	_, err := jsonscan.Float([]byte(s))
	return err == nil && s != "NaN" && s != "Infinity" && s != "-Infinity"
}

// csvBlocks reads a summary CSV into an object of metric blocks, and the
// stat-key header of its record table.
func csvBlocks(in *ingest.Input, sink ingest.Sink) (*jtree.Node, []string, error) {
	rows, err := readCSVRows(in)
	if err != nil {
		return nil, nil, err
	}
	root := &jtree.Node{Kind: jsonscan.BeginObject}
	var header []string
	section := ""
	for _, row := range rows {
		if len(row) == 0 {
			continue
		}
		first := row[0].text
		switch {
		case first == "Metric" && len(row) >= 2 && row[1].text == "avg":
			section = "stats"
			header = header[:0]
			for _, c := range row {
				header = append(header, c.text)
			}
			continue
		case first == "Metric" && len(row) == 2 && row[1].text == "Value":
			section = "scalar"
			continue
		case first == "Endpoint" || first == "GPU_Index" || (len(row) > 1 && row[1].text == "GPU_Index"):
			section = "gpu"
			sink.Warn(fmt.Sprintf("%s:%d: GPU telemetry summary tables are not ingested: the samples table takes the per-sample gpu_telemetry_export.jsonl", in.Path, row[0].line))
			continue
		}
		if section == "" {
			return nil, nil, &ingest.Error{File: in.Path, Line: row[0].line, Column: row[0].col, Err: errors.New(`expected a "Metric,..." header`)}
		}
		if section == "gpu" {
			continue
		}
		name, unit := splitLabel(first)
		tag, ok := headers[name]
		if !ok {
			tag = strings.ReplaceAll(name, " ", "_")
		}
		if unit == "" {
			unit = "requests" // left out for counts and requests
			if strings.Contains(name, "token") || strings.Contains(name, "length") {
				unit = "tokens"
			}
		}
		b := &jtree.Node{Kind: jsonscan.BeginObject, Pos: jsonscan.Pos{Line: row[0].line, Col: row[0].col}}
		b.Members = append(b.Members, jtree.Member{Key: "unit", Val: &jtree.Node{Kind: jsonscan.String, Text: unit}})
		switch section {
		case "stats":
			for i := 1; i < len(row); i++ {
				if i >= len(header) {
					sink.Reject(rejection(row[i], first, "more cells than header columns"))
					continue
				}
				b.Members = append(b.Members, jtree.Member{Key: header[i], Val: cellNode(row[i])})
			}
		case "scalar":
			if len(row) != 2 {
				sink.Reject(rejection(row[0], first, fmt.Sprintf("expected 2 cells, found %d", len(row))))
				continue
			}
			b.Members = append(b.Members, jtree.Member{Key: "avg", Val: cellNode(row[1])})
		}
		root.Members = append(root.Members, jtree.Member{Key: tag, KeyPos: b.Pos, Val: b})
	}
	if len(root.Fields()) == 0 {
		return nil, nil, &ingest.Error{File: in.Path, Err: errors.New("no metric rows")}
	}
	return root, header, nil
}

// readCSV reads a profile_export_aiperf.csv into a run.
func readCSV(in *ingest.Input, sink ingest.Sink) (*summaryRun, error) {
	root, header, err := csvBlocks(in, sink)
	if err != nil {
		return nil, err
	}
	s := newSummaryRun(in, 0, kindCSV)
	s.flag("values_rounded_as_printed")
	hdr := strings.Join(header, ",")
	switch {
	case hdr == "":
	case !strings.Contains(hdr, ",p10,"):
		s.vs.until("0.1", "the CSV header without p10")
	case strings.HasPrefix(hdr, "Metric,avg,sum,"):
		s.vs.since("0.7", "the CSV header's sum after avg")
	case strings.Contains(hdr, ",max,sum,"):
		s.vs.since("0.6", "the CSV header's sum after max")
		s.vs.until("0.6", "the CSV header's sum after max")
	default:
		s.vs.since("0.2", "the CSV header without sum")
		s.vs.until("0.5", "the CSV header without sum")
	}
	s.layout(root)
	if err := s.scalars(root); err != nil {
		return nil, err
	}
	s.inferStreaming(root)
	if !s.run.Streaming.OK && root.Has("request_latency") {
		s.run.Streaming = schemas.Some(false) // TTFT is computed only when streaming
		s.flag("streaming_inferred")
	}
	s.run.ToolVersion = s.vs.String()
	if err := s.blocks(root, sink); err != nil {
		return nil, err
	}
	return s, nil
}

func rejection(c csvCell, field, reason string) schemas.Rejection {
	return schemas.Rejection{Table: schemas.TableMetrics, Line: c.line, Column: c.col, Record: "summary", Field: field, Reason: reason}
}
