package schemas

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// This file converts between the Go row types and Arrow record batches.
// Writers append rows to a RecordBuilder built from the table's schema;
// readers decode rows from any record batch whose columns carry the
// table's names, so column order and extra columns do not matter.

func appendStr(b array.Builder, s string) {
	sb := b.(*array.StringBuilder)
	if s == "" {
		sb.AppendNull()
		return
	}
	sb.Append(s)
}

func appendF64(b array.Builder, o Opt[float64]) {
	fb := b.(*array.Float64Builder)
	if !o.OK {
		fb.AppendNull()
		return
	}
	fb.Append(o.V)
}

func appendI64(b array.Builder, o Opt[int64]) {
	ib := b.(*array.Int64Builder)
	if !o.OK {
		ib.AppendNull()
		return
	}
	ib.Append(o.V)
}

func appendStrList(b array.Builder, xs []string) {
	lb := b.(*array.ListBuilder)
	if xs == nil {
		lb.AppendNull()
		return
	}
	lb.Append(true)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for _, x := range xs {
		vb.Append(x)
	}
}

// Earliest and Latest bound the times a bundle can hold: its timestamps
// are nanoseconds since 1970 in an int64 (Arrow and Parquet's
// TIMESTAMP(NANOS)), about the years 1678 to 2262. A reader turns a time
// outside them (a corrupt or misread Unix time) into a rejection, never
// into an overflowed timestamp.
var (
	Earliest = time.Unix(0, math.MinInt64).UTC()
	Latest   = time.Unix(0, math.MaxInt64).UTC()
)

// Representable reports whether t lies within Earliest and Latest.
func Representable(t time.Time) bool { return !t.Before(Earliest) && !t.After(Latest) }

// UnixSeconds is the time of v Unix seconds, when it is finite and
// representable.
func UnixSeconds(v float64) (time.Time, bool) {
	if math.IsNaN(v) || v < float64(Earliest.Unix()) || v > float64(Latest.Unix()) {
		return time.Time{}, false
	}
	sec, frac := math.Modf(v)
	t := time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
	return t, Representable(t)
}

// appendTime stores o in nanoseconds since 1970. A time outside
// Earliest..Latest would overflow them into another date; the sinks that
// hand times to the tables (the ingest driver for runs, analysis.CostRows
// for costs) leave such times unset with a warning first, and it is
// stored as null here whatever the caller.
func appendTime(b array.Builder, o Opt[time.Time]) {
	tb := b.(*array.TimestampBuilder)
	if !o.OK || !Representable(o.V) {
		tb.AppendNull()
		return
	}
	tb.Append(arrow.Timestamp(o.V.UTC().UnixNano()))
}

