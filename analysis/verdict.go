package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// The verdict on top is the answer a reader of any report output came
// for, before any figure: per compared pair, in plain words, whether the
// two runs may be compared (comparable, comparable with warnings,
// incomplete, not comparable), the reasons in one line each, and what to
// supply to complete the evidence. Every renderer formats this one model
// (Report.Verdict) first: the first table of `verdict report`, the top of
// the Markdown, the first screen of the HTML report and the first sheet of
// the workbook.
//
// The verdict is validation's (validate decides comparability; the report
// only words it); the report adds what it found missing itself (per-request
// data, the inventory, costs) under Supply. Runs are never ranked: a pair
// is old (A, the earlier bundle) against new (B), and its differences are
// shown only when the pair is comparable, with their intervals and the
// test behind each row (CompareMetric, CompareMean: the numbers `verdict
// compare` gives for the same options and seed).

// Verdict words of VerdictEntry.Verdict (validate.Verdict's values).
const (
	VerdictComparable             = "comparable"
	VerdictComparableWithWarnings = "comparable_with_warnings"
	VerdictIncomplete             = "incomplete"
	VerdictNotComparable          = "not_comparable"
	VerdictValid                  = "valid"
	VerdictInvalid                = "invalid"
	// VerdictUnavailable: validation was not run or failed.
	VerdictUnavailable = "unavailable"
)

// ReportVerdict is the verdict on top of a report.
type ReportVerdict struct {
	// Available is false when validation was not available; Headline then
	// says why and how to get it.
	Available bool
	// Headline is one sentence for the whole report, e.g. "1 pair
	// compared: a vs b is comparable with warnings."
	Headline string
	// Entries are the compared pairs in validation's order; with one
	// bundle (nothing compared), each run's own verdict.
	Entries []VerdictEntry
	// NotCompared lists the runs that had no counterpart, with why.
	NotCompared []string
}

// A VerdictEntry is the verdict of one pair (Pair set: A is the old run,
// B the new) or, when nothing was compared, of one run (A only).
type VerdictEntry struct {
	Pair bool
	A, B VerdictRun
	// Subject is "A vs B" (display names) or the run's name.
	Subject string
	// Verdict is one of the Verdict* words; Text says it in words
	// ("comparable with warnings"); Pass is validation's gate.
	Verdict string
	Text    string
	Pass    bool
	// Reasons are one line each, worst first.
	Reasons []VerdictReason
	// Supply says what to give verdict to complete the evidence, one
	// item a line; empty when nothing is missing.
	Supply []string
	// Differences are B against A, metric by metric, only for a pair that
	// is comparable (with or without warnings) and has per-request data
	// on both sides; DifferencesNote says why there are none otherwise.
	Differences     []ComparisonRow
	DifferencesNote string

	// aName and bName are the validator's names of A and B.
	aName, bName string
}

// Comparable reports whether the entry's numbers may be set side by side.
func (e VerdictEntry) Comparable() bool {
	return e.Verdict == VerdictComparable || e.Verdict == VerdictComparableWithWarnings
}

// VerdictRun names a run of the report: its display name, run ID,
// bundle, and its index in Report.Runs (-1 when the report does not hold
// it).
type VerdictRun struct {
	Name, RunID, Bundle string
	Index               int
}

// A VerdictReason is one line of why: the effect it has ("not_comparable",
// "invalid", "incomplete", "warning" or, for what the report itself found
// missing, "report"), the rule behind it and the sentence.
type VerdictReason struct {
	Effect, Rule, Text string
}

// Line is the reason as one line: "warning (V010-boundary): ...".
func (r VerdictReason) Line() string {
	if r.Rule == "" {
		return r.Effect + ": " + r.Text
	}
	return r.Effect + " (" + r.Rule + "): " + r.Text
}

// VerdictWords turns a verdict word into plain words.
func VerdictWords(v string) string {
	switch v {
	case VerdictComparableWithWarnings:
		return "comparable with warnings"
	case VerdictNotComparable:
		return "not comparable"
	case VerdictUnavailable:
		return "validation not available"
	}
	return v
}

