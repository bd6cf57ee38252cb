package genaiperf

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// profile_export_genai_perf.csv is written by Python's csv.writer (CRLF).
// Sections follow each other separated by an empty line: request metrics
// under "Metric,avg,min,max,p99,...", system metrics under
// "Metric,Value", and GPU telemetry under "Metric,GPU,...". Numbers have
// thousands separators (quoted) from 0.0.4 on and N/A for missing
// statistics; up to 0.0.3 times are whole nanoseconds. Rows are keyed on
// their label with the unit stripped, columns on the header.

type csvRow struct {
	line   int
	cols   []int // column of each field
	fields []string
}

type csvSection struct {
	kind   string // "stats", "system" or "telemetry"
	header csvRow
	rows   []csvRow
}

// splitLabel splits "Time To First Token (ms)" into its name and unit.
func splitLabel(s string) (name, unit string) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ")") {
		if i := strings.LastIndex(s, " ("); i >= 0 {
			return strings.ToLower(strings.TrimSpace(s[:i])), s[i+2 : len(s)-1]
		}
	}
	return strings.ToLower(s), ""
}

// csvTarget maps a CSV label (lower case, unit stripped) to a definition.
func csvTarget(name string, vs versions) (target, bool) {
	switch name {
	case "time to first token":
		return summaryTarget("time_to_first_token", vs)
	case "time to second token":
		return summaryTarget("time_to_second_token", vs)
	case "request latency":
		return summaryTarget("request_latency", vs)
	case "inter token latency":
		return summaryTarget("inter_token_latency", vs)
	case "output token throughput per user":
		return summaryTarget("output_token_throughput_per_user", vs)
	case "output token throughput per request":
		return summaryTarget("output_token_throughput_per_request", vs)
	case "output sequence length", "num output token":
		return summaryTarget("output_sequence_length", vs)
	case "input sequence length", "num input token":
		return summaryTarget("input_sequence_length", vs)
	case "output token throughput":
		return summaryTarget("output_token_throughput", vs)
	case "request throughput":
		return summaryTarget("request_throughput", vs)
	case "request goodput":
		return summaryTarget("request_goodput", vs)
	}
	return target{}, false
}

func readCSVSections(in *ingest.Input) ([]csvSection, error) {
	rc, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := csv.NewReader(rc)
	r.FieldsPerRecord = -1
	var secs []csvSection
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &ingest.Error{File: in.Path, Line: pe.Line, Column: pe.Column, Err: fmt.Errorf("malformed CSV: %v", pe.Err)}
			}
			return nil, &ingest.Error{File: in.Path, Err: err}
		}
		row := csvRow{fields: rec, cols: make([]int, len(rec))}
		for i := range rec {
			row.line, row.cols[i] = r.FieldPos(i)
		}
		row.line, _ = r.FieldPos(0)
		if strings.TrimPrefix(rec[0], "\ufeff") == "Metric" && len(rec) >= 2 {
			kind := ""
			switch {
			case rec[1] == "avg":
				kind = "stats"
			case rec[1] == "Value" && len(rec) == 2:
				kind = "system"
			case rec[1] == "GPU":
				kind = "telemetry"
			default:
				return nil, &ingest.Error{File: in.Path, Line: row.line, Column: row.cols[1],
					Err: fmt.Errorf("unknown section header %q", strings.Join(rec, ","))}
			}
			secs = append(secs, csvSection{kind: kind, header: row})
			continue
		}
		if len(secs) == 0 {
			return nil, &ingest.Error{File: in.Path, Line: row.line, Err: errors.New(`expected a "Metric,..." header`)}
		}
		secs[len(secs)-1].rows = append(secs[len(secs)-1].rows, row)
	}
	if len(secs) == 0 {
		return nil, &ingest.Error{File: in.Path, Err: errors.New("no CSV rows")}
	}
	return secs, nil
}

// readCSV reads a profile_export_genai_perf.csv into a run.
func readCSV(in *ingest.Input, sink ingest.Sink) (*runState, error) {
	secs, err := readCSVSections(in)
	if err != nil {
		return nil, err
	}
	rs := newRunState(in, 0, kindCSV)
	rs.fromCSV = true
	rs.flag("values_rounded_as_printed")
	rs.csvLayout(secs)
	rs.settle(sink)
	for _, sec := range secs {
		switch sec.kind {
		case "telemetry":
			sink.Warn(fmt.Sprintf("%s:%d: GPU telemetry summaries (%d rows) are not ingested: the samples table holds per-sample readings, which GenAI-Perf does not export",
				in.Path, sec.header.line, len(sec.rows)))
		case "stats":
			if err := rs.csvStats(in.Path, sec, sink); err != nil {
				return nil, err
			}
		case "system":
			if err := rs.csvSystem(in.Path, sec, sink); err != nil {
				return nil, err
			}
		}
	}
	if rs.reqCount.OK && rs.osl.OK && rs.outThru.OK && rs.reqCount.V > 0 {
		rs.run.DurationS = schemas.Some(rs.osl.V * float64(rs.reqCount.V) / rs.outThru.V)
		rs.flag("duration_derived")
	}
	return rs, nil
}