// AppendRun appends r to a builder made from RunsSchema.
func AppendRun(b *array.RecordBuilder, r *Run) {
	f := b.Fields()
	i := 0
	next := func() array.Builder { i++; return f[i-1] }
	next().(*array.StringBuilder).Append(r.ID)
	next().(*array.StringBuilder).Append(r.Tool)
	appendStr(next(), r.ToolVersion)
	next().(*array.StringBuilder).Append(r.Format)
	appendStr(next(), r.SourcePath)
	appendStr(next(), r.SourceSHA256)
	next().(*array.Int64Builder).Append(r.SourceRecord)
	appendStrList(next(), r.SourceFiles)
	next().(*array.StringBuilder).Append(string(orUnknown(string(r.Scenario))))
	next().(*array.StringBuilder).Append(string(orUnknown(string(r.Arrival))))
	appendF64(next(), r.RequestRate)
	appendF64(next(), r.Burstiness)
	appendI64(next(), r.MaxConcurrency)
	appendStr(next(), r.RampUp)
	if bb := next().(*array.BooleanBuilder); r.Streaming.OK {
		bb.Append(r.Streaming.V)
	} else {
		bb.AppendNull()
	}
	appendStr(next(), r.Backend)
	appendStr(next(), r.Endpoint)
	appendStr(next(), r.Model)
	appendStr(next(), r.Tokenizer)
	appendI64(next(), r.NumPrompts)
	appendI64(next(), r.Completed)
	appendI64(next(), r.Failed)
	appendF64(next(), r.DurationS)
	appendStr(next(), r.WindowKind)
	appendTime(next(), r.WindowStart)
	appendTime(next(), r.WindowEnd)
	appendStr(next(), r.ToolDate)
	appendStr(next(), r.TokenSource)
	mb := next().(*array.MapBuilder)
	if r.Labels == nil {
		mb.AppendNull()
	} else {
		mb.Append(true)
		kb := mb.KeyBuilder().(*array.StringBuilder)
		vb := mb.ItemBuilder().(*array.StringBuilder)
		for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
			kb.Append(k)
			vb.Append(r.Labels[k])
		}
	}
	appendStrList(next(), r.Flags)
	s := &r.SUT
	appendStr(next(), s.Model)
	appendStr(next(), s.ModelRevision)
	appendStr(next(), s.Quantization)
	appendStr(next(), s.Reasoning)
	appendStr(next(), s.Engine)
	appendStr(next(), s.EngineVersion)
	appendStrList(next(), s.LaunchArgs)
	appendStr(next(), s.GPUModel)
	appendI64(next(), s.GPUCount)
	appendStr(next(), s.Driver)
	appendStr(next(), s.CUDA)
	appendStr(next(), s.Image)
	appendStr(next(), s.Dataset)
	appendStr(next(), s.DatasetSHA256)
	appendStr(next(), s.Endpoint)
	appendStr(next(), s.ClientLocation)
	appendStr(next(), s.CacheState)
	appendI64(next(), s.WarmupRequests)
	appendStrList(next(), s.ResourceIDs)
	appendStr(next(), s.Parallelism)
	appendStr(next(), s.TimeZone)
	if i != len(f) {
		panic(fmt.Sprintf("schemas: AppendRun filled %d of %d columns", i, len(f)))
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// A RequestAppender appends requests to a builder made from RequestsSchema
// without per-row allocation.
type RequestAppender struct {
	runID, status, phase, errText         *array.StringBuilder
	index                                 *array.Int64Builder
	start, end, queue, ttft, ttftAns, e2e *array.Float64Builder
	inTok, outTok, reasTok                *array.Int64Builder
	gaps                                  *array.ListBuilder
	gapVals                               *array.Float64Builder
}

// NewRequestAppender binds an appender to b, which must be built from
// RequestsSchema.
func NewRequestAppender(b *array.RecordBuilder) *RequestAppender {
	f := b.Fields()
	gaps := f[13].(*array.ListBuilder)
	return &RequestAppender{
		runID: f[0].(*array.StringBuilder), index: f[1].(*array.Int64Builder),
		status: f[2].(*array.StringBuilder), phase: f[3].(*array.StringBuilder),
		start: f[4].(*array.Float64Builder), end: f[5].(*array.Float64Builder),
		queue: f[6].(*array.Float64Builder), ttft: f[7].(*array.Float64Builder),
		ttftAns: f[8].(*array.Float64Builder), e2e: f[9].(*array.Float64Builder),
		inTok: f[10].(*array.Int64Builder), outTok: f[11].(*array.Int64Builder), reasTok: f[12].(*array.Int64Builder),
		gaps: gaps, gapVals: gaps.ValueBuilder().(*array.Float64Builder),
		errText: f[14].(*array.StringBuilder),
	}
}

// Append appends one request.
func (a *RequestAppender) Append(r *Request) {
	a.runID.Append(r.RunID)
	a.index.Append(r.Index)
	a.status.Append(r.Status)
	phase := r.Phase
	if phase == "" {
		phase = PhaseProfiling
	}
	a.phase.Append(phase)
	appendF64(a.start, r.StartS)
	appendF64(a.end, r.EndS)
	appendF64(a.queue, r.QueueS)
	appendF64(a.ttft, r.TTFTS)
	appendF64(a.ttftAns, r.TTFTAnswerS)
	appendF64(a.e2e, r.E2ES)
	appendI64(a.inTok, r.InputTokens)
	appendI64(a.outTok, r.OutputTokens)
	appendI64(a.reasTok, r.ReasoningTokens)
	if r.ChunkGapsS == nil {
		a.gaps.AppendNull()
	} else {
		a.gaps.Append(true)
		a.gapVals.AppendValues(r.ChunkGapsS, nil)
	}
	appendStr(a.errText, r.Error)
}

// AppendMetric appends m to a builder made from MetricsSchema.
func AppendMetric(b *array.RecordBuilder, m *Metric) {
	f := b.Fields()
	f[0].(*array.StringBuilder).Append(m.RunID)
	f[1].(*array.StringBuilder).Append(string(m.MetricID))
	f[2].(*array.StringBuilder).Append(m.Stat)
	appendF64(f[3], m.Percentile)
	appendF64(f[4], m.Value)
	f[5].(*array.StringBuilder).Append(m.Unit)
	appendStr(f[6], m.Method)
	f[7].(*array.StringBuilder).Append(m.Source)
	appendStr(f[8], m.NativeName)
	appendI64(f[9], m.N)
	appendStr(f[10], m.Note)
	appendStr(f[11], m.Dimension)
}

// BuildRuns returns one record batch holding runs. The caller releases it.
func BuildRuns(mem memory.Allocator, runs []Run) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, runsSchema)
	defer b.Release()
	for i := range runs {
		AppendRun(b, &runs[i])
	}
	return b.NewRecordBatch()
}