// buildVerdict computes Report.Verdict from the validation and the runs.
func (rep *Report) buildVerdict(o ReportOptions) ReportVerdict {
	v := rep.Validation
	if v == nil {
		rv := ReportVerdict{Headline: rep.ValidationText() + "."}
		for i, r := range rep.Runs {
			e := VerdictEntry{A: VerdictRun{Name: r.Name, RunID: r.Run.ID, Bundle: r.Bundle, Index: i}, Subject: r.Name,
				Verdict: VerdictUnavailable, Text: VerdictWords(VerdictUnavailable)}
			e.Supply = []string{"run `verdict validate` on the bundles (or leave out --no-validate)"}
			rep.addReportGaps(&e)
			rv.Entries = append(rv.Entries, e)
		}
		return rv
	}
	rv := ReportVerdict{Available: true, NotCompared: v.NotCompared}
	for _, p := range v.Pairs {
		a, b := rep.verdictRun(p.A), rep.verdictRun(p.B)
		e := VerdictEntry{Pair: true, A: a, B: b, Subject: a.Name + " vs " + b.Name, Verdict: p.Verdict, Text: VerdictWords(p.Verdict), Pass: p.Pass,
			aName: p.A.Name, bName: p.B.Name}
		for _, f := range v.Findings {
			if f.Subject == "pair "+p.A.Name+" vs "+p.B.Name || (!strings.HasPrefix(f.Subject, "pair ") && (slices.Contains(f.Runs, p.A.Name) || slices.Contains(f.Runs, p.B.Name))) {
				e.addFinding(f)
			}
		}
		rep.addReportGaps(&e)
		rep.addDifferences(&e, o)
		rv.Entries = append(rv.Entries, e)
	}
	if len(v.Pairs) == 0 {
		for _, rr := range v.Runs {
			a := rep.verdictRun(rr)
			e := VerdictEntry{A: a, Subject: a.Name, Verdict: rr.Verdict, Text: VerdictWords(rr.Verdict), Pass: v.Pass}
			for _, f := range v.Findings {
				if slices.Contains(f.Runs, rr.Name) {
					e.addFinding(f)
				}
			}
			rep.addReportGaps(&e)
			rv.Entries = append(rv.Entries, e)
		}
	}
	for i := range rv.Entries {
		sortReasons(rv.Entries[i].Reasons)
	}
	rv.Headline = headline(rv, v)
	return rv
}

func headline(rv ReportVerdict, v *ReportValidation) string {
	var pairs []VerdictEntry
	for _, e := range rv.Entries {
		if e.Pair {
			pairs = append(pairs, e)
		}
	}
	gate := "the validation gate passed"
	if !v.Pass {
		gate = "the validation gate failed"
	}
	switch {
	case len(pairs) == 1:
		return fmt.Sprintf("%s is %s (%s).", pairs[0].Subject, pairs[0].Text, gate)
	case len(pairs) > 1:
		count := map[string]int{}
		for _, e := range pairs {
			count[e.Text]++
		}
		var parts []string
		for _, w := range []string{VerdictComparable, VerdictComparableWithWarnings, VerdictIncomplete, VerdictNotComparable} {
			if n := count[VerdictWords(w)]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, VerdictWords(w)))
			}
		}
		return fmt.Sprintf("%d pairs compared: %s (%s).", len(pairs), strings.Join(parts, ", "), gate)
	}
	return fmt.Sprintf("Nothing compared (one configuration): each run's own verdict is %s (%s).", VerdictWords(v.Verdict), gate)
}