// csvLayout narrows the version and infers streaming from the labels.
func (rs *runState) csvLayout(secs []csvSection) {
	names := map[string]string{} // name -> unit
	hasSystem := false
	for _, sec := range secs {
		if sec.kind == "stats" {
			hdr := sec.header.fields
			has := func(c string) bool {
				for _, h := range hdr {
					if h == c {
						return true
					}
				}
				return false
			}
			switch {
			case has("p1"):
				rs.vs.since("0.0.14")
			case has("p25"):
				rs.vs.until("0.0.13")
			}
		}
		if sec.kind == "system" {
			hasSystem = true
		}
		if sec.kind == "telemetry" {
			continue
		}
		for _, r := range sec.rows {
			n, u := splitLabel(r.fields[0])
			names[n] = u
		}
	}
	times := []string{"time to first token", "request latency", "inter token latency"}
	for _, n := range times {
		switch names[n] {
		case "ns":
			rs.vs.until("0.0.3")
		case "ms":
			rs.vs.since("0.0.4")
		}
	}
	_, oldTokens := names["num output token"]
	if oldTokens {
		rs.vs.until("0.0.3")
	}
	if u, ok := names["output sequence length"]; ok {
		if u == "tokens" {
			rs.vs.since("0.0.10") // PR #234, 2025-01-02: every label carries a unit
		} else {
			rs.vs.until("0.0.9")
		}
	}
	if _, ok := names["time to second token"]; ok {
		rs.vs.since("0.0.10")
	}
	if _, ok := names["request count"]; ok {
		rs.vs.since("0.0.10")
	} else if hasSystem && names["request latency"] == "ms" {
		rs.vs.until("0.0.9")
	}
	switch names["output token throughput"] {
	case "per sec":
		rs.vs.until("0.0.12")
	case "tokens/sec":
		rs.vs.since("0.0.13")
	}
	if _, ok := names["output token throughput per user"]; ok {
		rs.vs.since("0.0.13")
	}
	for _, sec := range secs {
		for _, r := range sec.rows {
			if n, _ := splitLabel(r.fields[0]); n == "request count" && sec.kind == "system" && len(r.fields) == 2 {
				if f, ok, err := csvNumber(r.fields[1]); err == nil && ok && f >= 0 && f == math.Trunc(f) {
					rs.reqCount = schemas.Some(int64(f))
				}
			}
		}
	}
	_, ttft := names["time to first token"]
	_, lat := names["request latency"]
	switch {
	case ttft:
		rs.run.Streaming = schemas.Some(true)
		rs.flag("streaming_inferred")
	case lat && !rs.vs.within("0.0.1", "0.0.3"):
		// Streaming-only rows are left out of the CSV of a run that did not stream.
		rs.run.Streaming = schemas.Some(false)
		rs.flag("streaming_inferred")
	}
}

// csvNumber parses a printed number: thousands separators stripped, N/A
// and empty cells are missing.
func csvNumber(s string) (float64, bool, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "N/A" || s == "None" || s == "nan" {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		return 0, false, fmt.Errorf("expected a number, found %q", s)
	}
	return f, true, nil
}

// csvScale returns what a label's unit divides by for a definition.
func csvScale(unit string, def schemas.MetricDef) (float64, bool) {
	switch unit {
	case "ns":
		return 1e9, def.Unit == schemas.UnitSeconds
	case "ms":
		return 1e3, def.Unit == schemas.UnitSeconds
	case "", "tokens":
		return 1, def.Unit == schemas.UnitTokens
	case "per sec":
		return 1, def.Unit == schemas.UnitRequestsPerSecond || def.Unit == schemas.UnitTokensPerSecond
	case "tokens/sec":
		return 1, def.Unit == schemas.UnitTokensPerSecond || def.Unit == schemas.UnitTokensPerSecUser
	case "tokens/sec/user":
		return 1, def.Unit == schemas.UnitTokensPerSecUser
	}
	return 0, false
}

func (rs *runState) csvReject(sink ingest.Sink, r csvRow, col int, field, reason string) {
	sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: r.line, Column: r.cols[col], Record: rs.record, Field: field, Reason: reason})
}