// BuildMetrics returns one record batch holding metrics. The caller
// releases it.
func BuildMetrics(mem memory.Allocator, ms []Metric) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, metricsSchema)
	defer b.Release()
	for i := range ms {
		AppendMetric(b, &ms[i])
	}
	return b.NewRecordBatch()
}

// columns looks up a batch's columns by name.
type columns struct {
	rec arrow.RecordBatch
	idx map[string]int
}

func newColumns(rec arrow.RecordBatch) columns {
	idx := make(map[string]int, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		idx[f.Name] = i
	}
	return columns{rec, idx}
}

func (c columns) col(name string) arrow.Array {
	i, ok := c.idx[name]
	if !ok {
		return nil
	}
	return c.rec.Column(i)
}

func (c columns) str(name string, row int) string {
	a, ok := c.col(name).(*array.String)
	if !ok || a.IsNull(row) {
		return ""
	}
	return strings.Clone(a.Value(row))
}

func (c columns) f64(name string, row int) Opt[float64] {
	a, ok := c.col(name).(*array.Float64)
	if !ok || a.IsNull(row) {
		return Opt[float64]{}
	}
	return Some(a.Value(row))
}

func (c columns) i64(name string, row int) Opt[int64] {
	a, ok := c.col(name).(*array.Int64)
	if !ok || a.IsNull(row) {
		return Opt[int64]{}
	}
	return Some(a.Value(row))
}

func (c columns) boolean(name string, row int) Opt[bool] {
	a, ok := c.col(name).(*array.Boolean)
	if !ok || a.IsNull(row) {
		return Opt[bool]{}
	}
	return Some(a.Value(row))
}

func (c columns) ts(name string, row int) Opt[time.Time] {
	a, ok := c.col(name).(*array.Timestamp)
	if !ok || a.IsNull(row) {
		return Opt[time.Time]{}
	}
	return Some(time.Unix(0, int64(a.Value(row))).UTC())
}

func (c columns) strList(name string, row int) []string {
	a, ok := c.col(name).(*array.List)
	if !ok || a.IsNull(row) {
		return nil
	}
	vals, ok := a.ListValues().(*array.String)
	if !ok {
		return nil
	}
	lo, hi := a.ValueOffsets(row)
	out := make([]string, 0, hi-lo)
	for j := lo; j < hi; j++ {
		out = append(out, strings.Clone(vals.Value(int(j))))
	}
	return out
}

