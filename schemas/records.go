package schemas

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// SchemaVersion is the version of the tables and manifest this package
// writes. Readers refuse bundles of other versions.
const SchemaVersion = 1

// Opt is an optional value: OK is false when the value is unknown. It is a
// value type so that millions of request rows cost no allocations; in Arrow
// an unknown value is a null.
type Opt[T any] struct {
	V  T
	OK bool
}

// Some returns a known value.
func Some[T any](v T) Opt[T] { return Opt[T]{V: v, OK: true} }

// Get returns the value and whether it is known.
func (o Opt[T]) Get() (T, bool) { return o.V, o.OK }

// MarshalJSON writes null for an unknown value. Non-finite floats, which
// JSON cannot hold, are written as the strings "inf", "-inf" and "nan".
func (o Opt[T]) MarshalJSON() ([]byte, error) {
	if !o.OK {
		return []byte("null"), nil
	}
	if f, ok := any(o.V).(float64); ok {
		return marshalFloat(f), nil
	}
	return json.Marshal(o.V)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*o = Opt[T]{}
		return nil
	}
	if p, ok := any(&o.V).(*float64); ok {
		var s string
		if json.Unmarshal(b, &s) == nil {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return err
			}
			*p = f
			o.OK = true
			return nil
		}
	}
	o.OK = true
	return json.Unmarshal(b, &o.V)
}

func marshalFloat(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte(`"inf"`)
	case math.IsInf(f, -1):
		return []byte(`"-inf"`)
	case math.IsNaN(f):
		return []byte(`"nan"`)
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64)
}

// Scenario is how load was offered.
type Scenario string

const (
	// ScenarioServer: requests arrive on a schedule (Poisson, gamma or
	// constant) at a target rate, optionally capped by a client
	// concurrency limit.
	ScenarioServer Scenario = "server"
	// ScenarioOffline: every request is released at once (request rate
	// "inf" without a concurrency limit, or an offline engine run).
	ScenarioOffline Scenario = "offline"
	// ScenarioConcurrency: a fixed number of requests in flight; the next
	// starts when one ends (closed loop).
	ScenarioConcurrency Scenario = "fixed_concurrency"
	// ScenarioSingleStream: one request at a time.
	ScenarioSingleStream Scenario = "single_stream"
	// ScenarioMultiStream: MLPerf's back-to-back queries of several samples.
	ScenarioMultiStream Scenario = "multi_stream"
	// ScenarioBatchLatency: an offline engine timed over repeated fixed
	// batches (vllm bench latency); a request row is one batch.
	ScenarioBatchLatency Scenario = "batch_latency"
	// ScenarioUnknown: the source does not say.
	ScenarioUnknown Scenario = "unknown"
)

// Arrival is the arrival process of a run.
type Arrival string

const (
	ArrivalPoisson    Arrival = "poisson"     // exponential gaps (gamma with shape 1)
	ArrivalGamma      Arrival = "gamma"       // gamma gaps with the run's burstiness as shape
	ArrivalConstant   Arrival = "constant"    // fixed gaps
	ArrivalAllAtOnce  Arrival = "all_at_once" // every request released at t=0
	ArrivalClosedLoop Arrival = "closed_loop" // next request when one completes
	ArrivalRampUp     Arrival = "ramp_up"     // rate changes during the run
	ArrivalUnknown    Arrival = "unknown"
)

// Window kinds of a run's duration (see the Window* constants).
const (
	WindowKindDispatch = "dispatch" // WindowDispatch
	WindowKindSpan     = "span"     // WindowSpan
	WindowKindEngine   = "engine"   // WindowEngine
)

// A Run is one row of the runs table: one benchmark run as a tool recorded
// it, plus what the user supplied about the system under test.
type Run struct {
	ID           string `json:"run_id"`
	Tool         string `json:"tool"`         // e.g. "vllm"
	ToolVersion  string `json:"tool_version"` // a version or dated era; "" when unknown
	Format       string `json:"format"`       // the ingest format, e.g. "vllm-serve"
	SourcePath   string `json:"source_path"`
	SourceSHA256 string `json:"source_sha256"`
	SourceRecord int64  `json:"source_record"` // 0-based index of the run within its file
	// SourceFiles lists every file the run was read from when a tool wrote
	// one run as several files (AIPerf's records, summary and telemetry;
	// LLMPerf's summary and responses; Locust's four CSVs; MLPerf's
	// summary and detail log). SourcePath is the one its identity comes
	// from. Nil when the run comes from one file.
	SourceFiles []string `json:"source_files,omitempty"`

	Scenario       Scenario     `json:"scenario"`
	Arrival        Arrival      `json:"arrival"`
	RequestRate    Opt[float64] `json:"request_rate"` // requests/s; +Inf for "inf"
	Burstiness     Opt[float64] `json:"burstiness"`   // gamma shape; 1 = Poisson
	MaxConcurrency Opt[int64]   `json:"max_concurrency"`
	RampUp         string       `json:"ramp_up"` // e.g. "linear 1->10 req/s"; "" when none or unknown
	Streaming      Opt[bool]    `json:"streaming"`
	Backend        string       `json:"backend"`  // the tool's backend or endpoint type
	Endpoint       string       `json:"endpoint"` // URL path or endpoint kind, when known
	Model          string       `json:"model"`    // as the tool recorded it
	Tokenizer      string       `json:"tokenizer"`

	NumPrompts Opt[int64] `json:"num_prompts"` // requested
	Completed  Opt[int64] `json:"completed"`   // successful requests
	Failed     Opt[int64] `json:"failed"`

	DurationS   Opt[float64]   `json:"duration_s"`
	WindowKind  string         `json:"window_kind"` // WindowKind*; "" when unknown
	WindowStart Opt[time.Time] `json:"window_start"`
	WindowEnd   Opt[time.Time] `json:"window_end"`
	ToolDate    string         `json:"tool_date"` // the tool's own timestamp text, as written

	// TokenSource says where the run's token counts come from, e.g.
	// "server_usage" or "client_tokenizer"; "" when unknown.
	TokenSource string `json:"token_source"`

	Labels map[string]string `json:"labels"`
	// Flags record version quirks that change what a number means, e.g.
	// "e2el_mean_median_swapped".
	Flags []string `json:"flags"`

	SUT Inventory `json:"sut"`
}