// verdictRun finds a validated run among the report's runs.
func (rep *Report) verdictRun(rv ReportRunVerdict) VerdictRun {
	for i, r := range rep.Runs {
		if r.Bundle == rv.Bundle && r.Run.ID == rv.RunID {
			return VerdictRun{Name: r.Name, RunID: r.Run.ID, Bundle: r.Bundle, Index: i}
		}
	}
	name := rv.Name
	if name == "" {
		name = rv.RunID
	}
	return VerdictRun{Name: name, RunID: rv.RunID, Bundle: rv.Bundle, Index: -1}
}

// addFinding adds a finding that moves a verdict (info changes none) as a
// reason, and, when its evidence is missing, what to supply.
func (e *VerdictEntry) addFinding(f ReportFinding) {
	if f.Effect == "info" || f.Effect == "" {
		return
	}
	msg := strings.Join(strings.Fields(f.Message), " ") // one line
	if e.Pair && !strings.HasPrefix(f.Subject, "pair ") {
		// A run's own finding: name the run as the report names it.
		for _, side := range []struct {
			vr   VerdictRun
			name string
		}{{e.A, e.aName}, {e.B, e.bName}} {
			if slices.Contains(f.Runs, side.name) {
				msg = side.vr.Name + ": " + msg
				break
			}
		}
	}
	r := VerdictReason{Effect: f.Effect, Rule: f.Rule, Text: msg}
	if !slices.Contains(e.Reasons, r) {
		e.Reasons = append(e.Reasons, r)
	}
	if f.Effect == VerdictIncomplete || f.Unverified {
		if s := supplyFor(f); s != "" && !slices.Contains(e.Supply, s) {
			e.Supply = append(e.Supply, s)
		}
	}
}

// addReportGaps adds what the report itself found missing for its runs
// (ReportRun.Incomplete) as reasons with what to supply.
func (rep *Report) addReportGaps(e *VerdictEntry) {
	for _, vr := range []VerdictRun{e.A, e.B} {
		if vr.Index < 0 || (vr == VerdictRun{}) {
			continue
		}
		r := rep.Runs[vr.Index]
		for _, gap := range r.Incomplete {
			if strings.HasPrefix(gap, "validation verdict ") {
				continue // the verdict itself says so
			}
			e.Reasons = append(e.Reasons, VerdictReason{Effect: "report", Text: r.Name + ": " + gap})
			if s := supplyForGap(gap); s != "" && !slices.Contains(e.Supply, s) {
				e.Supply = append(e.Supply, s)
			}
		}
	}
}

func supplyForGap(gap string) string {
	switch {
	case strings.HasPrefix(gap, "no per-request data"):
		return "per-request data: the tool's per-request file (vLLM --save-detailed, GenAI-Perf's profile_export.json, AIPerf's records, ...) given to `verdict ingest`"
	case strings.HasPrefix(gap, "system under test unknown"):
		return "the system under test: a --sut inventory file with gpu.model and model.name at `verdict ingest`"
	case strings.HasPrefix(gap, "cost unknown"):
		return "costs: a --quote file, or a --billing export with cloud.resource_ids in the --sut inventory and a timestamped run"
	case strings.Contains(gap, "requested prompts not accounted for"):
		return "the counts of completed and failed requests (the tool's full result file)"
	}
	return ""
}

// supplyFor says what would complete the evidence a finding lacks.
func supplyFor(f ReportFinding) string {
	var sut, other []string
	for _, fld := range f.Fields {
		switch {
		case strings.HasPrefix(fld, "sut.") || fld == "dataset" || fld == "dataset_sha256":
			key := strings.TrimPrefix(fld, "sut.")
			if y, ok := sutYAMLKeys[key]; ok {
				key = y
			}
			if !slices.Contains(sut, key) {
				sut = append(sut, key)
			}
		case fld == "metric_id" || fld == "flags":
			if f.Metric != "" {
				other = append(other, "one definition of "+f.Metric+" on both sides (a tool or file that reports it, or model.reasoning in the --sut inventory)")
			}
		default:
			other = append(other, fld)
		}
	}
	var parts []string
	if len(sut) > 0 {
		parts = append(parts, "in the --sut inventory at `verdict ingest`: "+strings.Join(sut, ", "))
	}
	if len(other) > 0 {
		parts = append(parts, "the runs' "+strings.Join(other, ", ")+" (from the tool's full output, or a --label)")
	}
	if len(parts) == 0 {
		return "the evidence " + f.Rule + " needs: " + strings.Join(strings.Fields(f.Message), " ")
	}
	return f.Rule + ": " + strings.Join(parts, "; ")
}

