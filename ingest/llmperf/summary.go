package llmperf

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Code dates that changed what a number means (see the package doc).
var (
	dayChunkRate   = time.Date(2024, 4, 7, 0, 0, 0, 0, time.UTC)  // afd137a: per-request rate counts tokens from here
	dayITLPerChunk = time.Date(2024, 12, 8, 0, 0, 0, 0, time.UTC) // f1d6bed: ITL divided by chunks from here
)

// Per-request fields, with the summary's metric name.
const (
	fITL  = "inter_token_latency_s"
	fTTFT = "ttft_s"
	fE2E  = "end_to_end_latency_s"
	fRate = "request_output_throughput_token_per_s"
	fIn   = "number_input_tokens"
	fOut  = "number_output_tokens"
)

// An era is what the code that wrote a file computed.
type era struct {
	itlID, rateID schemas.MetricID
	flags         []string
	desc          string
}

// summaryEra dates a summary's code by its run timestamp.
func summaryEra(ts schemas.Opt[float64]) era {
	if !ts.OK {
		return era{itlID: schemas.TPOTInclTTFTPerChunk, rateID: schemas.E2EOutputTokenRate,
			flags: []string{"llmperf_code_date_unknown"}, desc: "code date unknown; current main assumed"}
	}
	day := time.Unix(int64(ts.V), 0).UTC()
	e := era{itlID: schemas.TPOTInclTTFT, rateID: schemas.E2EOutputTokenRate}
	if day.Before(dayChunkRate) {
		e.rateID = schemas.RequestOutputChunkRate
		e.flags = append(e.flags, "request_output_throughput_counts_chunks")
	}
	if !day.Before(dayITLPerChunk) {
		e.itlID = schemas.TPOTInclTTFTPerChunk
		e.flags = append(e.flags, "itl_per_chunk_assumed")
	}
	e.desc = "run of " + day.Format("2006-01-02")
	switch {
	case day.Before(dayChunkRate):
		e.desc += ": code before 2024-04-07 (ITL over tokenizer tokens, per-request rate over chunks)"
	case day.Before(dayITLPerChunk):
		e.desc += ": code before 2024-12-08 (ITL over tokenizer tokens)"
	default:
		e.desc += ": code of 2024-12-08 or later assumed (ITL over chunks)"
	}
	return e
}

var reStat = regexp.MustCompile(`^results_(inter_token_latency_s|ttft_s|end_to_end_latency_s|request_output_throughput_token_per_s|number_input_tokens|number_output_tokens)_(quantiles_p(\d+(?:\.\d+)?)|mean|min|max|stddev)$`)

// idOf maps a per-request field to its definition in an era.
func (e era) idOf(field string) schemas.MetricID {
	switch field {
	case fITL:
		return e.itlID
	case fTTFT:
		return schemas.TTFT
	case fE2E:
		return schemas.E2E
	case fRate:
		return e.rateID
	case fIn:
		return schemas.InputTokens
	case fOut:
		return schemas.OutputTokens
	}
	return ""
}

// scale converts a field's unit to its definition's: LLMPerf writes
// seconds and tokens already.
func num(m member) (float64, string, bool) {
	switch m.kind {
	case jsonscan.Number:
		if m.numErr {
			return 0, "bad number " + m.text, false
		}
		return m.num, "", true
	case jsonscan.String:
		// numpy integers written with json.dump(default=str), e.g. "550"
		f, err := strconv.ParseFloat(strings.TrimSpace(m.text), 64)
		if err != nil {
			return 0, fmt.Sprintf("expected a number, found the string %q", truncate(m.text)), false
		}
		return f, "", true
	}
	return 0, "expected a number, found " + m.kind.String(), false
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// A summaryReader turns a summary object into a run and its reported
// statistics.
type summaryReader struct {
	in      *ingest.Input
	sink    ingest.Sink
	ms      []member
	era     era
	ts      schemas.Opt[float64]
	run     schemas.Run
	metrics []schemas.Metric
	used    map[string]bool
}

// get returns the last member with the key, as Python's json keeps.
func (r *summaryReader) get(k string) (member, bool) {
	for i := len(r.ms) - 1; i >= 0; i-- {
		if r.ms[i].key == k {
			return r.ms[i], true
		}
	}
	return member{}, false
}

func (r *summaryReader) reject(m member, reason string) {
	r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: m.pos.Line, Column: m.pos.Col, Field: m.key, Reason: reason})
}

