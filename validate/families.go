package validate

import (
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// A family is one quantity that tools measure under different definitions:
// "inter-token latency" is vLLM's per-chunk gap (itl_chunk), GenAI-Perf's
// per-request average over answer tokens (tpot_answer), and in old vLLM a
// latency per token including the first (tpot_incl_ttft). Two runs whose
// rows of a family share no definition ID report the same quantity under
// different definitions, and V004 (or V006) says so.
//
// Families come from the registry's naming convention: a definition
// belongs to a family when its ID equals one of the family's base IDs or
// starts with the base and "_" (ttft_answer, ttft_scheduled;
// tpot_incl_ttft, itl_chunk_per_token; request_throughput_span_all). A
// tool that adds a definition following the convention joins its family
// without a change here; only a new base name (a tool's own word for a
// known quantity, like Locust's http_response_time) needs a line below. An
// ID matching no base is a family of its own, compared only with itself.
type family struct {
	Name     string
	prefixes []string
	// flagPrefixes are further prefixes run flags use for the family
	// (vLLM's flags say "e2el" for E2E).
	flagPrefixes []string
}

// families is immutable. Each lists the base IDs of its definitions;
// variants that follow the convention (base + "_" + qualifier) join the
// family of their base. A longer base wins, so e2e_output_token_rate is a
// per-request rate, not an E2E latency.
var families = []family{
	{Name: "TTFT", prefixes: []string{"ttft"}},
	{Name: "TTST", prefixes: []string{"ttst"}},
	{Name: "ITL/TPOT", prefixes: []string{"itl", "tpot", "decode_time_per_output_token"}},
	{Name: "E2E latency", prefixes: []string{"e2e", "query_latency", "http_response_time"}, flagPrefixes: []string{"e2el"}},
	{Name: "client queue time", prefixes: []string{"client_queue"}},
	{Name: "input length", prefixes: []string{"input_tokens"}, flagPrefixes: []string{"input_len", "isl"}},
	{Name: "output length", prefixes: []string{"output_tokens", "answer_tokens"}, flagPrefixes: []string{"output_len", "osl"}},
	{Name: "token usage discrepancy", prefixes: []string{"input_tokens_usage_diff", "output_tokens_usage_diff"}},
	{Name: "output token rate per user", prefixes: []string{"output_token_rate_per_user"}},
	{Name: "per-request output rate", prefixes: []string{"e2e_output_token_rate", "request_output_chunk_rate"}},
	{Name: "request throughput", prefixes: []string{"request_throughput", "offline_request_throughput", "sample_throughput",
		"offline_sample_throughput", "sample_rate_inverse_mean_latency", "http_request_rate"}},
	{Name: "goodput", prefixes: []string{"goodput"}},
	{Name: "output token throughput", prefixes: []string{"output_token_throughput", "offline_output_token_throughput"}},
	{Name: "input token throughput", prefixes: []string{"input_token_throughput"}},
	{Name: "total token throughput", prefixes: []string{"total_token_throughput", "offline_total_token_throughput"}},
	{Name: "peak concurrency", prefixes: []string{"peak_concurrency"}},
	{Name: "batch latency", prefixes: []string{"batch_latency"}},
}

func hasIDPrefix(id, p string) bool {
	return id == p || strings.HasPrefix(id, p+"_")
}

// familyOf returns the family name of a definition ID: the family with the
// longest matching prefix, or the ID itself.
func familyOf(id schemas.MetricID) string {
	best, bestLen := string(id), 0
	for _, f := range families {
		for _, p := range f.prefixes {
			if hasIDPrefix(string(id), p) && len(p) > bestLen {
				best, bestLen = f.Name, len(p)
			}
		}
	}
	return best
}

// flagFamily returns the family a run flag is about, or "".
func flagFamily(flag string) string {
	if k, ok := knownFlags[flag]; ok {
		if k.family == "" {
			return ""
		}
		return familyOf(schemas.MetricID(k.family))
	}
	best, bestLen := "", 0
	for _, f := range families {
		for _, p := range append(append([]string(nil), f.prefixes...), f.flagPrefixes...) {
			if hasIDPrefix(flag, p) && len(p) > bestLen {
				best, bestLen = f.Name, len(p)
			}
		}
	}
	return best
}

// flagEffect is what a run flag means for comparisons.
type flagEffect int

const (
	// flagChanges: the flagged metric is measured differently from the
	// same definition without the flag.
	flagChanges flagEffect = iota
	// flagUncertain: the source could not tell which definition applies.
	flagUncertain
	// flagNoEffect: recorded for provenance; the numbers mean the same.
	flagNoEffect
)

type knownFlag struct {
	family string // a definition ID of the family, "" for none
	effect flagEffect
	note   string
}

// knownFlags documents the flags ingestors write (schemas.Run.Flags). A
// flag not listed is judged by its name: one containing "uncertain" or
// "_may_" is uncertain, any other that names a family is treated as
// uncertain too (verdict does not know whether it changes the number, and
// does not guess).
var knownFlags = map[string]knownFlag{
	"itl_includes_ttft":                           {"itl_chunk", flagChanges, "the first chunk gap is the TTFT (vLLM openai-completions 2024-06-28..2024-08-09)"},
	"itl_may_include_ttft":                        {"itl_chunk", flagUncertain, "the first chunk gap may be the TTFT (vLLM 2024-06-28..2024-08-09)"},
	"itl_counts_single_chunk_requests_as_zero":    {"tpot_answer", flagChanges, "single-response requests add zeros to the ITL samples (GenAI-Perf 0.0.4-0.0.12)"},
	"itl_may_count_single_chunk_requests_as_zero": {"tpot_answer", flagUncertain, "single-response requests may add zeros to the ITL samples (GenAI-Perf 0.0.4-0.0.12)"},
	"itl_per_chunk_per_token":                     {"itl_chunk_per_token", flagNoEffect, "carried by the definition ID itl_chunk_per_token"},
	"tpot_includes_ttft":                          {"tpot", flagNoEffect, "carried by the definition ID tpot_incl_ttft"},
	"tpot_definition_uncertain":                   {"tpot", flagUncertain, "TPOT may include the TTFT (vLLM before 2024-03-27)"},
	"e2e_ends_at_done_event":                      {"e2e", flagChanges, "E2E ends when [DONE] arrived, not at the last chunk (vLLM before 2025-01-21)"},
	"e2el_mean_median_may_be_swapped":             {"e2e", flagUncertain, "mean and median E2E may be swapped (vLLM 2024-08-29..2024-11-04)"},
	"e2el_mean_median_swapped_corrected":          {"e2e", flagNoEffect, "corrected at ingest"},
	"e2e_derived_from_ttft_plus_itls":             {"e2e", flagNoEffect, "E2E rebuilt as TTFT + chunk gaps, equal up to microseconds"},
	"streaming_osl_inflated":                      {"output_tokens", flagNoEffect, "see V020-tool-invalid"},
	"streaming_osl_may_be_inflated":               {"output_tokens", flagUncertain, "output lengths may be about 5x the requested ones, miscounted (GenAI-Perf 0.0.8-0.0.9, perf_analyzer#298)"},
	"goodput_may_mispair_slos":                    {"goodput", flagUncertain, "GenAI-Perf may pair SLOs with the wrong requests"},
	"failed_derived_from_num_prompts":             {"", flagNoEffect, "failed = num_prompts - completed"},
	"no_successful_requests":                      {"", flagNoEffect, "see V016-failures"},
	"server_token_counts":                         {"", flagNoEffect, "the token source is compared by V010"},
	"reasoning_counted_as_output":                 {"", flagNoEffect, "carried by the definition IDs (ttft, output_tokens against ttft_answer, answer_tokens)"},
	"requests_sampled":                            {"", flagNoEffect, "request rows are a sample; counts come from the run"},
	"llmperf_itl_divisor_uncertain":               {"tpot_incl_ttft", flagUncertain, "LLMPerf's ITL is over tokenizer tokens or streamed chunks, and the file cannot tell which (its code date is unknown)"},
	"llmperf_rate_count_uncertain":                {"e2e_output_token_rate", flagUncertain, "LLMPerf's per-request rate counts tokens or chunks, and the file cannot tell which (its code date is unknown)"},
}

// effectOfFlag returns a flag's effect and a note.
func effectOfFlag(flag string) (flagEffect, string) {
	if k, ok := knownFlags[flag]; ok {
		return k.effect, k.note
	}
	return flagUncertain, "a version quirk verdict does not know"
}

// uncertainFlag reports whether a flag says a definition is uncertain.
func uncertainFlag(flag string) bool {
	if k, ok := knownFlags[flag]; ok {
		return k.effect == flagUncertain
	}
	return strings.Contains(flag, "uncertain") || strings.Contains(flag, "_may_")
}

// definitionsDiffer classifies how two definitions differ: in what is
// measured (events, formula, level, unit) or only in the population,
// numerator, denominator or window.
func definitionsDiffer(a, b schemas.MetricDef) (what, window bool) {
	what = a.From != b.From || a.To != b.To || a.Formula != b.Formula || a.Level != b.Level || a.Unit != b.Unit
	window = a.Population != b.Population || a.Numerator != b.Numerator || a.Denominator != b.Denominator || a.Window != b.Window
	return what, window
}

// A DefinitionFlag is a run flag known to bear on what the numbers of one
// definition mean.
type DefinitionFlag struct {
	Flag   string
	Metric schemas.MetricID
	// Changes is true when the flagged run measures the metric differently
	// under the same definition ID, false when the source leaves it
	// uncertain.
	Changes bool
	Note    string
}

// DefinitionFlags lists the known flags that change a definition or leave
// it uncertain, sorted by flag; flags recorded for provenance only are left
// out. Code that computes verdict's numbers elsewhere (the SQL views of
// `verdict sql`) refuses the rows of runs whose flags change a definition
// the number reads, as the pair rules treat them here.
func DefinitionFlags() []DefinitionFlag {
	var out []DefinitionFlag
	for flag, k := range knownFlags {
		if k.family == "" || k.effect == flagNoEffect {
			continue
		}
		out = append(out, DefinitionFlag{Flag: flag, Metric: schemas.MetricID(k.family), Changes: k.effect == flagChanges, Note: k.note})
	}
	slices.SortFunc(out, func(a, b DefinitionFlag) int { return strings.Compare(a.Flag, b.Flag) })
	return out
}
