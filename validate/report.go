package validate

// ReportSchema is the "schema" value of the JSON report; see the package
// documentation for the layout.
const ReportSchema = "verdict.validate/v1"

// Severity is how much a rule's finding matters.
type Severity string

const (
	// Error: the result is invalid, or the runs are not comparable (or,
	// when the finding is unverified, the evidence to decide is missing).
	Error Severity = "error"
	// Warning: the numbers may be compared, with a caveat the reader must
	// see.
	Warning Severity = "warning"
	// Info: a fact worth knowing that changes no verdict.
	Info Severity = "info"
)

// Scope says what a rule looks at.
type Scope string

const (
	ScopeRun   Scope = "run"   // each run on its own
	ScopeGroup Scope = "group" // the runs grouped as one configuration
	ScopePair  Scope = "pair"  // two runs from different configurations, compared
)

// Verdict is the outcome for a bundle, a run, a pair or the whole report.
type Verdict string

const (
	Valid      Verdict = "valid"
	Incomplete Verdict = "incomplete"
	Invalid    Verdict = "invalid"

	Comparable             Verdict = "comparable"
	ComparableWithWarnings Verdict = "comparable_with_warnings"
	NotComparable          Verdict = "not_comparable"
)

// Effect is what one finding does to the verdicts that cover it.
type Effect string

const (
	EffectInvalid       Effect = "invalid"        // an error, in a bundle's or run's verdict
	EffectNotComparable Effect = "not_comparable" // an error, in a comparison
	EffectIncomplete    Effect = "incomplete"     // an unverified error
	EffectWarning       Effect = "warning"
	EffectInfo          Effect = "info"
)

// A Finding is one problem a rule found, with its evidence.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Unverified reports that the evidence needed to decide is missing,
	// rather than that a problem was shown.
	Unverified bool   `json:"unverified"`
	Effect     Effect `json:"effect"`
	FailsGate  bool   `json:"fails_gate"`
	Scope      Scope  `json:"scope"`
	// Subject is the check's subject: "run NAME", "group NAME" or
	// "pair A vs B".
	Subject string `json:"subject"`
	// Runs are the run names the evidence comes from. Values are one per
	// run when there are as many values as runs, and otherwise the
	// evidence in the order of Fields (or, for several metrics, of Metric).
	Runs   []string `json:"runs"`
	Group  string   `json:"group,omitempty"`
	Metric string   `json:"metric,omitempty"` // a definition ID or a metric family
	Fields []string `json:"fields,omitempty"` // run, inventory or metric fields concerned
	Values []string `json:"values,omitempty"`
	Test   *Test    `json:"test,omitempty"`
	// Message explains the finding in one or two sentences that name the
	// evidence.
	Message string `json:"message"`

	// severity, when set by a check, replaces the rule's severity for this
	// finding: a rule whose evidence turns an error into an assumption
	// (V004 with reasoning declared absent) or into a reported result
	// (V002 with MLPerf Server QPS) says so with a lower severity.
	severity Severity
}

// A Test is a statistical test behind a finding.
type Test struct {
	Name      string  `json:"name"`
	Statistic float64 `json:"statistic"`
	P         float64 `json:"p_value"`
	N         []int   `json:"n"` // sample sizes, in the order of the finding's runs
}

// A Check is one rule applied to one subject.
type Check struct {
	Rule    string   `json:"rule"`
	Scope   Scope    `json:"scope"`
	Subject string   `json:"subject"`
	Runs    []string `json:"runs"`
	Group   string   `json:"group,omitempty"`
	// Status is "pass", "warn" (findings, none failing the gate), "fail"
	// (a finding fails the gate) or "skip" (the rule does not apply).
	Status string `json:"status"`
	// Reason says why a skipped check did not apply.
	Reason string `json:"reason,omitempty"`
	// Notes record what was checked when it passed, e.g. a test's result.
	Notes []string `json:"notes,omitempty"`
}

// Check statuses.
const (
	StatusPass = "pass"
	StatusWarn = "warn"
	StatusFail = "fail"
	StatusSkip = "skip"
)

// RuleRef is a rule as it ran: with its effective severity.
type RuleRef struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Severity Severity `json:"severity"`
	Scope    Scope    `json:"scope"`
}

// BundleResult is the verdict of one bundle.
type BundleResult struct {
	Path    string   `json:"path"`
	Verdict Verdict  `json:"verdict"`
	Pass    bool     `json:"pass"`
	Runs    []string `json:"runs"`
}

// RunResult is one run and its own verdict (run and group findings that
// name it).
type RunResult struct {
	Name     string  `json:"name"`
	RunID    string  `json:"run_id"`
	Bundle   string  `json:"bundle"`
	Tool     string  `json:"tool"`
	Format   string  `json:"format"`
	Scenario string  `json:"scenario"`
	Verdict  Verdict `json:"verdict"`
}

// GroupResult is one configuration: the runs grouped together.
type GroupResult struct {
	Name string   `json:"name"`
	Runs []string `json:"runs"`
}

// PairResult is one comparison of two runs from different groups.
type PairResult struct {
	A       string    `json:"a"`
	B       string    `json:"b"`
	Groups  [2]string `json:"groups"`
	Verdict Verdict   `json:"verdict"`
	Pass    bool      `json:"pass"`
}

// Unpaired is a run that had no counterpart in another group.
type Unpaired struct {
	Run        string `json:"run"`
	Group      string `json:"group"`
	OtherGroup string `json:"other_group"`
	Reason     string `json:"reason"`
}

// Counts sum up a report.
type Counts struct {
	Checks      int `json:"checks"`
	Passed      int `json:"passed"`
	Skipped     int `json:"skipped"`
	Findings    int `json:"findings"`
	Errors      int `json:"errors"`
	Warnings    int `json:"warnings"`
	Infos       int `json:"infos"`
	Unverified  int `json:"unverified"`
	FailingGate int `json:"failing_gate"`
}

// A Report is the outcome of Validate. Its JSON form is the versioned
// document described in the package documentation.
type Report struct {
	Schema   string         `json:"schema"`
	Mode     string         `json:"mode"` // "bundles" or "compare"
	Verdict  Verdict        `json:"verdict"`
	Pass     bool           `json:"pass"`
	Gate     []string       `json:"gate"` // why the gate failed; empty when it passed
	GroupBy  string         `json:"group_by"`
	Policy   Policy         `json:"policy"`
	Rules    []RuleRef      `json:"rules"`
	Bundles  []BundleResult `json:"bundles"`
	Runs     []RunResult    `json:"runs"`
	Groups   []GroupResult  `json:"groups"`
	Pairs    []PairResult   `json:"pairs,omitempty"`
	Unpaired []Unpaired     `json:"unpaired,omitempty"`
	Checks   []Check        `json:"checks"`
	Findings []Finding      `json:"findings"`
	Counts   Counts         `json:"counts"`
}

// Modes of a report.
const (
	ModeBundles = "bundles"
	ModeCompare = "compare"
)

// FindingsOf returns the findings of one check (same rule and subject).
func (r *Report) FindingsOf(c Check) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Rule == c.Rule && f.Subject == c.Subject {
			out = append(out, f)
		}
	}
	return out
}

// Text returns the verdict as words ("comparable with warnings").
func (v Verdict) Text() string {
	switch v {
	case ComparableWithWarnings:
		return "comparable with warnings"
	case NotComparable:
		return "not comparable"
	}
	return string(v)
}
