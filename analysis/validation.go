package analysis

import "github.com/verdict-llm/verdict/validate"

// ValidationOf turns a validate.Report into what the report shows: the
// overall verdict and gate, each run's verdict and every finding.
func ValidationOf(r *validate.Report) *ReportValidation {
	v := &ReportValidation{Verdict: r.Verdict.Text(), Pass: r.Pass}
	byName := map[string]ReportRunVerdict{}
	for _, rr := range r.Runs {
		rv := ReportRunVerdict{Bundle: rr.Bundle, RunID: rr.RunID, Verdict: rr.Verdict.Text(), Name: rr.Name}
		v.Runs = append(v.Runs, rv)
		byName[rr.Name] = rv
	}
	for _, p := range r.Pairs {
		v.Pairs = append(v.Pairs, ReportPairVerdict{A: byName[p.A], B: byName[p.B], Verdict: string(p.Verdict), Pass: p.Pass})
	}
	for _, f := range r.Findings {
		v.Findings = append(v.Findings, ReportFinding{Severity: string(f.Severity), Unverified: f.Unverified, Effect: string(f.Effect),
			Rule: f.Rule, Subject: f.Subject, Runs: f.Runs, Metric: f.Metric, Fields: f.Fields, Values: f.Values, Message: f.Message})
	}
	for _, g := range r.Gate {
		v.Notes = append(v.Notes, "gate failed: "+g)
	}
	for _, p := range r.Pairs {
		v.Notes = append(v.Notes, "comparison "+p.A+" vs "+p.B+": "+p.Verdict.Text())
	}
	for _, u := range r.Unpaired {
		v.Notes = append(v.Notes, "not compared: "+u.Run+" ("+u.Group+") with "+u.OtherGroup+": "+u.Reason)
		v.NotCompared = append(v.NotCompared, u.Run+" ("+u.Group+") has no counterpart in "+u.OtherGroup+": "+u.Reason)
	}
	return v
}
