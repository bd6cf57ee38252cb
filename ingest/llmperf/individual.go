package llmperf

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// The quantiles LLMPerf's summary reports.
var summaryQuantiles = []float64{25, 50, 75, 90, 95, 99}

// okRow is what a successful request contributes to the recomputation.
type okRow struct {
	itl, ttft, e2e, rate float64
	itlList              []float64 // sagemaker/vertexai clients write the gaps
	in, out              float64
	hasITL, hasTTFT      bool
	hasE2E, hasRate      bool
	hasIn, hasOut        bool
}

// A responsesReader reads an individual-responses list: each response is
// a request row or a rejection, and the successful ones are kept for the
// recomputed statistics.
type responsesReader struct {
	ctx   context.Context
	in    *ingest.Input
	sink  ingest.Sink
	runID string

	q        schemas.Request // reused: the sink copies what it keeps
	ms       []member
	rows     []okRow
	n        int
	failed   int
	codes    map[string]int
	rejected int
	lists    bool
}

func newResponsesReader(ctx context.Context, in *ingest.Input, sink ingest.Sink, runID string) *responsesReader {
	return &responsesReader{ctx: ctx, in: in, sink: sink, runID: runID, codes: map[string]int{}}
}

// read reads the list whose '[' was just returned.
func (r *responsesReader) read(sc *jsonscan.Scanner) error {
	for {
		tok, err := sc.Next()
		if err != nil {
			return syntaxErr(r.in.Path, err)
		}
		if tok.Kind == jsonscan.EndArray {
			return nil
		}
		i := r.n
		r.n++
		if i&0xfff == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		if err := r.response(sc, tok, i); err != nil {
			return err
		}
	}
}

// response reads the i-th element.
func (r *responsesReader) response(sc *jsonscan.Scanner, tok jsonscan.Token, i int) error {
	if tok.Kind != jsonscan.BeginObject {
		if err := sc.Skip(tok); err != nil {
			return syntaxErr(r.in.Path, err)
		}
		r.sink.Reject(schemas.Rejection{Table: schemas.TableRequests, Line: tok.Pos.Line, Column: tok.Pos.Col, Record: fmt.Sprintf("request %d", i),
			Reason: "expected a response object, found " + tok.Kind.String()})
		r.rejected++
		return nil
	}
	var err error
	if r.ms, err = readObject(sc, r.in.Path, r.ms, false); err != nil {
		return err
	}
	row, q, rej := parseResponse(r.runID, i, r.ms, tok)
	if rej != nil {
		rej.Record = fmt.Sprintf("request %d", i)
		r.sink.Reject(*rej)
		r.rejected++
		return nil
	}
	r.q = q
	if q.Status == schemas.StatusError {
		r.failed++
		r.codes[codeOf(r.ms)]++
	} else {
		r.rows = append(r.rows, row)
		if row.itlList != nil {
			r.lists = true
		}
	}
	return r.sink.Request(&r.q)
}

// errorCodes renders the failed responses' codes with their counts.
func (r *responsesReader) errorCodes() string {
	if len(r.codes) == 0 {
		return ""
	}
	keys := make([]string, 0, len(r.codes))
	for k := range r.codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for j, k := range keys {
		parts[j] = fmt.Sprintf("%s: %d", k, r.codes[k])
	}
	return strings.Join(parts, ", ")
}

// flags are what the responses themselves add to a run's flags.
func (r *responsesReader) flags() []string {
	var out []string
	if r.rejected > 0 {
		out = append(out, "rows_rejected")
		r.sink.Warn(fmt.Sprintf("%d of %d responses were rejected; the recomputed statistics cover the %d ingested ones", r.rejected, r.n, r.n-r.rejected))
	}
	if r.n == 0 {
		out = append(out, "no_responses")
	}
	return out
}

