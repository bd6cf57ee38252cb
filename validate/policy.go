package validate

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/internal/yamlin"
)

// A Policy sets the thresholds of the rules and decides which findings fail
// the gate. Copy DefaultPolicy and change fields, or read a YAML file with
// LoadPolicy; the zero Policy is not meaningful.
//
// The YAML layout (every key optional; absent keys keep DefaultPolicy's
// values; unknown or duplicated keys are errors):
//
//	thresholds:
//	  max_failed_fraction: 0.01   # V016: failed / (completed + failed) above this is an error
//	  ks_alpha: 0.01              # V008: the KS test's significance level
//	  ks_min_statistic: 0.1       # V008: and the smallest KS distance D that counts
//	  ks_min_samples: 20          # V008: fewer per-request lengths per run: compare means
//	  length_mean_tolerance: 0.1  # V008: relative difference of mean lengths allowed
//	  itl_tpot_ratio: 1.5         # V013: mean per-chunk ITL / mean TPOT above this
//	  tokens_per_chunk: 1.2       # V013: output tokens per streamed chunk above this
//	  not_streaming_fraction: 0.9 # V014: share of requests with TTFT = E2E or one chunk
//	  warmup_outlier_factor: 5    # V015: first request's latency / median above this
//	  min_outlier_requests: 10    # V015: fewest requests for the cold-start check
//	  steady_min_requests: 100    # V021, V022: fewest successful requests to test
//	  transient_tolerance: 0.05   # V021: change of mean or p99 without the MSER-5 transient
//	  saturation_moe: 2           # V022: GuideLLM's margin-of-error threshold for the slope
//	  saturation_min_rise: 0.5    # V022: fitted rise over the run / median that counts
//	  saturation_min_duration: 30 # V022: seconds of steady run the test needs (GuideLLM's)
//	required_inventory: [model, quantization, engine, engine_version, gpu_model, gpu_count, driver, dataset]
//	fail_on_warnings: [V012-prefix-cache]   # or [all]
//	allow_incomplete: false
//	severity: {V009-prompt-count: error}
//	disable: [V019-unmaintained-tool]
type Policy struct {
	Thresholds Thresholds `yaml:"thresholds" json:"thresholds"`
	// RequiredInventory lists the inventory fields (schemas.Inventory's
	// JSON names) whose absence makes a run unverified (V018).
	RequiredInventory []string `yaml:"required_inventory" json:"required_inventory"`
	// FailOnWarnings lists the rules whose warnings fail the gate; "all"
	// means every warning.
	FailOnWarnings []string `yaml:"fail_on_warnings" json:"fail_on_warnings"`
	// AllowIncomplete lets unverified errors pass the gate (the verdict
	// still says incomplete).
	AllowIncomplete bool `yaml:"allow_incomplete" json:"allow_incomplete"`
	// Severity overrides rules' severities by rule ID.
	Severity map[string]Severity `yaml:"severity" json:"severity,omitempty"`
	// Disable turns rules off by ID.
	Disable []string `yaml:"disable" json:"disable,omitempty"`
}

// Thresholds are the numbers the rules compare against.
type Thresholds struct {
	MaxFailedFraction    float64 `yaml:"max_failed_fraction" json:"max_failed_fraction"`
	KSAlpha              float64 `yaml:"ks_alpha" json:"ks_alpha"`
	KSMinStatistic       float64 `yaml:"ks_min_statistic" json:"ks_min_statistic"`
	KSMinSamples         int     `yaml:"ks_min_samples" json:"ks_min_samples"`
	LengthMeanTolerance  float64 `yaml:"length_mean_tolerance" json:"length_mean_tolerance"`
	ITLTPOTRatio         float64 `yaml:"itl_tpot_ratio" json:"itl_tpot_ratio"`
	TokensPerChunk       float64 `yaml:"tokens_per_chunk" json:"tokens_per_chunk"`
	NotStreamingFraction float64 `yaml:"not_streaming_fraction" json:"not_streaming_fraction"`
	WarmupOutlierFactor  float64 `yaml:"warmup_outlier_factor" json:"warmup_outlier_factor"`
	MinOutlierRequests   int     `yaml:"min_outlier_requests" json:"min_outlier_requests"`
	// Steady state (V021) and over-saturation (V022).
	SteadyMinRequests     int     `yaml:"steady_min_requests" json:"steady_min_requests"`
	TransientTolerance    float64 `yaml:"transient_tolerance" json:"transient_tolerance"`
	SaturationMOE         float64 `yaml:"saturation_moe" json:"saturation_moe"`
	SaturationMinRise     float64 `yaml:"saturation_min_rise" json:"saturation_min_rise"`
	SaturationMinDuration float64 `yaml:"saturation_min_duration" json:"saturation_min_duration"`
}