// Request status values.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusUnknown = "unknown" // the source does not say whether it succeeded
	// StatusCancelled: the user interrupted the run (Ctrl-C) while the
	// request was in flight; neither a success nor a failure of the
	// server.
	StatusCancelled = "cancelled"
)

// Request phases. Only profiling rows are observations of the run;
// warm-up and cool-down rows are kept for the record and left out of every
// statistic, as the tools that write them leave them out of their own.
const (
	PhaseProfiling = "profiling"
	PhaseWarmup    = "warmup"
	// PhaseCooldown: a request the tool sent after its measurement window
	// closed (GuideLLM's cool-down).
	PhaseCooldown = "cooldown"
)

// Measured reports whether a request of this phase is an observation of
// the run: profiling rows (and rows of sources that record no phase).
func Measured(phase string) bool {
	return phase == PhaseProfiling || phase == ""
}

// A Request is one row of the requests table. Times are seconds. StartS
// and EndS are on the run's clock: Unix seconds where the source records
// wall-clock times (capture, GenAI-Perf, AIPerf), the tool's own monotonic
// clock otherwise (vLLM's perf_counter, whose origin is arbitrary); only
// differences within a run are comparable across sources.
type Request struct {
	RunID  string
	Index  int64  // dispatch order within the run
	Status string // StatusOK, StatusError, StatusCancelled or StatusUnknown
	Phase  string // PhaseProfiling, PhaseWarmup or PhaseCooldown

	StartS      Opt[float64]
	EndS        Opt[float64]
	QueueS      Opt[float64] // client_queue
	TTFTS       Opt[float64] // ttft
	TTFTAnswerS Opt[float64] // ttft_answer
	E2ES        Opt[float64] // e2e

	InputTokens     Opt[int64]
	OutputTokens    Opt[int64]
	ReasoningTokens Opt[int64]

	// ChunkGapsS are the gaps between streamed chunks (itl_chunk); nil when
	// unknown.
	ChunkGapsS []float64

	Error string
}

// Statistic names of the metrics table.
const (
	StatMean   = "mean"
	StatMedian = "median"
	StatStd    = "std"
	StatMin    = "min"
	StatMax    = "max"
	StatP      = "p" // a percentile; Metric.Percentile says which
	StatCount  = "count"
	StatSum    = "sum"
	StatValue  = "value" // a run-level metric's single value
	// StatObservation is one observation of an iteration-level metric
	// (e.g. one batch latency); NativeName says which.
	StatObservation = "observation"
)

// Metric sources.
const (
	SourceReported = "reported" // the tool wrote it
	SourceComputed = "computed" // verdict computed it from per-request data
)

// A Metric is one row of the metrics table: one statistic of one metric of
// one run.
type Metric struct {
	RunID      string       `json:"run_id"`
	MetricID   MetricID     `json:"metric_id"` // a registry definition ID
	Stat       string       `json:"stat"`
	Percentile Opt[float64] `json:"percentile"` // for StatP: 0-100, as the tool labels it (99.9)
	Value      Opt[float64] `json:"value"`      // null when the tool wrote no usable value
	Unit       string       `json:"unit"`
	// Method says how the statistic was computed: a stats.Method for
	// percentiles, "population" or "sample" for std, "arithmetic" for
	// means, "" for single values.
	Method     string     `json:"method"`
	Source     string     `json:"source"`      // SourceReported or SourceComputed
	NativeName string     `json:"native_name"` // the tool's key, e.g. "p99_ttft_ms"
	N          Opt[int64] `json:"n"`           // observations the statistic covers, when known
	Note       string     `json:"note"`        // why a value is missing or qualified
	// Dimension names the part of the run a statistic covers when it is
	// not the whole run, e.g. "endpoint GET /api/v1/health" for one row of
	// Locust's per-endpoint stats; "" for the whole run. Consumers that
	// want the run's statistics skip rows with a dimension.
	Dimension string `json:"dimension,omitempty"`
}

// Key identifies a statistic within a run: metric, statistic, percentile
// and source.
func (m Metric) Key() string {
	k := string(m.MetricID) + "/" + m.Stat
	if m.Percentile.OK {
		k += strconv.FormatFloat(m.Percentile.V, 'g', -1, 64)
	}
	k += "/" + m.Source
	if m.Dimension != "" {
		k += "/" + m.Dimension
	}
	return k
}