func readIndividual(ctx context.Context, in *ingest.Input, sc *jsonscan.Scanner, open jsonscan.Token, sink ingest.Sink) error {
	r := newResponsesReader(ctx, in, sink, ingest.RunID("llmperf", in.SHA256(), 0))
	if err := r.read(sc); err != nil {
		return err
	}
	e := individualEra(r.rows, r.lists)
	version := "LLMPerf (individual responses), " + e.desc
	run := schemas.Run{
		ID: r.runID, Tool: "llmperf", ToolVersion: version, Format: "llmperf-individual",
		SourcePath: in.Path, SourceSHA256: in.SHA256(), Tokenizer: tokenizer, TokenSource: tokenSource,
		Scenario: schemas.ScenarioConcurrency, Arrival: schemas.ArrivalClosedLoop, Streaming: schemas.Some(true),
		NumPrompts: schemas.Some(int64(r.n)), Completed: schemas.Some(int64(len(r.rows))), Failed: schemas.Some(int64(r.failed)),
		Labels: map[string]string{"result_name": resultName(in.Path)}, Flags: slices.Clone(e.flags),
	}
	if c := r.errorCodes(); c != "" {
		run.Labels["error_codes"] = c
	}
	run.Flags = append(run.Flags, r.flags()...)
	slices.Sort(run.Flags)
	if err := sink.Run(&run); err != nil {
		return err
	}
	if _, err := emitComputed(run.ID, e, r.rows, sink); err != nil {
		return err
	}
	sink.Describe("llmperf-individual", "llmperf", version)
	return nil
}

// codeOf renders an error code as LLMPerf's summary counts it.
func codeOf(ms []member) string {
	for _, m := range ms {
		if m.key == "error_code" {
			if m.kind == jsonscan.Number && !m.numErr {
				return strconv.FormatFloat(m.num, 'g', -1, 64)
			}
			return m.text
		}
	}
	return "?"
}

// parseResponse turns one response object into a request row, or a
// rejection of the first bad field.
func parseResponse(runID string, i int, ms []member, open jsonscan.Token) (okRow, schemas.Request, *schemas.Rejection) {
	q := schemas.Request{RunID: runID, Index: int64(i), Phase: schemas.PhaseProfiling, Status: schemas.StatusOK}
	var row okRow
	bad := func(m member, reason string) *schemas.Rejection {
		return &schemas.Rejection{Table: schemas.TableRequests, Line: m.pos.Line, Column: m.pos.Col, Field: m.key, Reason: reason}
	}
	// lookup returns the last member with the key, as Python's json keeps.
	lookup := func(key string) (member, bool) {
		for i := len(ms) - 1; i >= 0; i-- {
			if ms[i].key == key {
				return ms[i], true
			}
		}
		return member{}, false
	}
	if _, ok := lookup("end_to_end_latency_s"); !ok {
		if _, ok := lookup("ttft_s"); !ok {
			return row, q, &schemas.Rejection{Table: schemas.TableRequests, Line: open.Pos.Line, Column: open.Pos.Col,
				Reason: "not an LLMPerf response: no ttft_s or end_to_end_latency_s"}
		}
	}
	errMsg := ""
	if m, ok := lookup("error_msg"); ok && m.kind == jsonscan.String {
		errMsg = m.text
	}
	if m, ok := lookup("error_code"); ok && m.kind != jsonscan.Null {
		if m.kind != jsonscan.Number && m.kind != jsonscan.String {
			return row, q, bad(m, "expected an error code or null, found "+m.kind.String())
		}
		q.Status = schemas.StatusError
		q.Error = errMsg
		if q.Error == "" {
			q.Error = "error code " + m.text
		}
	}
	// value reads a non-negative number; NaN (pandas) and null are missing.
	value := func(key string) (float64, bool, *schemas.Rejection) {
		m, ok := lookup(key)
		if !ok || m.kind == jsonscan.Null {
			return 0, false, nil
		}
		f, why, ok := num(m)
		switch {
		case !ok:
			return 0, false, bad(m, why)
		case math.IsNaN(f):
			return 0, false, nil
		case math.IsInf(f, 0) || f < 0:
			return 0, false, bad(m, "expected a finite non-negative number, found "+m.valueText())
		}
		return f, true, nil
	}
	integer := func(key string) (float64, bool, *schemas.Rejection) {
		f, ok, rej := value(key)
		if rej == nil && ok && (f != math.Trunc(f) || f > 1<<53) {
			m, _ := lookup(key)
			return 0, false, bad(m, "expected a whole token count, found "+strconv.FormatFloat(f, 'g', -1, 64))
		}
		return f, ok, rej
	}
	var rej *schemas.Rejection
	if row.ttft, row.hasTTFT, rej = value("ttft_s"); rej != nil {
		return row, q, rej
	}
	if row.e2e, row.hasE2E, rej = value("end_to_end_latency_s"); rej != nil {
		return row, q, rej
	}
	if row.rate, row.hasRate, rej = value("request_output_throughput_token_per_s"); rej != nil {
		return row, q, rej
	}
	if m, ok := lookup("inter_token_latency_s"); ok && m.kind == jsonscan.BeginArray {
		if m.listBad {
			return row, q, bad(m, "expected a list of numbers")
		}
		for _, g := range m.list {
			if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
				return row, q, bad(m, "chunk gap must be finite and non-negative, found "+strconv.FormatFloat(g, 'g', -1, 64))
			}
		}
		row.itlList = slices.Clone(m.list)
		if row.itlList == nil {
			row.itlList = []float64{}
		}
	} else if row.itl, row.hasITL, rej = value("inter_token_latency_s"); rej != nil {
		return row, q, rej
	}
	if row.in, row.hasIn, rej = integer("number_input_tokens"); rej != nil {
		return row, q, rej
	}
	if row.out, row.hasOut, rej = integer("number_output_tokens"); rej != nil {
		return row, q, rej
	}
	if _, _, rej = integer("number_total_tokens"); rej != nil {
		return row, q, rej
	}
	if row.hasIn {
		q.InputTokens = schemas.Some(int64(row.in))
	}
	if q.Status == schemas.StatusError {
		// LLMPerf writes zeros for a failed request's latencies and one
		// output token (the tokenizer's BOS on an empty text): no data.
		return row, q, nil
	}
	if row.hasTTFT {
		q.TTFTS = schemas.Some(row.ttft)
	}
	if row.hasE2E {
		q.E2ES = schemas.Some(row.e2e)
	}
	if row.hasOut {
		q.OutputTokens = schemas.Some(int64(row.out))
	}
	if row.itlList != nil {
		q.ChunkGapsS = row.itlList
	}
	return row, q, nil
}