// DefaultPolicy is the policy `verdict validate` uses without --policy:
//
//   - more than 1% failed requests is an error: latency statistics over
//     the survivors of a run with failures are biased low;
//   - input or output lengths differ when the two-sample Kolmogorov-Smirnov
//     test rejects at alpha 0.01 and the distance D is at least 0.1 (with
//     thousands of requests a test alone flags negligible differences), or,
//     without 20 per-request lengths a side, when mean lengths differ by
//     more than 10%;
//   - chunks carry several tokens when the mean per-chunk ITL exceeds the
//     mean TPOT by half, or a chunk carries more than 1.2 tokens on average;
//   - a run is not streamed when 90% of its requests have TTFT equal to E2E
//     or a single chunk;
//   - the first request suggests an un-excluded cold start when its latency
//     is five times the median (with at least 10 requests);
//   - with at least 100 successful requests, a warm-up transient counts when
//     dropping MSER-5's truncation moves the mean or p99 by more than 5%,
//     and TTFT or client queue time rises through the run when GuideLLM's
//     slope test passes (margin of error below 2) over at least 30 s and the
//     fitted rise reaches half the median;
//   - a run is unverified without its model, quantization, engine and
//     version, GPU model and count, driver and dataset;
//   - no warning fails the gate, and unverified errors do (incomplete
//     results do not pass).
var DefaultPolicy = Policy{
	Thresholds: Thresholds{
		MaxFailedFraction:     0.01,
		KSAlpha:               0.01,
		KSMinStatistic:        0.1,
		KSMinSamples:          20,
		LengthMeanTolerance:   0.1,
		ITLTPOTRatio:          1.5,
		TokensPerChunk:        1.2,
		NotStreamingFraction:  0.9,
		WarmupOutlierFactor:   5,
		MinOutlierRequests:    10,
		SteadyMinRequests:     100,
		TransientTolerance:    0.05,
		SaturationMOE:         2,
		SaturationMinRise:     0.5,
		SaturationMinDuration: 30,
	},
	RequiredInventory: []string{"model", "quantization", "engine", "engine_version", "gpu_model", "gpu_count", "driver", "dataset"},
}

// clone returns a deep copy, so that callers' slices and maps are never
// shared with DefaultPolicy.
func (p Policy) clone() Policy {
	p.RequiredInventory = slices.Clone(p.RequiredInventory)
	p.FailOnWarnings = slices.Clone(p.FailOnWarnings)
	p.Disable = slices.Clone(p.Disable)
	if p.Severity != nil {
		m := make(map[string]Severity, len(p.Severity))
		for k, v := range p.Severity {
			m[k] = v
		}
		p.Severity = m
	}
	return p
}

// LoadPolicy reads a policy YAML file over DefaultPolicy.
func LoadPolicy(path string) (Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Policy{}, err
	}
	return ParsePolicy(path, data)
}