func (rs *runState) csvStats(path string, sec csvSection, sink ingest.Sink) error {
	notStreamed := rs.run.Streaming.OK && !rs.run.Streaming.V
	for _, r := range sec.rows {
		name, unit := splitLabel(r.fields[0])
		t, ok := csvTarget(name, rs.vs)
		if !ok {
			for i := 1; i < len(r.fields) && i < len(sec.header.fields); i++ {
				rs.csvReject(sink, r, i, r.fields[0]+"."+sec.header.fields[i], "no verdict definition for GenAI-Perf metric "+r.fields[0])
			}
			continue
		}
		def := schemas.MustLookup(t.id)
		scale, ok := csvScale(unit, def)
		for i := 1; i < len(r.fields); i++ {
			if i >= len(sec.header.fields) {
				rs.csvReject(sink, r, i, r.fields[0], "more cells than header columns")
				continue
			}
			col := sec.header.fields[i]
			field := r.fields[0] + "." + col
			f, present, err := csvNumber(r.fields[i])
			switch {
			case err != nil:
				rs.csvReject(sink, r, i, field, err.Error())
				continue
			case !present:
				continue
			case !ok:
				rs.csvReject(sink, r, i, field, fmt.Sprintf("unit %q does not fit %s (%s)", unit, t.id, def.Unit))
				continue
			case f < 0 || math.IsInf(f, 0) || math.IsNaN(f):
				rs.csvReject(sink, r, i, field, "a statistic must be finite and non-negative, found "+r.fields[i])
				continue
			}
			m := schemas.Metric{RunID: rs.run.ID, MetricID: t.id, Source: schemas.SourceReported, Unit: def.Unit,
				NativeName: field, Note: rs.oslNote(t.id), N: rs.reqCount}
			switch {
			case col == "avg":
				m.Stat, m.Method = schemas.StatMean, "arithmetic"
			case col == "min":
				m.Stat = schemas.StatMin
			case col == "max":
				m.Stat = schemas.StatMax
			case col == "std":
				m.Stat, m.Method = schemas.StatStd, "population"
			case col == "p50":
				m.Stat, m.Method = schemas.StatMedian, string(stats.Linear)
			case len(col) > 1 && col[0] == 'p':
				p, err := strconv.ParseFloat(col[1:], 64)
				if err != nil || p < 0 || p > 100 {
					rs.csvReject(sink, r, i, field, "unknown statistic column "+col)
					continue
				}
				m.Stat, m.Method, m.Percentile = schemas.StatP, string(stats.Linear), schemas.Some(p)
			default:
				rs.csvReject(sink, r, i, field, "unknown statistic column "+col)
				continue
			}
			if t.id == schemas.AnswerTokens && m.Stat == schemas.StatMean {
				rs.osl = schemas.Some(f / scale)
			}
			if notStreamed && streamingOnly[t.id] {
				m.Note = "not measured: the run did not stream"
			} else {
				m.Value = schemas.Some(f / scale)
			}
			if err := rs.emit(sink, &m); err != nil {
				return err
			}
		}
	}
	return nil
}

func (rs *runState) csvSystem(path string, sec csvSection, sink ingest.Sink) error {
	for _, r := range sec.rows {
		name, unit := splitLabel(r.fields[0])
		if len(r.fields) != 2 {
			rs.csvReject(sink, r, 0, r.fields[0], fmt.Sprintf("expected 2 cells, found %d", len(r.fields)))
			continue
		}
		f, present, err := csvNumber(r.fields[1])
		if err == nil && present && (f < 0 || math.IsInf(f, 0) || math.IsNaN(f)) {
			err = fmt.Errorf("must be finite and non-negative, found %s", r.fields[1])
		}
		if name == "request count" {
			switch {
			case err != nil:
				return &ingest.Error{File: path, Line: r.line, Column: r.cols[1], Record: rs.record, Field: r.fields[0], Err: err}
			case present && f != math.Trunc(f):
				return &ingest.Error{File: path, Line: r.line, Column: r.cols[1], Record: rs.record, Field: r.fields[0],
					Err: fmt.Errorf("expected a whole number, found %s", r.fields[1])}
			case present:
				rs.reqCount = schemas.Some(int64(f))
				rs.run.Completed = rs.reqCount
			}
			continue
		}
		t, ok := csvTarget(name, rs.vs)
		if !ok {
			rs.csvReject(sink, r, 1, r.fields[0], "no verdict definition for GenAI-Perf metric "+r.fields[0])
			continue
		}
		def := schemas.MustLookup(t.id)
		scale, okUnit := csvScale(unit, def)
		switch {
		case err != nil:
			rs.csvReject(sink, r, 1, r.fields[0], err.Error())
			continue
		case !present:
			continue
		case !okUnit:
			rs.csvReject(sink, r, 1, r.fields[0], fmt.Sprintf("unit %q does not fit %s (%s)", unit, t.id, def.Unit))
			continue
		}
		m := schemas.Metric{RunID: rs.run.ID, MetricID: t.id, Stat: schemas.StatValue, Source: schemas.SourceReported,
			Unit: def.Unit, NativeName: r.fields[0], Value: schemas.Some(f / scale), Note: rs.oslNote(t.id)}
		if t.id == schemas.OutputTokenThroughputSpanAnswer {
			rs.outThru = m.Value
		}
		if err := rs.emit(sink, &m); err != nil {
			return err
		}
	}
	return nil
}
