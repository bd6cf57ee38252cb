package schemas

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Field metadata keys. MetaMetric carries a column's definition ID.
const (
	MetaMetric     = "verdict.metric"
	MetaUnit       = "verdict.unit"
	MetaDefinition = "verdict.definition"
	MetaSchema     = "verdict.schema_version"
	MetaTable      = "verdict.table"
)

// Table names, which are also the bundle's file stems.
const (
	TableRuns     = "runs"
	TableRequests = "requests"
	TableMetrics  = "metrics"
)

// metricField is a nullable column holding observations of a registry
// metric; its metadata names the definition.
func metricField(name string, typ arrow.DataType, id MetricID) arrow.Field {
	d := MustLookup(id)
	return arrow.Field{Name: name, Type: typ, Nullable: true,
		Metadata: arrow.MetadataFrom(map[string]string{
			MetaMetric:     string(id),
			MetaUnit:       d.Unit,
			MetaDefinition: d.Summary(),
		})}
}

func plain(name string, typ arrow.DataType, nullable bool) arrow.Field {
	return arrow.Field{Name: name, Type: typ, Nullable: nullable}
}

func described(name string, typ arrow.DataType, nullable bool, desc string) arrow.Field {
	return arrow.Field{Name: name, Type: typ, Nullable: nullable,
		Metadata: arrow.MetadataFrom(map[string]string{"verdict.description": desc})}
}

// newTable builds a table's schema. Besides the version and table name,
// its schema-level metadata repeats each metric column's definition ID as
// "verdict.metric.<column>": Parquet writes schema metadata as plain
// key/value pairs that every engine can list (DuckDB's
// parquet_kv_metadata), while field metadata survives only inside the
// encoded Arrow schema.
func newTable(table string, fields []arrow.Field) *arrow.Schema {
	md := map[string]string{MetaSchema: strconv.Itoa(SchemaVersion), MetaTable: table}
	for _, f := range fields {
		if id, ok := f.Metadata.GetValue(MetaMetric); ok {
			md[MetaMetric+"."+f.Name] = id
		}
	}
	meta := arrow.MetadataFrom(md)
	return arrow.NewSchema(fields, &meta)
}

var (
	str     = arrow.BinaryTypes.String
	i64     = arrow.PrimitiveTypes.Int64
	f64     = arrow.PrimitiveTypes.Float64
	boolean = arrow.FixedWidthTypes.Boolean
	tsUTC   = &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	strList = arrow.ListOf(arrow.BinaryTypes.String)
	strMap  = arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)
)