// count reads a whole non-negative number.
func (r *summaryReader) count(k string) schemas.Opt[int64] {
	m, ok := r.get(k)
	if !ok {
		return schemas.Opt[int64]{}
	}
	f, _, ok := num(m)
	if !ok || f < 0 || f != math.Trunc(f) || math.IsInf(f, 0) {
		return schemas.Opt[int64]{}
	}
	return schemas.Some(int64(f))
}

// parseSummary reads a summary object whose '{' was just returned and
// checks that it is a benchmark summary; nothing is reported yet.
func parseSummary(in *ingest.Input, sc *jsonscan.Scanner, open jsonscan.Token, sink ingest.Sink) (*summaryReader, error) {
	ms, err := readObject(sc, in.Path, nil, true)
	if err != nil {
		return nil, err
	}
	r := &summaryReader{in: in, sink: sink, ms: ms, used: map[string]bool{}}
	for _, k := range []string{"num_mismatched_requests", "mismatch_rate"} {
		if m, ok := r.get(k); ok {
			return nil, &ingest.Error{File: in.Path, Line: m.pos.Line, Column: m.pos.Col, Field: k,
				Err: fmt.Errorf("an LLMPerf correctness summary (llm_correctness.py), not a benchmark result")}
		}
	}
	statKeys := 0
	for _, m := range ms {
		if reStat.MatchString(m.key) {
			statKeys++
		}
	}
	if statKeys == 0 {
		return nil, &ingest.Error{File: in.Path, Line: open.Pos.Line, Column: open.Pos.Col,
			Err: fmt.Errorf("not an LLMPerf summary: no results_<metric>_<stat> keys")}
	}
	if m, ok := r.get("timestamp"); ok {
		if f, _, ok := num(m); ok && f > 0 && !math.IsInf(f, 0) {
			r.ts = schemas.Some(f)
		}
	}
	r.era = summaryEra(r.ts)
	return r, nil
}

// version is the run's tool version text.
func (r *summaryReader) version() string {
	v := "LLMPerf"
	if m, ok := r.get("version"); ok && m.text != "" {
		v += " (results format " + m.text + ")"
	}
	return v + ", " + r.era.desc
}

// build makes the run and its statistics under the reader's era.
func (r *summaryReader) build(ctx context.Context) error {
	in := r.in
	r.run = schemas.Run{
		ID: ingest.RunID("llmperf", in.SHA256(), 0), Tool: "llmperf", ToolVersion: r.version(), Format: "llmperf-summary",
		SourcePath: in.Path, SourceSHA256: in.SHA256(), Tokenizer: tokenizer, TokenSource: tokenSource,
		Scenario: schemas.ScenarioConcurrency, Arrival: schemas.ArrivalClosedLoop, Streaming: schemas.Some(true),
		Labels: map[string]string{"result_name": resultName(in.Path)}, Flags: slices.Clone(r.era.flags),
	}
	run := &r.run
	if r.ts.OK {
		run.ToolDate = time.Unix(int64(r.ts.V), 0).UTC().Format(time.RFC3339)
	}
	run.NumPrompts = r.count("results_num_requests_started")
	run.Completed = r.count("results_num_completed_requests")
	run.Failed = r.count("results_number_errors")
	if c := r.count("num_concurrent_requests"); c.OK && c.V > 0 {
		run.MaxConcurrency = c
		if c.V == 1 {
			run.Scenario = schemas.ScenarioSingleStream
		}
	}
	if m, ok := r.get("model"); ok {
		run.Model = m.text
	}
	noData := run.Completed.OK && run.Completed.V == 0
	if noData {
		run.Flags = append(run.Flags, "no_successful_requests")
	}
	if err := r.stats(ctx, noData); err != nil {
		return err
	}
	r.values()
	r.labels()
	slices.Sort(run.Flags)
	return nil
}