// ParsePolicy is LoadPolicy on bytes; name is used in errors. Unknown and
// duplicated keys, unknown rule IDs, inventory fields and severities, and
// thresholds out of range are errors.
func ParsePolicy(name string, data []byte) (Policy, error) {
	p := DefaultPolicy.clone()
	if len(bytes.TrimSpace(data)) == 0 {
		return Policy{}, fmt.Errorf("%s: empty policy file", name)
	}
	if err := yamlin.Decode(name, data, &p); err != nil {
		return Policy{}, err
	}
	if err := p.Check(); err != nil {
		return Policy{}, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// Check reports the first problem of a policy: a threshold out of range,
// an unknown rule ID, inventory field or severity.
func (p Policy) Check() error {
	t := p.Thresholds
	frac := func(name string, v float64, lo, hi float64) error {
		if !(v >= lo && v <= hi) || math.IsNaN(v) {
			return fmt.Errorf("thresholds.%s must be in [%g, %g], got %g", name, lo, hi, v)
		}
		return nil
	}
	for _, c := range []struct {
		name      string
		v, lo, hi float64
	}{
		{"max_failed_fraction", t.MaxFailedFraction, 0, 1},
		{"ks_alpha", t.KSAlpha, 0, 1},
		{"ks_min_statistic", t.KSMinStatistic, 0, 1},
		{"length_mean_tolerance", t.LengthMeanTolerance, 0, math.MaxFloat64},
		{"itl_tpot_ratio", t.ITLTPOTRatio, 1, math.MaxFloat64},
		{"tokens_per_chunk", t.TokensPerChunk, 1, math.MaxFloat64},
		{"not_streaming_fraction", t.NotStreamingFraction, 0, 1},
		{"warmup_outlier_factor", t.WarmupOutlierFactor, 1, math.MaxFloat64},
		{"transient_tolerance", t.TransientTolerance, 0, math.MaxFloat64},
		{"saturation_moe", t.SaturationMOE, 0, math.MaxFloat64},
		{"saturation_min_rise", t.SaturationMinRise, 0, math.MaxFloat64},
		{"saturation_min_duration", t.SaturationMinDuration, 0, math.MaxFloat64},
	} {
		if err := frac(c.name, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	if t.KSMinSamples < 1 {
		return fmt.Errorf("thresholds.ks_min_samples must be at least 1, got %d", t.KSMinSamples)
	}
	if t.SteadyMinRequests < 10 {
		return fmt.Errorf("thresholds.steady_min_requests must be at least 10, got %d", t.SteadyMinRequests)
	}
	if t.MinOutlierRequests < 2 {
		return fmt.Errorf("thresholds.min_outlier_requests must be at least 2, got %d", t.MinOutlierRequests)
	}
	known := inventoryFieldNames()
	for _, f := range p.RequiredInventory {
		if !slices.Contains(known, f) {
			return fmt.Errorf("required_inventory: unknown inventory field %q (known: %s)", f, strings.Join(known, ", "))
		}
	}
	for _, id := range p.FailOnWarnings {
		if id == "all" {
			continue
		}
		if _, ok := FindRule(id); !ok {
			return fmt.Errorf("fail_on_warnings: unknown rule %q (`verdict rules` lists them)", id)
		}
	}
	for _, id := range p.Disable {
		if _, ok := FindRule(id); !ok {
			return fmt.Errorf("disable: unknown rule %q (`verdict rules` lists them)", id)
		}
	}
	for id, s := range p.Severity {
		if _, ok := FindRule(id); !ok {
			return fmt.Errorf("severity: unknown rule %q (`verdict rules` lists them)", id)
		}
		if s != Error && s != Warning && s != Info {
			return fmt.Errorf("severity: %s: %q is not error, warning or info", id, s)
		}
	}
	return nil
}

// severityOf returns a rule's effective severity.
func (p Policy) severityOf(r *Rule) Severity {
	for id, s := range p.Severity {
		if ruleMatches(r, id) {
			return s
		}
	}
	return r.Severity
}

// failsOnWarning reports whether warnings of rule r fail the gate.
func (p Policy) failsOnWarning(r *Rule) bool {
	for _, id := range p.FailOnWarnings {
		if id == "all" || ruleMatches(r, id) {
			return true
		}
	}
	return false
}
