package analysis

import "github.com/verdict-llm/verdict/validate"

// ValidationOf turns a validate.Report into what the report shows: the
// overall verdict and gate, each run's verdict and every finding.
func ValidationOf(r *validate.Report) *ReportValidation {
	v := &ReportValidation{Verdict: r.Verdict.Text(), Pass: r.Pass}
	for _, rr := range r.Runs {
		v.Runs = append(v.Runs, ReportRunVerdict{Bundle: rr.Bundle, RunID: rr.RunID, Verdict: rr.Verdict.Text()})
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
	}
	return v
}
