package validate

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/schemas"
)

func mustValidate(t *testing.T, runs []*RunData, opts Options) *Report {
	t.Helper()
	rep, err := Validate(runs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestVerdicts(t *testing.T) {
	policy := func(change func(p *Policy)) *Policy {
		p := DefaultPolicy.clone()
		change(&p)
		return &p
	}
	cases := []struct {
		name    string
		change  func(a, b *RunData)
		policy  *Policy
		verdict Verdict
		pass    bool
	}{
		{"clean", func(a, b *RunData) {}, nil, Comparable, true},
		{"a warning", func(a, b *RunData) { b.Run.NumPrompts = schemas.Some(int64(900)) }, nil, ComparableWithWarnings, true},
		{"a warning the policy gates", func(a, b *RunData) { b.Run.NumPrompts = schemas.Some(int64(900)) },
			policy(func(p *Policy) { p.FailOnWarnings = []string{"V009"} }), ComparableWithWarnings, false},
		{"every warning gated", func(a, b *RunData) { b.Run.NumPrompts = schemas.Some(int64(900)) },
			policy(func(p *Policy) { p.FailOnWarnings = []string{"all"} }), ComparableWithWarnings, false},
		{"an unverified error", func(a, b *RunData) { b.Run.Scenario = schemas.ScenarioUnknown }, nil, Incomplete, false},
		{"incomplete allowed", func(a, b *RunData) { b.Run.Scenario = schemas.ScenarioUnknown },
			policy(func(p *Policy) { p.AllowIncomplete = true }), Incomplete, true},
		{"an error beats incomplete", func(a, b *RunData) {
			b.Run.Scenario = schemas.ScenarioUnknown
			b.Run.RequestRate = schemas.Some(math.Inf(1))
		}, nil, NotComparable, false},
		{"an invalid run makes the comparison not comparable", func(a, b *RunData) {
			b.Run.Completed, b.Run.Failed = schemas.Some(int64(0)), schemas.Some(int64(700))
		}, nil, NotComparable, false},
		{"severity raised by the policy", func(a, b *RunData) { b.Run.NumPrompts = schemas.Some(int64(900)) },
			policy(func(p *Policy) { p.Severity = map[string]Severity{"V009-prompt-count": Error} }), NotComparable, false},
		{"severity lowered by the policy", func(a, b *RunData) { b.Run.RequestRate = schemas.Some(20.0) },
			policy(func(p *Policy) { p.Severity = map[string]Severity{"V002": Warning} }), ComparableWithWarnings, true},
		{"rule disabled by the policy", func(a, b *RunData) { b.Run.RequestRate = schemas.Some(20.0) },
			policy(func(p *Policy) { p.Disable = []string{"V002-arrival"} }), Comparable, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := pair()
			tc.change(a, b)
			rep := mustValidate(t, []*RunData{a, b}, Options{Compare: true, Policy: tc.policy})
			if rep.Verdict != tc.verdict || rep.Pass != tc.pass {
				t.Fatalf("verdict %s pass %v, want %s %v; gate %v; findings %+v", rep.Verdict, rep.Pass, tc.verdict, tc.pass, rep.Gate, rep.Findings)
			}
			if len(rep.Pairs) != 1 || rep.Pairs[0].Verdict != tc.verdict || rep.Pairs[0].Pass != tc.pass {
				t.Errorf("pair %+v", rep.Pairs)
			}
			if tc.pass != (len(rep.Gate) == 0) {
				t.Errorf("gate reasons %q with pass %v", rep.Gate, tc.pass)
			}
		})
	}
}

func TestBundleVerdicts(t *testing.T) {
	good, _ := pair()
	bad := goodRun("run-c", "c.bundle", "NVIDIA H100")
	bad.Run.Completed, bad.Run.Failed = schemas.Some(int64(0)), schemas.Some(int64(700))
	partial := goodRun("run-d", "d.bundle", "NVIDIA H100")
	partial.Run.SUT.Driver = ""
	rep := mustValidate(t, []*RunData{good, bad, partial}, Options{})
	want := map[string]Verdict{"a.bundle": Valid, "c.bundle": Invalid, "d.bundle": Incomplete}
	for _, b := range rep.Bundles {
		if b.Verdict != want[b.Path] || b.Pass != (b.Verdict == Valid) {
			t.Errorf("%s: %s pass %v, want %s", b.Path, b.Verdict, b.Pass, want[b.Path])
		}
	}
	if rep.Verdict != Invalid || rep.Pass || rep.Mode != ModeBundles {
		t.Errorf("overall %s pass %v mode %s", rep.Verdict, rep.Pass, rep.Mode)
	}
	for _, r := range rep.Runs {
		if r.Verdict != want[r.Bundle] {
			t.Errorf("run %s: %s", r.Name, r.Verdict)
		}
	}
	// Pair rules do not run without --compare.
	for _, r := range rep.Rules {
		if r.Scope == ScopePair {
			t.Errorf("pair rule %s ran without Compare", r.ID)
		}
	}
	if rep.Counts.Findings != len(rep.Findings) || rep.Counts.Checks != len(rep.Checks) || rep.Counts.Errors != 2 || rep.Counts.Unverified != 1 || rep.Counts.FailingGate != 2 {
		t.Errorf("counts %+v", rep.Counts)
	}
}

func TestPairingAndGroups(t *testing.T) {
	mk := func(id, bundle, platform string, rate float64) *RunData {
		d := goodRun(id, bundle, "NVIDIA H100")
		d.Run.RequestRate = schemas.Some(rate)
		d.Run.Labels = map[string]string{"platform": platform}
		return d
	}
	// Two platforms swept over 10 and 30 req/s, listed in different
	// orders, plus a third rate only on one side.
	a10, a30, a50 := mk("a10", "all.bundle", "h100", 10), mk("a30", "all.bundle", "h100", 30), mk("a50", "all.bundle", "h100", 50)
	b30, b10 := mk("b30", "all.bundle", "mi300", 30), mk("b10", "all.bundle", "mi300", 10)
	for _, d := range []*RunData{b30, b10} {
		d.Run.SUT.GPUModel = "AMD MI300X"
	}
	rep := mustValidate(t, []*RunData{a10, a30, a50, b30, b10}, Options{Compare: true, GroupBy: "label:platform"})
	var got []string
	for _, p := range rep.Pairs {
		got = append(got, p.A+"~"+p.B)
	}
	if want := []string{"a10~b10", "a30~b30"}; !slices.Equal(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
	if len(rep.Unpaired) != 1 || rep.Unpaired[0].Run != "a50" || rep.Unpaired[0].Group != "platform=h100" {
		t.Errorf("unpaired %+v", rep.Unpaired)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Name != "platform=h100" || rep.Groups[1].Name != "platform=mi300" {
		t.Errorf("groups %+v", rep.Groups)
	}
	// Every run records a cold cache, so the repeated runs of a group
	// raise no prefix-cache warning, and all else is equal.
	if rep.Verdict != Comparable {
		t.Errorf("verdict %s: %+v", rep.Verdict, rep.Findings)
	}

	// The same runs grouped by run compare every pair.
	rep = mustValidate(t, []*RunData{a10, a30, b10}, Options{Compare: true, GroupBy: "run"})
	if len(rep.Pairs) != 3 {
		t.Errorf("group by run: %d pairs", len(rep.Pairs))
	}

	// A changed GPU inside one label group is V011.
	b10.Run.Labels["platform"] = "h100"
	rep = mustValidate(t, []*RunData{a10, b10, b30}, Options{Compare: true, GroupBy: "label:platform"})
	found := false
	for _, f := range rep.Findings {
		if f.Rule == "V011-sut-changed" && f.Group == "platform=h100" && slices.Equal(f.Runs, []string{"a10", "b10"}) {
			found = true
		}
	}
	if !found || rep.Verdict != NotComparable {
		t.Errorf("V011 not reported: %s %+v", rep.Verdict, rep.Findings)
	}
}

func TestDuplicateRunIDs(t *testing.T) {
	a := goodRun("same", "x/a.bundle", "NVIDIA H100")
	b := goodRun("same", "y/b.bundle", "AMD MI300X")
	rep := mustValidate(t, []*RunData{a, b}, Options{Compare: true})
	if rep.Runs[0].Name != "a.bundle/same" || rep.Runs[1].Name != "b.bundle/same" || rep.Pairs[0].A != "a.bundle/same" {
		t.Errorf("names %+v pairs %+v", rep.Runs, rep.Pairs)
	}
}

func TestOptionErrors(t *testing.T) {
	a, b := pair()
	for _, tc := range []struct {
		opts Options
		runs []*RunData
		want string
	}{
		{Options{Rules: []string{"V999"}}, []*RunData{a}, `unknown rule "V999"`},
		{Options{Disable: []string{"nope"}}, []*RunData{a}, `unknown rule "nope"`},
		{Options{GroupBy: "colour"}, []*RunData{a}, `unknown --group-by "colour"`},
		{Options{GroupBy: "sut:colour"}, []*RunData{a}, `unknown inventory field "colour"`},
		{Options{Compare: true}, []*RunData{a}, "comparing needs at least two groups"},
		{Options{Compare: true, GroupBy: "tool"}, []*RunData{a, b}, "comparing needs at least two groups"},
		{Options{}, nil, "no runs"},
		{Options{Rules: []string{"V001"}, Disable: []string{"V001-scenario"}}, []*RunData{a}, "no rule left"},
		{Options{Policy: &Policy{}}, []*RunData{a}, "policy: thresholds"},
	} {
		_, err := Validate(tc.runs, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}

func TestCatalogue(t *testing.T) {
	id := regexp.MustCompile(`^V\d{3}-[a-z][a-z-]*[a-z]$`)
	rules := Catalogue()
	for i, r := range rules {
		if !id.MatchString(r.ID) || r.Title == "" || len(r.Rationale) < 80 || r.check == nil {
			t.Errorf("rule %+v incomplete", r)
		}
		if i > 0 && rules[i-1].ID >= r.ID {
			t.Errorf("rules out of order at %s", r.ID)
		}
		if r.Severity != Error && r.Severity != Warning && r.Severity != Info {
			t.Errorf("%s: severity %q", r.ID, r.Severity)
		}
		if r.Scope != ScopeRun && r.Scope != ScopeGroup && r.Scope != ScopePair {
			t.Errorf("%s: scope %q", r.ID, r.Scope)
		}
		if got, ok := FindRule(strings.ToLower(r.ID[:4])); !ok || got.ID != r.ID {
			t.Errorf("FindRule(%s) = %v", r.ID[:4], got.ID)
		}
	}
	// The list, by name.
	for _, want := range []string{"scenario", "arrival", "metric-definition", "percentile-method", "window", "dataset",
		"length-distribution", "prompt-count", "sut-changed", "prefix-cache", "chunking", "not-streaming", "warmup",
		"failures", "sample-size", "unverified", "unmaintained-tool"} {
		if !slices.ContainsFunc(rules, func(r Rule) bool { return strings.HasSuffix(r.ID, "-"+want) }) {
			t.Errorf("no rule for %s", want)
		}
	}
	rules[0].ID = "changed"
	if Catalogue()[0].ID == "changed" {
		t.Error("Catalogue returns shared memory")
	}
}

func TestFamilies(t *testing.T) {
	for id, want := range map[string]string{
		"ttft": "TTFT", "ttft_answer": "TTFT", "ttft_scheduled": "TTFT", "ttft_scheduled_early_stopping": "TTFT",
		"itl_chunk": "ITL/TPOT", "itl_chunk_per_token": "ITL/TPOT", "tpot": "ITL/TPOT", "tpot_answer": "ITL/TPOT",
		"tpot_incl_ttft": "ITL/TPOT", "tpot_loadgen": "ITL/TPOT", "decode_time_per_output_token": "ITL/TPOT",
		"e2e": "E2E latency", "e2e_incl_client_queue": "E2E latency", "http_response_time": "E2E latency",
		"e2e_output_token_rate": "per-request output rate", "request_output_chunk_rate": "per-request output rate",
		"output_tokens": "output length", "answer_tokens": "output length", "output_tokens_usage_diff": "token usage discrepancy",
		"request_throughput_span_all": "request throughput", "offline_request_throughput": "request throughput",
		"output_token_throughput_span_answer": "output token throughput", "input_token_throughput": "input token throughput",
		"rtfx": "rtfx", "goodput_span": "goodput",
	} {
		if got := familyOf(schemas.MetricID(id)); got != want {
			t.Errorf("familyOf(%s) = %q, want %q", id, got, want)
		}
	}
	for flag, want := range map[string]string{
		"itl_includes_ttft": "ITL/TPOT", "e2el_mean_median_may_be_swapped": "E2E latency", "no_successful_requests": "",
		"tpot_something_new": "ITL/TPOT", "streaming_inferred": "",
	} {
		if got := flagFamily(flag); got != want {
			t.Errorf("flagFamily(%s) = %q, want %q", flag, got, want)
		}
	}
	// Every flag of the table names a family or none, and every
	// definition of the registry gets a family without a panic.
	for f, k := range knownFlags {
		if k.family != "" {
			if _, ok := schemas.Lookup(schemas.MetricID(k.family)); !ok {
				t.Errorf("flag %s: family ID %s not in the registry", f, k.family)
			}
		}
	}
	for _, d := range schemas.Registry() {
		if familyOf(d.ID) == "" {
			t.Errorf("%s has no family", d.ID)
		}
	}
}

func TestPolicy(t *testing.T) {
	p, err := ParsePolicy("p.yaml", []byte(`
thresholds:
  max_failed_fraction: 0.05
  saturation_moe: 1.5
  steady_min_requests: 200
required_inventory: [model, gpu_model]
fail_on_warnings: [V012-prefix-cache, V009]
allow_incomplete: true
severity: {V010-boundary: error}
disable: [V019]
`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Thresholds.MaxFailedFraction != 0.05 || p.Thresholds.KSAlpha != DefaultPolicy.Thresholds.KSAlpha ||
		p.Thresholds.SaturationMOE != 1.5 || p.Thresholds.SteadyMinRequests != 200 || p.Thresholds.TransientTolerance != 0.05 ||
		!slices.Equal(p.RequiredInventory, []string{"model", "gpu_model"}) || !p.AllowIncomplete || p.Severity["V010-boundary"] != Error {
		t.Errorf("policy %+v", p)
	}
	r, _ := FindRule("V012")
	if !p.failsOnWarning(&r) {
		t.Error("V012 warnings should fail the gate")
	}
	if DefaultPolicy.Thresholds.MaxFailedFraction != 0.01 || len(DefaultPolicy.RequiredInventory) != 8 {
		t.Error("ParsePolicy changed DefaultPolicy")
	}
	for _, tc := range []struct{ yaml, want string }{
		{"thresholds:\n  max_failed: 1\n", `unknown field "max_failed"`},
		{"colour: blue\n", `unknown field "colour"`},
		{"thresholds:\n  ks_alpha: 2\n", "thresholds.ks_alpha must be in [0, 1]"},
		{"thresholds:\n  saturation_min_rise: -1\n", "thresholds.saturation_min_rise must be in"},
		{"thresholds:\n  steady_min_requests: 3\n", "thresholds.steady_min_requests must be at least 10"},
		{"required_inventory: [gpu]\n", `unknown inventory field "gpu"`},
		{"fail_on_warnings: [V999]\n", `fail_on_warnings: unknown rule "V999"`},
		{"severity: {V001: fatal}\n", `"fatal" is not error, warning or info`},
		{"disable: [V1]\n", `disable: unknown rule "V1"`},
		{"\n", "empty policy file"},
		{"allow_incomplete: true\nallow_incomplete: false\n", "already defined"},
		{"other: !t 0\na:", `p.yaml:1:1: unknown field "other"`},
		{"disable: " + strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "p.yaml:1:1009: nesting deeper than 1000 levels"},
	} {
		_, err := ParsePolicy("p.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
	if _, err := LoadPolicy(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("missing policy file read")
	}
}

func TestPolicyRequiredInventory(t *testing.T) {
	a, _ := pair()
	a.Run.SUT.Driver, a.Run.SUT.Dataset, a.Run.SUT.DatasetSHA256 = "", "", ""
	p := DefaultPolicy.clone()
	p.RequiredInventory = []string{"model", "gpu_model"}
	rep := mustValidate(t, []*RunData{a}, Options{Rules: []string{"V018"}, Policy: &p})
	if len(rep.Findings) != 0 {
		t.Errorf("findings %+v", rep.Findings)
	}
	rep = mustValidate(t, []*RunData{a}, Options{Rules: []string{"V018"}})
	if len(rep.Findings) != 1 || !slices.Equal(rep.Findings[0].Fields, []string{"sut.driver", "sut.dataset"}) {
		t.Errorf("findings %+v", rep.Findings)
	}
}

// TestLoadBundle writes a bundle with schemas.CreateBundle and reads the
// request summary back.
func TestLoadBundle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.bundle")
	w, err := schemas.CreateBundle(dir, schemas.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := goodRun("run-x", dir, "NVIDIA H100")
	w.AddRun(d.Run)
	for _, m := range d.Metrics {
		w.AddMetric(m)
	}
	reqs := goodRequests("run-x", 50)
	reqs[0].Phase = schemas.PhaseWarmup
	reqs[1].Status, reqs[1].Error = schemas.StatusError, ""
	reqs[2].ChunkGapsS = []float64{} // one chunk
	for i := range reqs {
		if err := w.AddRequest(&reqs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(schemas.Manifest{}); err != nil {
		t.Fatal(err)
	}
	runs, err := LoadBundle(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Bundle != dir || len(runs[0].Metrics) != len(d.Metrics) {
		t.Fatalf("runs %+v", runs)
	}
	rs := runs[0].Requests
	want := SummariseRequests(goodRequests("run-x", 50)[3:])
	if rs.Rows != 50 || rs.Warmup != 1 || rs.Failed != 1 || rs.FailedNoError != 1 || rs.OK != 48 || rs.OneChunk != 1 ||
		rs.WithGaps != 48 || len(rs.InputTokens) != 49 || len(rs.OutputTokens) != 48 || rs.FirstIndex != 2 || rs.LatencyMetric != "ttft" {
		t.Errorf("stats %+v", rs)
	}
	if rs.GapTokens-want.GapTokens != reqs[2].OutputTokens.V || rs.GapChunks-want.GapChunks != 1 {
		t.Errorf("gap tokens %d chunks %d", rs.GapTokens, rs.GapChunks)
	}
	if _, err := ValidateBundles(context.Background(), []string{filepath.Join(t.TempDir(), "none")}, Options{}); err == nil {
		t.Error("a missing bundle validated")
	}
}

func TestReportJSON(t *testing.T) {
	a, b := pair()
	b.Run.Scenario = schemas.ScenarioOffline
	rep := mustValidate(t, []*RunData{a, b}, Options{Compare: true})
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "mode", "verdict", "pass", "gate", "group_by", "policy", "rules", "bundles", "runs",
		"groups", "pairs", "checks", "findings", "counts"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("report JSON lacks %q", k)
		}
	}
	if doc["schema"] != "verdict.validate/v1" || doc["verdict"] != "not_comparable" {
		t.Errorf("schema %v verdict %v", doc["schema"], doc["verdict"])
	}
	f := doc["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"rule", "severity", "unverified", "effect", "fails_gate", "scope", "subject", "runs", "fields", "values", "message"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding JSON lacks %q: %v", k, f)
		}
	}
}