// The schemas are immutable after package initialisation.
var (
	runsSchema = newTable(TableRuns, []arrow.Field{
		plain("run_id", str, false),
		plain("tool", str, false),
		plain("tool_version", str, true),
		plain("format", str, false),
		plain("source_path", str, true),
		plain("source_sha256", str, true),
		plain("source_record", i64, false),
		described("source_files", strList, true, "every file the run was read from, when a tool wrote one run as several files"),
		described("scenario", str, false, "server, offline, fixed_concurrency, single_stream, multi_stream, batch_latency or unknown"),
		described("arrival", str, false, "poisson, gamma, constant, all_at_once, closed_loop, ramp_up or unknown"),
		described("request_rate", f64, true, "target requests/s; +Inf when all requests are released at once"),
		described("burstiness", f64, true, "gamma shape of inter-arrival times; 1 is Poisson"),
		plain("max_concurrency", i64, true),
		plain("ramp_up", str, true),
		plain("streaming", boolean, true),
		plain("backend", str, true),
		plain("endpoint", str, true),
		plain("model", str, true),
		plain("tokenizer", str, true),
		described("num_prompts", i64, true, "requests asked for"),
		described("completed", i64, true, "successful requests"),
		described("failed", i64, true, "failed requests"),
		described("duration_s", f64, true, "length of the run's window in seconds; window_kind says which window"),
		described("window_kind", str, true, "dispatch (first dispatch -> last completion), span (earliest start -> latest end) or engine"),
		plain("window_start", tsUTC, true),
		plain("window_end", tsUTC, true),
		described("tool_date", str, true, "the tool's own timestamp text, as written (often local time without a zone)"),
		plain("token_source", str, true),
		plain("labels", strMap, true),
		described("flags", strList, true, "version quirks that change what a number means"),
		plain("sut_model", str, true),
		plain("sut_model_revision", str, true),
		plain("sut_quantization", str, true),
		described("sut_reasoning", str, true, "how the model's reasoning reaches the client: none, split (reasoning_content) or inline"),
		plain("sut_engine", str, true),
		plain("sut_engine_version", str, true),
		plain("sut_launch_args", strList, true),
		plain("sut_gpu_model", str, true),
		plain("sut_gpu_count", i64, true),
		plain("sut_driver", str, true),
		plain("sut_cuda", str, true),
		plain("sut_container_image", str, true),
		plain("sut_dataset", str, true),
		plain("sut_dataset_sha256", str, true),
		plain("sut_endpoint", str, true),
		plain("sut_client_location", str, true),
		plain("sut_cache_state", str, true),
		plain("sut_warmup_requests", i64, true),
		plain("sut_resource_ids", strList, true),
		described("sut_parallelism", str, true, "parallelism of the serving engine(s), e.g. tp=8 dp=1 pp=1 ep=1"),
		described("sut_time_zone", str, true, "IANA time zone (Area/City) of the clock behind the tool's local times without a zone (vLLM's date)"),
	})

	requestsSchema = newTable(TableRequests, []arrow.Field{
		plain("run_id", str, false),
		described("index", i64, false, "dispatch order within the run"),
		described("status", str, false, "ok, error, cancelled (in flight when the user interrupted the run) or unknown (the source does not say)"),
		plain("phase", str, false),
		described("start_s", f64, true, "send time in seconds on the run's clock: Unix seconds where the source has wall-clock times (capture, GenAI-Perf, AIPerf), the tool's own monotonic clock otherwise (vLLM's perf_counter); compare differences only"),
		described("end_s", f64, true, "completion time in seconds on the run's clock (see start_s)"),
		metricField("queue_s", f64, ClientQueue),
		metricField("ttft_s", f64, TTFT),
		metricField("ttft_answer_s", f64, TTFTAnswer),
		metricField("e2e_s", f64, E2E),
		metricField("input_tokens", i64, InputTokens),
		metricField("output_tokens", i64, OutputTokens),
		metricField("reasoning_tokens", i64, ReasoningTokens),
		metricField("chunk_gaps_s", arrow.ListOf(f64), ITLChunk),
		plain("error", str, true),
	})

	metricsSchema = newTable(TableMetrics, []arrow.Field{
		plain("run_id", str, false),
		described("metric_id", str, false, "metric definition ID; `verdict schema` lists every definition"),
		described("stat", str, false, "mean, median, std, min, max, p, count, sum or value"),
		described("percentile", f64, true, "for stat p: the percentile, 0-100"),
		plain("value", f64, true),
		plain("unit", str, false),
		described("method", str, true, "how the statistic was computed (percentile method, std convention)"),
		described("source", str, false, "reported by the tool or computed by verdict"),
		plain("native_name", str, true),
		plain("n", i64, true),
		plain("note", str, true),
		described("dimension", str, true, "the part of the run the statistic covers (e.g. one endpoint); null for the whole run"),
	})
)

// RunsSchema is the Arrow schema of the runs table.
func RunsSchema() *arrow.Schema { return runsSchema }

// RequestsSchema is the Arrow schema of the requests table.
func RequestsSchema() *arrow.Schema { return requestsSchema }

// MetricsSchema is the Arrow schema of the metrics table.
func MetricsSchema() *arrow.Schema { return metricsSchema }

// SchemaOf returns the schema of a table by name.
func SchemaOf(table string) (*arrow.Schema, bool) {
	switch table {
	case TableRuns:
		return runsSchema, true
	case TableRequests:
		return requestsSchema, true
	case TableMetrics:
		return metricsSchema, true
	case TableSamples:
		return samplesSchema, true
	case TableCosts:
		return costsSchema, true
	}
	return nil, false
}