func (c columns) strMap(name string, row int) map[string]string {
	a, ok := c.col(name).(*array.Map)
	if !ok || a.IsNull(row) {
		return nil
	}
	keys, _ := a.Keys().(*array.String)
	items, _ := a.Items().(*array.String)
	if keys == nil || items == nil {
		return nil
	}
	lo, hi := a.ValueOffsets(row)
	out := make(map[string]string, hi-lo)
	for j := lo; j < hi; j++ {
		out[strings.Clone(keys.Value(int(j)))] = strings.Clone(items.Value(int(j)))
	}
	return out
}

// DecodeRuns decodes every row of a runs record batch.
func DecodeRuns(rec arrow.RecordBatch) []Run {
	c := newColumns(rec)
	out := make([]Run, rec.NumRows())
	for i := range out {
		r := &out[i]
		r.ID = c.str("run_id", i)
		r.Tool = c.str("tool", i)
		r.ToolVersion = c.str("tool_version", i)
		r.Format = c.str("format", i)
		r.SourcePath = c.str("source_path", i)
		r.SourceSHA256 = c.str("source_sha256", i)
		r.SourceRecord = c.i64("source_record", i).V
		r.SourceFiles = c.strList("source_files", i)
		r.Scenario = Scenario(c.str("scenario", i))
		r.Arrival = Arrival(c.str("arrival", i))
		r.RequestRate = c.f64("request_rate", i)
		r.Burstiness = c.f64("burstiness", i)
		r.MaxConcurrency = c.i64("max_concurrency", i)
		r.RampUp = c.str("ramp_up", i)
		r.Streaming = c.boolean("streaming", i)
		r.Backend = c.str("backend", i)
		r.Endpoint = c.str("endpoint", i)
		r.Model = c.str("model", i)
		r.Tokenizer = c.str("tokenizer", i)
		r.NumPrompts = c.i64("num_prompts", i)
		r.Completed = c.i64("completed", i)
		r.Failed = c.i64("failed", i)
		r.DurationS = c.f64("duration_s", i)
		r.WindowKind = c.str("window_kind", i)
		r.WindowStart = c.ts("window_start", i)
		r.WindowEnd = c.ts("window_end", i)
		r.ToolDate = c.str("tool_date", i)
		r.TokenSource = c.str("token_source", i)
		r.Labels = c.strMap("labels", i)
		r.Flags = c.strList("flags", i)
		r.SUT = Inventory{
			Model: c.str("sut_model", i), ModelRevision: c.str("sut_model_revision", i),
			Quantization: c.str("sut_quantization", i), Reasoning: c.str("sut_reasoning", i), Engine: c.str("sut_engine", i),
			EngineVersion: c.str("sut_engine_version", i), LaunchArgs: c.strList("sut_launch_args", i),
			GPUModel: c.str("sut_gpu_model", i), GPUCount: c.i64("sut_gpu_count", i),
			Driver: c.str("sut_driver", i), CUDA: c.str("sut_cuda", i), Image: c.str("sut_container_image", i),
			Dataset: c.str("sut_dataset", i), DatasetSHA256: c.str("sut_dataset_sha256", i),
			Endpoint: c.str("sut_endpoint", i), ClientLocation: c.str("sut_client_location", i),
			CacheState: c.str("sut_cache_state", i), WarmupRequests: c.i64("sut_warmup_requests", i),
			ResourceIDs: c.strList("sut_resource_ids", i), Parallelism: c.str("sut_parallelism", i),
			TimeZone: c.str("sut_time_zone", i),
		}
	}
	return out
}

// DecodeMetrics decodes every row of a metrics record batch.
func DecodeMetrics(rec arrow.RecordBatch) []Metric {
	c := newColumns(rec)
	out := make([]Metric, rec.NumRows())
	for i := range out {
		out[i] = Metric{
			RunID: c.str("run_id", i), MetricID: MetricID(c.str("metric_id", i)), Stat: c.str("stat", i),
			Percentile: c.f64("percentile", i), Value: c.f64("value", i), Unit: c.str("unit", i),
			Method: c.str("method", i), Source: c.str("source", i), NativeName: c.str("native_name", i),
			N: c.i64("n", i), Note: c.str("note", i), Dimension: c.str("dimension", i),
		}
	}
	return out
}

