package schemas

// BRComponentLabel is the label of the stack component in which verdict
// records, in a Benchmark Report it writes, what BR itself cannot say: the
// definition behind each field, the run's version flags and its validation
// verdict. BR v0.2.1 forbids unknown keys everywhere except in a "generic"
// component's standardized section, so that is where it goes
// (docs/formats/llmd-br.md section 5). ingest/llmdbr reads it
// back, so a report verdict wrote reads with the definitions it was
// written with.
const BRComponentLabel = "verdict"

// BRMetaSchema versions BRMeta.
const BRMetaSchema = "verdict.br/v1"

// BRMeta is verdict's record inside a Benchmark Report.
type BRMeta struct {
	Schema         string `json:"schema"`
	VerdictVersion string `json:"verdict_version,omitempty"`
	RunID          string `json:"run_id"`
	Tool           string `json:"tool"`
	ToolVersion    string `json:"tool_version,omitempty"`
	Format         string `json:"format,omitempty"`
	Scenario       string `json:"scenario,omitempty"`
	Arrival        string `json:"arrival,omitempty"`
	// Definitions maps each BR field written (relative to the aggregate,
	// e.g. "latency.time_to_first_token") to what it holds.
	Definitions map[string]BRField `json:"definitions"`
	// NotWritten lists the run's definitions that have no BR field.
	NotWritten []MetricID         `json:"not_written,omitempty"`
	Flags      []string           `json:"flags,omitempty"`
	Labels     map[string]string  `json:"labels,omitempty"`
	Validation *BRValidation      `json:"validation,omitempty"`
	Inventory  map[string]string  `json:"inventory,omitempty"`
	Window     map[string]float64 `json:"window,omitempty"` // duration_s when known
}

// A BRField is the definition behind one BR field.
type BRField struct {
	Metric     MetricID `json:"metric"`
	Percentile string   `json:"percentile_method,omitempty"`
	Std        string   `json:"std_method,omitempty"`
	Source     string   `json:"source,omitempty"` // SourceReported or SourceComputed
}

// BRValidation is a run's validation verdict as verdict validate gave it.
type BRValidation struct {
	Schema   string      `json:"schema"` // the validate report's schema
	Verdict  string      `json:"verdict"`
	Findings []BRFinding `json:"findings,omitempty"`
}

// A BRFinding is one validation finding about the run.
type BRFinding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}