// stats reads the results_<metric>_<stat> keys.
func (r *summaryReader) stats(ctx context.Context, noData bool) error {
	base := schemas.Metric{RunID: r.run.ID, Source: schemas.SourceReported}
	for _, m := range r.ms {
		if err := ctx.Err(); err != nil {
			return err
		}
		g := reStat.FindStringSubmatch(m.key)
		if g == nil {
			continue
		}
		r.used[m.key] = true
		id := r.era.idOf(g[1])
		row := base
		row.MetricID, row.Unit, row.NativeName = id, schemas.MustLookup(id).Unit, m.key
		switch {
		case g[3] != "":
			p, _ := strconv.ParseFloat(g[3], 64)
			row.Stat, row.Percentile, row.Method = schemas.StatP, schemas.Some(p), string(stats.Linear)
		case g[2] == "mean":
			row.Stat, row.Method = schemas.StatMean, "arithmetic"
		case g[2] == "stddev":
			row.Stat, row.Method = schemas.StatStd, "sample"
		case g[2] == "min":
			row.Stat = schemas.StatMin
		case g[2] == "max":
			row.Stat = schemas.StatMax
		}
		if m.kind == jsonscan.Null {
			row.Note = "the tool wrote null (no data)"
			r.metrics = append(r.metrics, row)
			continue
		}
		f, why, ok := num(m)
		switch {
		case !ok:
			r.reject(m, why)
			continue
		case math.IsNaN(f):
			row.Note = "the tool wrote NaN (no data, or a single request for the std)"
		case math.IsInf(f, 0) || f < 0:
			r.reject(m, "expected a finite non-negative number, found "+m.text)
			continue
		case noData:
			row.Note = "no successful requests"
		default:
			row.Value = schemas.Some(f)
			if m.kind == jsonscan.String {
				row.Note = "written as a string"
			}
		}
		r.metrics = append(r.metrics, row)
	}
	return nil
}

// values reads the run-level results.
func (r *summaryReader) values() {
	base := schemas.Metric{RunID: r.run.ID, Source: schemas.SourceReported}
	for _, k := range []struct {
		key string
		id  schemas.MetricID
	}{
		{"results_mean_output_throughput_token_per_s", schemas.OutputTokenThroughput},
		{"results_num_completed_requests_per_min", schemas.RequestThroughput},
		{"results_error_rate", schemas.ErrorRate},
	} {
		m, ok := r.get(k.key)
		if !ok {
			continue
		}
		r.used[k.key] = true
		row := base
		row.MetricID, row.Stat, row.Unit, row.NativeName = k.id, schemas.StatValue, schemas.MustLookup(k.id).Unit, k.key
		f, why, ok := num(m)
		switch {
		case m.kind == jsonscan.Null:
			row.Note = "the tool wrote null"
		case !ok:
			r.reject(m, why)
			continue
		case math.IsNaN(f):
			row.Note = "the tool wrote NaN"
		case math.IsInf(f, 0) || f < 0:
			r.reject(m, "expected a finite non-negative number, found "+m.text)
			continue
		case k.id == schemas.RequestThroughput:
			row.Value = schemas.Some(f / 60)
			row.Note = "requests per minute / 60"
		case k.id == schemas.ErrorRate && f > 1:
			r.reject(m, "an error rate above 1")
			continue
		default:
			row.Value = schemas.Some(f)
		}
		r.metrics = append(r.metrics, row)
	}
}

// labels keeps everything else as a label: the run's settings, the error
// codes, --metadata keys.
func (r *summaryReader) labels() {
	known := map[string]bool{"version": true, "timestamp": true, "model": true, "results_num_requests_started": true,
		"results_num_completed_requests": true, "results_number_errors": true}
	for _, m := range r.ms {
		if r.used[m.key] || known[m.key] {
			continue
		}
		switch m.kind {
		case jsonscan.BeginArray:
			r.run.Labels[m.key] = fmt.Sprintf("[array of %d]", len(m.list))
		case jsonscan.BeginObject:
			r.run.Labels[m.key] = "{object}"
		case jsonscan.Null:
		default:
			r.run.Labels[m.key] = m.text
		}
		if strings.HasPrefix(m.key, "results_") && m.key != "results_error_code_frequency" {
			r.sink.Warn(fmt.Sprintf("unknown key %q kept as a label", m.key))
		}
	}
}

// reported returns the statistics with their observation counts.
func (r *summaryReader) reported() []schemas.Metric {
	out := slices.Clone(r.metrics)
	for i := range out {
		m := &out[i]
		m.RunID = r.run.ID
		if m.MetricID == schemas.InputTokens || m.MetricID == schemas.OutputTokens || m.MetricID == schemas.TTFT || m.MetricID == schemas.E2E ||
			m.MetricID == r.era.itlID || m.MetricID == r.era.rateID {
			m.N = r.run.Completed
		}
	}
	return out
}

func readSummary(ctx context.Context, in *ingest.Input, sc *jsonscan.Scanner, open jsonscan.Token, sink ingest.Sink) error {
	r, err := parseSummary(in, sc, open, sink)
	if err != nil {
		return err
	}
	if err := r.build(ctx); err != nil {
		return err
	}
	if err := sink.Run(&r.run); err != nil {
		return err
	}
	for _, m := range r.reported() {
		if err := sink.Metric(&m); err != nil {
			return err
		}
	}
	sink.Describe("llmperf-summary", "llmperf", r.run.ToolVersion)
	return nil
}