// A RequestDecoder decodes rows of requests record batches into a reused
// Request. Columns are resolved once per batch, so decoding a row costs no
// lookups and no allocation.
type RequestDecoder struct {
	runID, status, phase, errText         *array.String
	index                                 *array.Int64
	start, end, queue, ttft, ttftAns, e2e *array.Float64
	inTok, outTok, reasTok                *array.Int64
	gaps                                  *array.List
	vals                                  *array.Float64
	req                                   Request
	buf                                   []float64
	interned                              map[string]string
}

// intern copies a string out of Arrow memory once per distinct value; run
// IDs, statuses and phases repeat on every row.
func (d *RequestDecoder) intern(a *array.String, i int) string {
	if a == nil || a.IsNull(i) {
		return ""
	}
	v := a.Value(i)
	if s, ok := d.interned[v]; ok {
		return s
	}
	if d.interned == nil || len(d.interned) > 1<<12 {
		d.interned = make(map[string]string)
	}
	s := strings.Clone(v)
	d.interned[s] = s
	return s
}

// Reset binds the decoder to a new record batch.
func (d *RequestDecoder) Reset(rec arrow.RecordBatch) {
	c := newColumns(rec)
	s := func(n string) *array.String { a, _ := c.col(n).(*array.String); return a }
	f := func(n string) *array.Float64 { a, _ := c.col(n).(*array.Float64); return a }
	i := func(n string) *array.Int64 { a, _ := c.col(n).(*array.Int64); return a }
	d.runID, d.status, d.phase, d.errText = s("run_id"), s("status"), s("phase"), s("error")
	d.index = i("index")
	d.start, d.end, d.queue = f("start_s"), f("end_s"), f("queue_s")
	d.ttft, d.ttftAns, d.e2e = f("ttft_s"), f("ttft_answer_s"), f("e2e_s")
	d.inTok, d.outTok, d.reasTok = i("input_tokens"), i("output_tokens"), i("reasoning_tokens")
	d.gaps, _ = c.col("chunk_gaps_s").(*array.List)
	d.vals = nil
	if d.gaps != nil {
		d.vals, _ = d.gaps.ListValues().(*array.Float64)
	}
}

func getStr(a *array.String, i int) string {
	if a == nil || a.IsNull(i) {
		return ""
	}
	return strings.Clone(a.Value(i))
}

func getF64(a *array.Float64, i int) Opt[float64] {
	if a == nil || a.IsNull(i) {
		return Opt[float64]{}
	}
	return Some(a.Value(i))
}

func getI64(a *array.Int64, i int) Opt[int64] {
	if a == nil || a.IsNull(i) {
		return Opt[int64]{}
	}
	return Some(a.Value(i))
}

// Row decodes row i. The returned Request, including its ChunkGapsS, is
// valid until the next call to Row; strings are copied out of Arrow memory.
func (d *RequestDecoder) Row(i int) *Request {
	r := &d.req
	*r = Request{
		RunID: d.intern(d.runID, i), Index: getI64(d.index, i).V, Status: d.intern(d.status, i), Phase: d.intern(d.phase, i),
		StartS: getF64(d.start, i), EndS: getF64(d.end, i), QueueS: getF64(d.queue, i),
		TTFTS: getF64(d.ttft, i), TTFTAnswerS: getF64(d.ttftAns, i), E2ES: getF64(d.e2e, i),
		InputTokens: getI64(d.inTok, i), OutputTokens: getI64(d.outTok, i), ReasoningTokens: getI64(d.reasTok, i),
		Error: getStr(d.errText, i),
	}
	if d.gaps != nil && d.vals != nil && !d.gaps.IsNull(i) {
		lo, hi := d.gaps.ValueOffsets(i)
		if d.buf == nil {
			d.buf = make([]float64, 0, 16) // an empty list (one chunk) must not decode as nil (unknown)
		}
		d.buf = append(d.buf[:0], d.vals.Float64Values()[lo:hi]...)
		r.ChunkGapsS = d.buf
	}
	return r
}