// individualEra infers the code's era from the responses themselves
// (docs/formats/llmperf.md, "Dating a run"). From 2024-04-07 the
// per-request rate is number_output_tokens / end_to_end_latency_s, so the
// rate times the latency gives the token count back exactly (to float
// rounding); before, it counted streamed chunks. A ratio far from 1 is
// chunk-counting code, which divided the ITL by tokenizer tokens. A ratio
// of exactly 1 is the newer code, whose ITL divisor was tokens until
// 2024-12-08 and chunks since: the data cannot tell these apart, and the
// current code is assumed. A ratio near 1 but not exact (chunks of about
// one token each) fits the older code, but cannot rule out the newer: the
// era is unknown, and a paired summary's date decides (see ReadGroup).
func individualEra(rows []okRow, lists bool) era {
	var ratios []float64
	for _, r := range rows {
		if r.hasRate && r.hasE2E && r.hasOut && r.out > 0 && r.e2e > 0 {
			ratios = append(ratios, r.rate*r.e2e/r.out)
		}
	}
	e := era{itlID: schemas.TPOTInclTTFTPerChunk, rateID: schemas.E2EOutputTokenRate}
	if lists {
		e.itlID = schemas.ITLChunk
		e.flags = append(e.flags, "itl_lists_pooled")
	}
	if len(ratios) == 0 {
		e.flags = append(e.flags, "llmperf_code_date_unknown")
		e.desc = "code date unknown (no successful response); current main assumed"
		return e
	}
	slices.Sort(ratios)
	med := stats.Quantile(ratios, 0.5, stats.Linear)
	exact := math.Abs(ratios[0]-1) <= 1e-9 && math.Abs(ratios[len(ratios)-1]-1) <= 1e-9
	switch {
	case exact:
		e.flags = append(e.flags, "itl_per_chunk_assumed")
		e.desc = "rates count tokens: code of 2024-04-07 or later (ITL over chunks assumed, as since 2024-12-08)"
		return e
	case math.Abs(med-1) <= 0.02:
		if !lists {
			e.itlID = schemas.TPOTInclTTFT
		}
		e.rateID = schemas.RequestOutputChunkRate
		e.flags = append(e.flags, "llmperf_code_date_unknown", "llmperf_itl_divisor_uncertain", "llmperf_rate_count_uncertain")
		e.desc = fmt.Sprintf("code date unknown: rates are within 2%% of tokens / latency but not equal (median %.4g), chunks of about one token each fit the code before 2024-04-07 (assumed) as well as later code", med)
		return e
	}
	if !lists {
		e.itlID = schemas.TPOTInclTTFT
	}
	e.rateID = schemas.RequestOutputChunkRate
	e.flags = append(e.flags, "request_output_throughput_counts_chunks")
	e.desc = fmt.Sprintf("rates count chunks (median rate x latency / tokens = %.3g): code before 2024-04-07, ITL over tokenizer tokens", med)
	return e
}