// sutYAMLKeys are the --sut file's keys (README "The system-under-test
// inventory") of the inventory's JSON field names.
var sutYAMLKeys = map[string]string{
	"model": "model.name", "model_revision": "model.revision", "quantization": "model.quantization", "reasoning": "model.reasoning",
	"engine": "engine.name", "engine_version": "engine.version", "launch_args": "engine.launch_args",
	"gpu_model": "gpu.model", "gpu_count": "gpu.count", "driver": "gpu.driver", "cuda": "gpu.cuda", "parallelism": "gpu.parallelism",
	"dataset": "dataset.name, dataset.sha256", "dataset_sha256": "dataset.name, dataset.sha256", "resource_ids": "cloud.resource_ids",
}

// sortReasons puts the worst first, keeping the validator's order within
// one effect.
func sortReasons(rs []VerdictReason) {
	rank := func(e string) int {
		switch e {
		case VerdictNotComparable, VerdictInvalid:
			return 0
		case VerdictIncomplete:
			return 1
		case "report":
			return 3
		}
		return 2
	}
	slices.SortStableFunc(rs, func(a, b VerdictReason) int { return rank(a.Effect) - rank(b.Effect) })
}

// verdictPercentiles are the statistics the differences show (the HTML
// report switches between them): the mean and these percentiles.
var verdictPercentiles = []float64{50, 90, 99}

// addDifferences compares B with A for a comparable pair, from the runs'
// per-request series, with the report's interval options.
func (rep *Report) addDifferences(e *VerdictEntry, o ReportOptions) {
	switch {
	case !e.Comparable():
		e.DifferencesNote = "no differences are shown: the pair is " + e.Text
		return
	case e.A.Index < 0 || e.B.Index < 0:
		e.DifferencesNote = "no differences are shown: a run of the pair is not in the report"
		return
	}
	a, b := rep.Runs[e.A.Index], rep.Runs[e.B.Index]
	co := CompareOptions{StatsOptions: StatsOptions{EstimateOptions: o.estimateOptions()}}
	var spilled []string
	for _, id := range SeriesMetrics {
		xa, xb := a.Series[id], b.Series[id]
		if len(xa) == 0 || len(xb) == 0 {
			continue
		}
		if a.SeriesN[id] > 0 || b.SeriesN[id] > 0 {
			spilled = append(spilled, string(id))
			continue
		}
		if dependent(co.Interval) {
			xa, xb = a.ordered[id], b.ordered[id]
		}
		e.Differences = append(e.Differences, CompareMean(id, xa, xb, co))
		for _, p := range verdictPercentiles {
			e.Differences = append(e.Differences, CompareMetric(id, xa, xb, p, co))
		}
	}
	var notes []string
	for _, id := range SeriesMetrics {
		if def, ok := schemas.Lookup(id); ok && def.Level == schemas.LevelChunk && len(a.Series[id]) > 0 && len(b.Series[id]) > 0 {
			notes = append(notes, string(id)+": gaps within one request are not independent, so the test's p-value and the intervals are optimistic; tpot is the sounder comparison")
		}
	}
	switch {
	case len(e.Differences) == 0 && len(spilled) == 0:
		e.DifferencesNote = "no differences are shown: the pair has no per-request series on both sides"
	case len(spilled) > 0:
		notes = append(notes, "not compared here (series too large to hold; use `verdict compare`): "+strings.Join(spilled, ", "))
	}
	if e.DifferencesNote == "" {
		e.DifferencesNote = strings.Join(notes, "; ")
	}
}
