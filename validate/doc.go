// Package validate decides whether benchmark results may be trusted and
// whether two runs may be compared at all. Its stance: two numbers are
// compared only under the same scenario, arrival process, workload,
// system-under-test boundary and metric definitions; a result whose evidence
// is missing is reported as incomplete, never as a winner; and nothing
// unknown is guessed.
//
// # Pipeline
//
// validate sits between the bundles and the renderers; the application
// layer (package analysis) opens the bundles and calls it:
//
//	bundles --ReadBundle--> []*RunData (runs, metrics, request summaries)
//	        --Validate----> *Report (checks, findings, verdicts, gate)
//	        --render------> text, Markdown, JSON, JUnit XML
//
// 1. [ReadBundle] reads an open bundle's runs and metric rows and streams
// its request rows once into a [RequestStats] per run (counts, lengths,
// timing evidence), so that memory does not grow with chunk counts.
//
// 2. [Validate] groups the runs into configurations ([Options.GroupBy]: per
// bundle by default, or by a label, the tool, a system-under-test field, or
// one group per run), and with [Options.Compare] pairs the runs of every two
// groups with [PairRuns], verdict's one pairing (compare and report use it
// too): runs with the same load point (scenario, arrival, rate,
// burstiness, concurrency, ramp-up, streaming) pair first, the rest in
// order. Then it
// runs every selected [Rule] of the [Catalogue] on each subject of the
// rule's [Scope]: each run, each group of two or more runs, each pair.
//
// 3. Each check passes, is skipped (the rule does not apply, with the
// reason), or produces [Finding] values. A finding names its evidence: the
// runs, the metric or field, the values on each side, and for a test the
// statistic and p-value.
//
// # Findings, verdicts and the gate
//
// A finding has the [Severity] of its rule (error, warning or info; a
// [Policy] may override it) and may be Unverified: it then reports that
// the evidence needed to decide is missing (an unknown scenario, a
// missing inventory field, an uncertain definition) rather than a proven
// problem. Each finding has an [Effect]:
//
//   - an error that is not unverified makes a bundle invalid and a
//     comparison not comparable;
//   - an unverified error makes it incomplete;
//   - a warning, unverified or not, leaves it valid (comparable with
//     warnings);
//   - info changes nothing.
//
// A verdict is the worst effect over the findings it covers. For a bundle:
// valid, incomplete or invalid. For a comparison: comparable, comparable
// with warnings, incomplete or not comparable; a run that is invalid on its
// own makes every comparison it takes part in not comparable.
//
// The gate (the exit status of `verdict validate`) fails when any finding
// fails it: every error that is not unverified; unverified errors unless
// the policy allows incomplete results; and warnings of the rules the
// policy lists in fail_on_warnings (or all warnings). Info never fails it.
//
// # JSON report (schema "verdict.validate/v1")
//
// A [Report] marshals to the versioned document below. Fields are only
// added within a version; a change of meaning or a removal bumps the
// version in [ReportSchema].
//
//	{
//	  "schema": "verdict.validate/v1",
//	  "mode": "bundles" | "compare",
//	  "verdict": "valid" | "incomplete" | "invalid"                 (bundles)
//	           | "comparable" | "comparable_with_warnings"
//	           | "incomplete" | "not_comparable",                    (compare)
//	  "pass": bool,                       // the gate
//	  "gate": ["why the gate failed", ...],
//	  "group_by": "bundle",
//	  "policy": { effective Policy, see Policy's JSON tags },
//	  "rules": [{"id", "title", "severity", "scope"}],   // rules that ran, effective severity
//	  "bundles": [{"path", "verdict", "pass", "runs": [run names]}],
//	  "runs": [{"name", "run_id", "bundle", "tool", "format", "scenario", "verdict"}],
//	  "groups": [{"name", "runs": [run names]}],
//	  "pairs": [{"a", "b", "groups": [ga, gb], "verdict", "pass"}],       (compare)
//	  "unpaired": [{"run", "group", "other_group", "reason"}],           (compare)
//	  "checks": [{"rule", "scope", "subject", "runs", "group", "status", "reason", "notes"}],
//	  "findings": [{"rule", "severity", "unverified", "effect", "fails_gate",
//	                "scope", "subject", "runs", "group", "metric", "fields", "values",
//	                "test": {"name", "statistic", "p_value", "n"}, "message"}],
//	  "counts": {"checks", "passed", "skipped", "findings", "errors", "warnings", "infos", "unverified", "failing_gate"}
//	}
//
// Run names are run IDs, qualified with the bundle's base name when the
// same ID appears in two bundles. A check's status is "pass", "warn"
// (findings, none failing the gate), "fail" (a finding fails the gate) or
// "skip" (not applicable; reason says why). A check's subject is
// "run NAME", "group NAME" or "pair A vs B"; a finding has its check's
// subject. A finding's values are one per run when it has as many values
// as runs, and otherwise the evidence in the order of its fields (or of
// its metrics). Effects are "invalid", "not_comparable", "incomplete",
// "warning" and "info".
package validate
