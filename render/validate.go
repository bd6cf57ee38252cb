package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/validate"
)

// WriteValidate writes the report of `verdict validate` in format f: JSON
// is the versioned report document (validate.ReportSchema); the other
// formats render ValidateTables.
func WriteValidate(w io.Writer, f Format, r *validate.Report) error {
	if f == JSON {
		return WriteJSON(w, r)
	}
	return Write(w, f, ValidateTables(r))
}

// gateText says whether the gate passed.
func gateText(pass bool) string {
	if pass {
		return "passed"
	}
	return "FAILED"
}

// ValidateTables builds the tables of `verdict validate`: the verdict with
// the gate, the findings with their evidence (messages numbered in the
// notes), the groups compared, and a per-rule summary of the checks.
func ValidateTables(r *validate.Report) []*Table {
	var out []*Table

	head := &Table{Title: fmt.Sprintf("Verdict: %s (gate %s)", r.Verdict.Text(), gateText(r.Pass))}
	if r.Mode == validate.ModeCompare {
		head.Columns = []string{"comparison", "groups", "verdict", "gate"}
		for _, p := range r.Pairs {
			head.AddRow(T(SafeText(p.A)+" vs "+SafeText(p.B)), T(SafeText(p.Groups[0])+" vs "+SafeText(p.Groups[1])),
				Cell{Text: p.Verdict.Text(), Value: string(p.Verdict)}, Cell{Text: gateText(p.Pass), Value: p.Pass})
		}
	} else {
		head.Columns = []string{"bundle", "runs", "verdict", "gate"}
		for _, b := range r.Bundles {
			head.AddRow(T(SafeText(orUnknown(b.Path))), N(strconv.Itoa(len(b.Runs)), len(b.Runs)),
				Cell{Text: b.Verdict.Text(), Value: string(b.Verdict)}, Cell{Text: gateText(b.Pass), Value: b.Pass})
		}
	}
	for _, g := range r.Gate {
		head.Notes = append(head.Notes, "gate failed: "+g)
	}
	for _, u := range r.Unpaired {
		head.Notes = append(head.Notes, fmt.Sprintf("not compared: %s (%s) with %s: %s", u.Run, u.Group, u.OtherGroup, u.Reason))
	}
	c := r.Counts
	head.Notes = append(head.Notes, fmt.Sprintf("%d checks: %d passed, %d skipped as not applicable; %d findings: %d errors, %d warnings, %d info, %d unverified, %d failing the gate.",
		c.Checks, c.Passed, c.Skipped, c.Findings, c.Errors, c.Warnings, c.Infos, c.Unverified, c.FailingGate))
	out = append(out, head)

	fs := &Table{Title: "Findings", Columns: []string{"#", "rule", "severity", "effect", "gate", "subject", "evidence"}}
	for i, f := range r.Findings {
		sev := string(f.Severity)
		if f.Unverified {
			sev += " (unverified)"
		}
		gate := ""
		if f.FailsGate {
			gate = "fails"
		}
		fs.AddRow(N(strconv.Itoa(i+1), i+1), T(f.Rule), Cell{Text: sev, Value: string(f.Severity)}, T(string(f.Effect)), T(gate),
			T(SafeText(f.Subject)), T(SafeText(evidence(f))))
		fs.Notes = append(fs.Notes, fmt.Sprintf("[%d] %s: %s", i+1, f.Rule, f.Message))
	}
	if len(r.Findings) == 0 {
		fs.Notes = append(fs.Notes, "No findings.")
	}
	out = append(out, fs)

	if r.Mode == validate.ModeBundles && len(r.Runs) > len(r.Bundles) {
		rt := &Table{Title: "Runs", Columns: []string{"run", "bundle", "tool", "scenario", "verdict"}}
		for _, ru := range r.Runs {
			rt.AddRow(T(SafeText(ru.Name)), T(SafeText(orUnknown(ru.Bundle))), T(SafeText(ru.Tool)), T(ru.Scenario),
				Cell{Text: ru.Verdict.Text(), Value: string(ru.Verdict)})
		}
		out = append(out, rt)
	}
	if r.Mode == validate.ModeCompare {
		gt := &Table{Title: "Groups (--group-by " + r.GroupBy + ")", Columns: []string{"group", "runs"}}
		for _, g := range r.Groups {
			gt.AddRow(T(SafeText(g.Name)), T(SafeText(strings.Join(g.Runs, ", "))))
		}
		out = append(out, gt)
	}

	type tally struct{ checked, passed, findings, skipped int }
	counts := map[string]*tally{}
	for _, ch := range r.Checks {
		t := counts[ch.Rule]
		if t == nil {
			t = &tally{}
			counts[ch.Rule] = t
		}
		switch ch.Status {
		case validate.StatusSkip:
			t.skipped++
		case validate.StatusPass:
			t.checked++
			t.passed++
		default:
			t.checked++
		}
	}
	for _, f := range r.Findings {
		if t := counts[f.Rule]; t != nil {
			t.findings++
		}
	}
	rt := &Table{Title: "Rules", Columns: []string{"rule", "severity", "scope", "checked", "passed", "findings", "not applicable", "title"}}
	for _, ru := range r.Rules {
		t := counts[ru.ID]
		if t == nil {
			t = &tally{}
		}
		rt.AddRow(T(ru.ID), T(string(ru.Severity)), T(string(ru.Scope)), N(strconv.Itoa(t.checked), t.checked), N(strconv.Itoa(t.passed), t.passed),
			N(strconv.Itoa(t.findings), t.findings), N(strconv.Itoa(t.skipped), t.skipped), T(ru.Title))
	}
	rt.Notes = []string{"`verdict rules` explains every rule; --format json gives each check with its notes and skip reason."}
	out = append(out, rt)
	return out
}