// emitComputed recomputes the summary's statistics the way
// token_benchmark_ray.py does: over successful requests, NaNs dropped,
// pandas quantiles (linear), mean, min, max and std with ddof 1.
func emitComputed(runID string, e era, rows []okRow, sink ingest.Sink) ([]schemas.Metric, error) {
	var out []schemas.Metric
	ids := []schemas.MetricID{e.itlID, schemas.TTFT, schemas.E2E, e.rateID, schemas.InputTokens, schemas.OutputTokens}
	var xs []float64
	for col, id := range ids {
		xs = xs[:0]
		for i := range rows {
			r := &rows[i]
			switch col {
			case 0:
				if r.itlList != nil {
					xs = append(xs, r.itlList...)
				} else if r.hasITL {
					xs = append(xs, r.itl)
				}
			case 1:
				if r.hasTTFT {
					xs = append(xs, r.ttft)
				}
			case 2:
				if r.hasE2E {
					xs = append(xs, r.e2e)
				}
			case 3:
				if r.hasRate {
					xs = append(xs, r.rate)
				}
			case 4:
				if r.hasIn {
					xs = append(xs, r.in)
				}
			case 5:
				if r.hasOut {
					xs = append(xs, r.out)
				}
			}
		}
		if len(xs) == 0 {
			continue
		}
		mean := stats.Mean(xs) // file order, as pandas sums
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		base := schemas.Metric{RunID: runID, MetricID: id, Unit: schemas.MustLookup(id).Unit, Source: schemas.SourceComputed,
			N: schemas.Some(int64(len(xs)))}
		add := func(stat, method string, pct schemas.Opt[float64], v float64, note string) error {
			m := base
			m.Stat, m.Method, m.Percentile, m.Value, m.Note = stat, method, pct, schemas.Some(v), note
			if math.IsNaN(v) {
				m.Value = schemas.Opt[float64]{}
			}
			out = append(out, m)
			return sink.Metric(&m)
		}
		for _, p := range summaryQuantiles {
			if err := add(schemas.StatP, string(stats.Linear), schemas.Some(p), stats.Quantile(sorted, p/100, stats.Linear), ""); err != nil {
				return nil, err
			}
		}
		if err := add(schemas.StatMean, "arithmetic", schemas.Opt[float64]{}, mean, ""); err != nil {
			return nil, err
		}
		if err := add(schemas.StatMin, "", schemas.Opt[float64]{}, sorted[0], ""); err != nil {
			return nil, err
		}
		if err := add(schemas.StatMax, "", schemas.Opt[float64]{}, sorted[len(sorted)-1], ""); err != nil {
			return nil, err
		}
		std, note := math.NaN(), "one value: the sample std is undefined"
		if len(xs) > 1 {
			std, note = stats.StdDev(xs, 1), ""
		}
		if err := add(schemas.StatStd, "sample", schemas.Opt[float64]{}, std, note); err != nil {
			return nil, err
		}
	}
	return out, nil
}