// evidence summarises a finding's metric, fields and values.
func evidence(f validate.Finding) string {
	var parts []string
	if f.Metric != "" {
		parts = append(parts, f.Metric)
	}
	if len(f.Fields) > 0 {
		parts = append(parts, strings.Join(f.Fields, ", "))
	}
	switch {
	case len(f.Values) > 0 && len(f.Values) == len(f.Runs) && len(f.Runs) > 1:
		vs := make([]string, len(f.Values))
		for i, v := range f.Values {
			vs[i] = f.Runs[i] + " = " + v
		}
		parts = append(parts, strings.Join(vs, "; "))
	case len(f.Values) > 0:
		parts = append(parts, strings.Join(f.Values, ", "))
	}
	if f.Test != nil {
		parts = append(parts, fmt.Sprintf("%s D=%s p=%s", f.Test.Name, Sig(f.Test.Statistic, 4), Sig(f.Test.P, 4)))
	}
	return strings.Join(parts, ": ")
}

// RulesTables describe the rule catalogue: one table of IDs, severities,
// scopes and titles, with every rule's rationale in the notes.
func RulesTables(rules []validate.Rule) []*Table {
	t := &Table{Title: "Validation rules", Columns: []string{"rule", "severity", "scope", "title"}}
	for _, r := range rules {
		t.AddRow(T(r.ID), T(string(r.Severity)), T(string(r.Scope)), T(r.Title))
	}
	for _, r := range rules {
		t.Notes = append(t.Notes, r.ID+": "+r.Rationale)
	}
	t.Notes = append(t.Notes, "Severity error: invalid or not comparable (incomplete when the finding is unverified); warning: shown, passes the gate unless the policy's fail_on_warnings lists the rule; info: never fails.",
		"Scope run: each run; group: the runs grouped as one configuration (--group-by); pair: two runs compared (--compare).")
	return []*Table{t}
}

// WriteRules writes the rule catalogue in format f (JSON: the rules with
// their rationales; CSV: one row per rule).
// RulesSchema is the "schema" value of `verdict rules --format json`.
const RulesSchema = "verdict.rules/v1"

// WriteRules writes the rule catalogue; JSON is the verdict.rules/v1
// document.
func WriteRules(w io.Writer, f Format) error {
	rules := validate.Catalogue()
	switch f {
	case JSON:
		return WriteJSON(w, struct {
			Schema string          `json:"schema"`
			Rules  []validate.Rule `json:"rules"`
		}{RulesSchema, rules})
	case CSV:
		t := &Table{Columns: []string{"id", "severity", "scope", "title", "rationale"}}
		for _, r := range rules {
			t.AddRow(T(r.ID), T(string(r.Severity)), T(string(r.Scope)), T(r.Title), T(r.Rationale))
		}
		return Write(w, CSV, []*Table{t})
	}
	return Write(w, f, RulesTables(rules))
}
